// The instance's identity and its signed feed, as a follower reads them: the well-known document,
// key rotation with its endorsement, the feed's items verified over their canonical JSON with the
// published key, only entries that originated here, watchlist rows flagged, and who may read it.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createPublicKey, verify } from "node:crypto";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { CryptoThreads } from "../../src/modules/federation/crypto-threads";
import { FeedPage } from "../../src/modules/federation/model";
import { canonicalJson } from "../../src/modules/federation/signing";
import { backend } from "../backend";
import { expectEnvelope } from "../helpers";
import { addEntry, followerKey, type Instance, instance, overturn, sharedClock } from "./kit";

let a: Instance;

beforeEach(async () => {
  a = await instance(sharedClock());
});
afterEach(async () => {
  await a.close();
});

const publicKeyOf = (raw: string) => createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: raw }, format: "jwk" });
const verifies = (raw: string, text: string, sig: string) => verify(null, Buffer.from(text), publicKeyOf(raw), Buffer.from(sig, "base64url"));

describe("the well-known document", () => {
  test("names the instance, its one Ed25519 key and the feed, keyless, the same on every read", async () => {
    const res = await a.json("GET", "/.well-known/trustlist.json");
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(Object.keys(doc).sort()).toEqual(["feed", "instance", "keys", "software"]);
    expect(doc.instance.id).toMatch(/^inst_[0-9a-f]{32}$/);
    expect(doc.keys).toHaveLength(1);
    expect(doc.keys[0]).toMatchObject({ alg: "Ed25519", retired_at: null, endorsement: null });
    expect(Buffer.from(doc.keys[0].public_key, "base64url")).toHaveLength(32);
    expect(doc.feed).toEndWith("/v1/federation/changes");
    expect(doc.software.name).toBe("trustlist");
    expect((await a.json("GET", "/.well-known/trustlist.json")).body).toEqual(doc);
    // The private key is nowhere in the answer.
    const [{ private_key }] = await a.rows<{ private_key: string }>("SELECT private_key FROM federation_keys");
    expect(JSON.stringify(doc)).not.toContain(private_key);
  });

  test("a rotated key is endorsed by the previous one, which stays published as retired", async () => {
    const before = (await a.json("GET", "/.well-known/trustlist.json")).body;
    const summary = await a.services.federation.identity.rotate({ kind: "cli", id: "test" });
    expect(summary.keys).toHaveLength(2);
    const doc = (await a.json("GET", "/.well-known/trustlist.json")).body;
    const [old, fresh] = doc.keys;
    expect(old.kid).toBe(before.keys[0].kid);
    expect(old.retired_at).not.toBeNull();
    expect(fresh.retired_at).toBeNull();
    expect(fresh.endorsement.kid).toBe(old.kid);
    expect(verifies(old.public_key, `${fresh.kid}.${fresh.public_key}`, fresh.endorsement.sig)).toBe(true);
    expect(verifies(old.public_key, `${fresh.kid}.${old.public_key}`, fresh.endorsement.sig)).toBe(false);
    const events = await a.rows("SELECT action FROM audit_events WHERE action = 'instance.key_rotated'");
    expect(events).toHaveLength(1);
  });
});

