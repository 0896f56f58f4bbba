// A developer's console, checked against the API it manages: a key created, rotated and revoked in
// the console works (or stops working) on the keyed routes; the plan's key cap holds; usage shows
// the calls the keys made, per day and per endpoint; and a free account's webhook goes from
// registration to a signed delivery at a real receiver, seen in the console with its attempt.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock";
import { WebhookWorker } from "../../src/jobs/webhook-worker";
import { Receiver } from "../webhook-receiver";
import { noticeOf, page, post, snapshot, type World, world } from "./setup";

let w: World;
let receiver: Receiver;
let worker: WebhookWorker;

beforeAll(async () => {
  // Real time: the verifying library refuses timestamps 5 minutes away from its clock.
  w = await world({ clock: new ManualClock(Date.now()), config: { allowPrivateWebhooks: true } });
  receiver = new Receiver();
  worker = new WebhookWorker(w.t.services.webhooks, w.t.clock, w.t.runtime.metrics, w.t.runtime.log, { pollMs: 10 });
});

afterEach(async () => {
  // Each test leaves the account's keys as it found them (none live).
  for (const key of await w.t.services.accounts.listKeys(w.guild.id)) if (key.revoked_at === null) await w.t.services.accounts.revokeKey(key.id);
});

afterAll(async () => {
  await worker.stop();
  receiver.stop();
  await w.t.close();
});

const accountPage = () => `/console/accounts/${w.guild.id}`;
const secretOf = (html: string) => html.match(/id="secret-value"[^>]*value="([^"]+)"/)?.[1] ?? null;
const usage = (key: string) => w.t.json("GET", "/v1/account/usage", { key });

describe("keys", () => {
  test("a key created in the console is shown once and works; rotated, the old secret is refused; revoked, it is refused", async () => {
    const created = await post(w, "dev", `${accountPage()}/keys`, { name: "discord-bot", scope: "read" });
    expect(created.status).toBe(200);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const key = secretOf(created.text)!;
    expect(key).toMatch(/^tl_live_[A-Za-z0-9]{32}$/);
    expect((await usage(key)).status).toBe(200);
    const listed = (await w.t.services.accounts.listKeys(w.guild.id)).find((k) => key.startsWith(k.prefix))!;
    expect(listed).toMatchObject({ name: "discord-bot", scope: "read", rate_tier: "free", revoked_at: null });
    // The account page lists it by name and prefix, never the secret.
    const shown = (await page(w, "dev", accountPage())).text;
    expect(shown).toContain("discord-bot");
    expect(shown).toContain(`${listed.prefix}…`);
    expect(shown).not.toContain(key);

    const rotated = await post(w, "dev", `${accountPage()}/keys/${listed.id}/rotate`);
    expect(rotated.status).toBe(200);
    const fresh = secretOf(rotated.text)!;
    expect(fresh).not.toBe(key);
    expect((await usage(key)).status).toBe(401);
    expect((await usage(fresh)).status).toBe(200);

    const revoked = await post(w, "dev", `${accountPage()}/keys/${listed.id}/revoke`);
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get("location")).toBe(`${accountPage()}?done=key-revoked`);
    expect((await usage(fresh)).status).toBe(401);
    expect(noticeOf((await page(w, "dev", revoked.headers.get("location")!)).text)).toContain("revoked");
  });

  test("a write key created in the console reaches the partner path; a read key does not", async () => {
    const write = secretOf((await post(w, "dev", `${accountPage()}/keys`, { scope: "write" })).text)!;
    const read = secretOf((await post(w, "dev", `${accountPage()}/keys`, { scope: "read" })).text)!;
    const body = { handle: "dev" };
    expect((await w.t.json("POST", "/v1/partner/login-links", { key: write, body })).status).toBe(201);
    expect((await w.t.json("POST", "/v1/partner/login-links", { key: read, body })).status).toBe(403);
  });

  test("the free plan's cap of 2 keys holds: the form goes, and a forced create is refused with nothing added", async () => {
    for (const name of ["one", "two"]) expect((await post(w, "dev", `${accountPage()}/keys`, { name })).status).toBe(200);
    const full = (await page(w, "dev", accountPage())).text;
    expect(full).toContain("2 of 2 the plan allows");
    expect(full).not.toContain(`action="${accountPage()}/keys"`);
    const before = await snapshot(w);
    const refused = await post(w, "dev", `${accountPage()}/keys`, { name: "three" });
    expect(refused.status).toBe(409);
    expect(noticeOf(refused.text)).toContain("(2)");
    expect(await snapshot(w)).toEqual(before);
  });

  test("another account's key is not found through this account's pages", async () => {
    const other = await w.t.account();
    const before = await snapshot(w);
    expect((await post(w, "dev", `${accountPage()}/keys/${other.keyId}/revoke`)).status).toBe(404);
    expect((await usage(other.key)).status).toBe(200);
    expect(await snapshot(w)).toEqual(before);
  });
});

