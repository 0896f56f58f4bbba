// An admin's sources and exemptions page, against a real publishing instance on loopback: follow
// it from the console, sync it, see its health (last sync, entries held, then its error when the
// publisher closes the feed), exempt an account, change the policy, stop following. Nobody below
// admin sees the page or may post its forms.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addEntry, followerKey, held, type Instance, instance, sharedClock } from "../federation/kit";
import { formActions, noticeOf, page, post, snapshot, type World, world } from "./setup";

let publisher: Instance;
let w: World;
let key: string;
let listed: { id: string; provider_user_id: string };

beforeAll(async () => {
  const clock = sharedClock();
  publisher = await instance(clock);
  w = await world({ clock, http: true });
  key = await followerKey(publisher);
  listed = await addEntry(publisher);
});

afterAll(async () => {
  await w.t.close();
  await publisher.close();
});

const SOURCES = "/console/admin/sources";

describe("sources and exemptions", () => {
  test("an admin follows, syncs, exempts, changes the policy and stops following, seeing each source's health", async () => {
    const followed = await post(w, "boss", SOURCES, { name: "next-door", url: publisher.url, key, policy: "apply" });
    expect(followed.status, noticeOf(followed.text) ?? "").toBe(303);
    expect((await post(w, "boss", `${SOURCES}/next-door/sync`)).headers.get("location")).toBe(`${SOURCES}?done=source-synced`);
    expect([...(await held(w.t as Instance, "next-door")).keys()]).toEqual([listed.id]);
    const healthy = (await page(w, "boss", SOURCES)).text;
    expect(healthy).toContain("in sync");
    expect(healthy).toMatch(/<dt>Entries held<\/dt><dd>1<\/dd>/);
    expect(healthy).not.toContain(key);

    // An exemption wins at once: the entry held from the source is overturned.
    expect((await post(w, "boss", "/console/admin/exemptions", { provider: "discord", provider_user_id: listed.provider_user_id, reason: "Our member, cleared." })).status).toBe(303);
    const bot = (await w.t.account()).key;
    const checked = await w.t.json("GET", `/v1/blacklist/check?provider=discord&id=${listed.provider_user_id}`, { key: bot });
    expect(checked.body).toMatchObject({ banned: false });
    const exemption = (await w.t.services.federation.exemptions.list())[0]!;
    expect(exemption).toMatchObject({ provider_user_id: listed.provider_user_id, created_by: "staff:boss" });
    expect((await post(w, "boss", `/console/admin/exemptions/${exemption.id}/remove`)).status).toBe(303);
    expect(await w.t.services.federation.exemptions.list()).toEqual([]);

    expect((await post(w, "boss", `${SOURCES}/next-door/policy`, { policy: "watch" })).status).toBe(303);
    expect((await w.t.services.federation.getSource("next-door")).policy).toBe("watch");

    // The publisher closes its feed to this follower: the next sync fails, and the page says why.
    const account = (await publisher.services.accounts.listAccounts()).find((a) => a.federation)!;
    await publisher.services.accounts.updateAccount(account.id, { federation: false });
    const failed = await post(w, "boss", `${SOURCES}/next-door/sync`);
    expect(failed.status).toBe(502);
    const failing = (await page(w, "boss", SOURCES)).text;
    expect(failing).toContain("failing");
    expect(failing).toContain(Bun.escapeHTML((await w.t.services.federation.getSource("next-door")).last_error!));

    expect((await post(w, "boss", `${SOURCES}/next-door/remove`)).headers.get("location")).toBe(`${SOURCES}?done=source-removed`);
    expect(await w.t.services.federation.listSources()).toEqual([]);
    const audit = await w.t.services.audit.list({ actor: "staff:boss" });
    expect(audit.data.map((e) => e.action)).toEqual(expect.arrayContaining(["source.added", "exemption.added", "exemption.removed", "source.updated", "source.removed"]));
  });

  test("below admin the page is 403 and its forms change nothing; an admin's overview links it", async () => {
    expect(formActions((await page(w, "boss", SOURCES)).text)).toContain("/console/admin/exemptions");
    expect((await page(w, "boss", "/console")).text).toContain(`href="${SOURCES}"`);
    const before = await snapshot(w);
    for (const handle of ["mod", "triager", "dev", "plain"]) {
      expect((await page(w, handle, SOURCES)).status).toBe(403);
      expect((await page(w, handle, "/console")).text).not.toContain(`href="${SOURCES}"`);
      expect((await post(w, handle, SOURCES, { name: "x", url: publisher.url, key })).status).toBe(403);
      expect((await post(w, handle, "/console/admin/exemptions", { provider: "discord", provider_user_id: "1", reason: "x" })).status).toBe(403);
    }
    expect(await snapshot(w)).toEqual(before);
    expect(await w.t.services.federation.listSources()).toEqual([]);
  });
});