describe("the signed feed", () => {
  test("every item verifies with the published key over its canonical JSON without sig", async () => {
    const key = await followerKey(a);
    const added = await addEntry(a, { severity: "restrict", vertical: "roblox", scope: "vertical" });
    const watch = await addEntry(a, { watchlist: true });
    await overturn(a, added.id);
    const doc = (await a.json("GET", "/.well-known/trustlist.json")).body;
    const res = await a.json("GET", "/v1/federation/changes?limit=10", { key });
    expect(res.status).toBe(200);
    expect(res.body.has_more).toBe(false);
    const items = res.body.items;
    expect(items.map((item: any) => [item.type, item.entry.id])).toEqual([
      ["added", added.id],
      ["added", watch.id],
      ["overturned", added.id],
    ]);
    for (const item of items) {
      const { sig, ...rest } = item;
      expect(item.origin).toBe(doc.instance.id);
      expect(item.kid).toBe(doc.keys[0].kid);
      expect(verifies(doc.keys[0].public_key, canonicalJson(rest), sig)).toBe(true);
      expect(verifies(doc.keys[0].public_key, canonicalJson({ ...rest, seq: rest.seq + 1 }), sig)).toBe(false);
    }
    expect(items[1].entry.watchlist).toBe(true);
    // The overturned item carries the whole entry as it was.
    expect(items[2].entry).toMatchObject({ severity: "restrict", vertical: "roblox", scope: "vertical", reason_code: "scam_trade" });
    // The keyed change feed still leaves the watchlist row out.
    const keyed = await a.json("GET", "/v1/blacklist/changes", { key });
    expect(keyed.body.data.map((change: any) => change.entry_id)).toEqual([added.id, added.id]);
  });

  test("pages follow the cursor in commit order; a rotated key signs the new items", async () => {
    const key = await followerKey(a);
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await addEntry(a)).id);
    const first = await a.json("GET", "/v1/federation/changes?limit=3", { key });
    expect(first.body.has_more).toBe(true);
    await a.services.federation.identity.rotate({ kind: "cli", id: "test" });
    const second = await a.json("GET", `/v1/federation/changes?limit=3&cursor=${encodeURIComponent(first.body.next_cursor)}`, { key });
    expect(second.body.has_more).toBe(false);
    expect([...first.body.items, ...second.body.items].map((item: any) => item.entry.id)).toEqual(ids);
    const doc = (await a.json("GET", "/.well-known/trustlist.json")).body;
    expect(second.body.items[0].kid).toBe(doc.keys[1].kid);
    const empty = await a.json("GET", `/v1/federation/changes?cursor=${encodeURIComponent(second.body.next_cursor)}`, { key });
    expect(empty.body.items).toEqual([]);
    expect(empty.body.next_cursor).toBe(second.body.next_cursor);
  });

  test("a page read and signed on the feed's thread is what the request thread reads: the same items, a valid FeedPage", async () => {
    const key = await followerKey(a);
    const ids = [];
    for (let i = 0; i < 30; i++) ids.push((await addEntry(a, i % 4 === 0 ? { watchlist: true } : {})).id);
    await overturn(a, ids[1]!);
    // Pages under 20 items are read on the request thread; larger ones, on a SQLite file, on a thread.
    const here = [];
    let cursor = "";
    for (let page = 0; page < 3; page++) {
      const res = await a.json("GET", `/v1/federation/changes?limit=15${cursor}`, { key });
      here.push(...res.body.items);
      cursor = `&cursor=${encodeURIComponent(res.body.next_cursor)}`;
    }
    const res = await a.json("GET", "/v1/federation/changes?limit=40", { key });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("application/json");
    expect(TypeCompiler.Compile(FeedPage).Check(res.body)).toBe(true);
    expect(res.body.has_more).toBe(false);
    expect(res.body.items).toEqual(here);
    expect(here.map((item: any) => item.entry.id)).toEqual([...ids, ids[1]]);
    const file = a.services.blacklist.feedFile;
    expect(file === undefined).toBe(backend === "postgres");
    if (file === undefined) return;
    // The thread itself: the page it reads is the one served; a file it cannot open leaves the page to the caller.
    const [origin, signing] = await Promise.all([a.services.federation.identity.instanceId(), a.services.federation.identity.signingKey()]);
    const threads = new CryptoThreads(1);
    const job = { file, after: 0, limit: 40, origin, kid: signing.kid, privateKey: signing.privateKey };
    const read = await threads.readPage(job);
    expect(read).not.toBeNull();
    expect(JSON.parse(read!.items)).toEqual(res.body.items);
    expect(read!.hasMore).toBe(false);
    expect(await threads.readPage({ ...job, file: `${file}.missing/none.db` })).toBeNull();
    expect(await threads.readPage({ ...job, limit: 5 })).toBeNull();
  });

  test("entries applied from a followed source are not published", async () => {
    const key = await followerKey(a);
    const own = await addEntry(a);
    await a.rows("UPDATE blacklist_entries SET source = 'elsewhere', upstream_id = 'bl_x' WHERE id = ?", own.id);
    const res = await a.json("GET", "/v1/federation/changes", { key });
    expect(res.body.items).toEqual([]);
  });

  test("refused: no key, a key of an account not opened, a closed account from the next request, a bad cursor, a bad limit", async () => {
    expectEnvelope(await a.json("GET", "/v1/federation/changes"), 401, "unauthorized");
    const { key: closedKey } = await a.account({ scope: "read" });
    expectEnvelope(await a.json("GET", "/v1/federation/changes", { key: closedKey }), 403, "forbidden");
    const { accountId, key } = await a.account({ scope: "read" });
    await a.json("PATCH", `/v1/admin/accounts/${accountId}`, { key: a.admin, body: { federation: true } });
    expect((await a.json("GET", "/v1/federation/changes", { key })).status).toBe(200);
    await a.json("PATCH", `/v1/admin/accounts/${accountId}`, { key: a.admin, body: { federation: false } });
    expectEnvelope(await a.json("GET", "/v1/federation/changes", { key }), 403, "forbidden");
    await a.json("PATCH", `/v1/admin/accounts/${accountId}`, { key: a.admin, body: { federation: true } });
    expectEnvelope(await a.json("GET", "/v1/federation/changes?cursor=forged.cursor", { key }), 400, "invalid_cursor");
    const list = await a.json("GET", "/v1/blacklist/changes", { key });
    expectEnvelope(await a.json("GET", `/v1/federation/changes?cursor=${encodeURIComponent(list.body.next_cursor)}`, { key }), 400, "invalid_cursor");
    for (const limit of ["0", "1001", "x"]) expect((await a.json("GET", `/v1/federation/changes?limit=${limit}`, { key })).status).toBeGreaterThanOrEqual(400);
  });
});