describe("usage", () => {
  test("the chart and its table count the account's calls today, and by endpoint", async () => {
    const key = secretOf((await post(w, "dev", `${accountPage()}/keys`, { scope: "read" })).text)!;
    for (let i = 0; i < 3; i++) expect((await w.t.json("GET", "/v1/blacklist/check?provider=discord&id=100000000000000001", { key })).status).toBe(200);
    const html = (await page(w, "dev", accountPage())).text;
    const today = new Date(w.t.clock.now()).toISOString().slice(0, 10);
    expect(html).toContain('<svg class="chart"');
    expect(html).toMatch(new RegExp(`<td>${today}</td><td>([4-9]|\\d\\d+)</td>`));
    expect(html).toContain("<code>GET /v1/blacklist/check</code></td><td>3</td>");
    // 30 days, each a bar and a row.
    expect(html.match(/<rect class="bar"/g)).toHaveLength(30);
  });
});

describe("webhooks on the free plan", () => {
  test("registered in the console, tested, delivered signed to a real receiver, and seen with its attempt", async () => {
    const registered = await post(w, "dev", `${accountPage()}/webhooks`, { url: receiver.url("/hooks"), events: ["blacklist.added", "blacklist.overturned"] });
    expect(registered.status).toBe(200);
    const secret = secretOf(registered.text)!;
    expect(secret).toMatch(/^whsec_/);
    const [endpoint] = (await w.t.services.webhooks.list(w.guild.id)).data;
    expect(endpoint).toMatchObject({ url: receiver.url("/hooks"), events: ["blacklist.added", "blacklist.overturned"], enabled: true });
    // The API refuses a free account's webhook management; the console is where it manages them.
    const key = secretOf((await post(w, "dev", `${accountPage()}/keys`, {})).text)!;
    expect((await w.t.json("GET", "/v1/webhooks", { key })).status).toBe(402);

    const base = `${accountPage()}/webhooks/${endpoint!.id}`;
    const tested = await post(w, "dev", `${base}/test`);
    expect(tested.status).toBe(303);
    await worker.drain();
    await receiver.waitFor(() => receiver.at("/hooks").length === 1);
    const payload = Receiver.verify(secret, receiver.at("/hooks")[0]!);
    expect(payload.type).toBe("webhook.test");
    const seen = (await page(w, "dev", base)).text;
    expect(seen).toContain("<code>webhook.test</code> · delivered · 1 attempt");
    expect(seen).toMatch(/<td>1<\/td><td><time[^>]*>[^<]*<\/time><\/td><td>200<\/td>/);

    // An event reaches it too, signed with the rotated secret.
    const rotated = secretOf((await post(w, "dev", `${base}/rotate`)).text)!;
    expect(rotated).not.toBe(secret);
    w.t.clock.advance(1);
    await w.write("POST", "/v1/partner/blacklist", { provider: "discord", provider_user_id: "100000000000000055", severity: "ban", reason_code: "scam_trade" });
    await worker.drain();
    await receiver.waitFor(() => receiver.at("/hooks").length === 2);
    expect(Receiver.verify(rotated, receiver.at("/hooks")[1]!).type).toBe("blacklist.added");

    expect((await post(w, "dev", `${base}/disable`)).headers.get("location")).toBe(`${base}?done=webhook-disabled`);
    expect((await w.t.services.webhooks.get(w.guild.id, endpoint!.id)).enabled).toBe(false);
    expect((await post(w, "dev", `${base}/enable`)).status).toBe(303);
    expect((await w.t.services.webhooks.get(w.guild.id, endpoint!.id)).enabled).toBe(true);
    expect((await post(w, "dev", `${base}/delete`)).headers.get("location")).toBe(`${accountPage()}?done=webhook-deleted`);
    expect((await w.t.services.webhooks.list(w.guild.id)).data).toEqual([]);
    expect((await page(w, "dev", base)).status).toBe(404);
  });

  test("a URL the guard refuses is a page saying why, and nothing is registered", async () => {
    const before = await snapshot(w);
    const res = await post(w, "dev", `${accountPage()}/webhooks`, { url: "ftp://example.org/x", events: "blacklist.added" });
    expect(res.status).toBe(422);
    expect(noticeOf(res.text)).toBeTruthy();
    const none = await post(w, "dev", `${accountPage()}/webhooks`, { url: receiver.url("/x") });
    expect(none.status).toBe(422);
    expect(noticeOf(none.text)).toContain("events");
    expect(await snapshot(w)).toEqual(before);
  });
});
