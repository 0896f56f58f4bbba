// Following another instance over loopback: adding a source pins its identity, a sync applies its
// items under the source's policy (cap, verticals, reason codes, watch), its overturns and expiries
// follow, a policy change re-applies to what is held, removal retracts (or keeps), and the hits
// name the source.
import { describe, expect, test } from "bun:test";
import { eventually } from "../backend";
import { expectEnvelope } from "../helpers";
import { addEntry, check, discordId, eachTestTwoInstances, follow, held, type Instance, instance, overturn, sync } from "./kit";

let a: Instance;
let b: Instance;
eachTestTwoInstances((x, y) => ((a = x), (b = y)));

describe("adding a source", () => {
  test("pins the instance id and keys, prints fingerprints, never shows the key", async () => {
    const doc = (await a.json("GET", "/.well-known/trustlist.json")).body;
    const source = await follow(b, a, "alpha");
    expect(source.instance_id).toBe(doc.instance.id);
    expect(source.fingerprints).toHaveLength(1);
    expect(source.fingerprints[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(source).toMatchObject({ name: "alpha", policy: "apply", cursor: null, entries_held: 0, last_error: null, interval_s: 60 });
    const listed = await b.json("GET", "/v1/admin/sources", { key: b.admin });
    expect(listed.body.data).toHaveLength(1);
    const [row] = await b.rows<{ api_key: string }>("SELECT api_key FROM federation_sources");
    expect(JSON.stringify(listed.body)).not.toContain(row!.api_key);
  });

  test("refused: an unreachable URL, a taken name, a non-admin key, bad fields", async () => {
    const key = (await a.account({ scope: "read" })).key;
    expectEnvelope(await b.json("POST", "/v1/admin/sources", { key: b.admin, body: { name: "x", url: "http://127.0.0.1:1", key } }), 422, "unprocessable");
    await follow(b, a, "alpha");
    expectEnvelope(await b.json("POST", "/v1/admin/sources", { key: b.admin, body: { name: "alpha", url: a.url, key } }), 409, "conflict");
    expectEnvelope(await b.json("POST", "/v1/admin/sources", { key: b.writer, body: { name: "beta", url: a.url, key } }), 403, "forbidden");
    expectEnvelope(await b.json("GET", "/v1/admin/sources"), 401, "unauthorized");
    const bad = await b.json("POST", "/v1/admin/sources", { key: b.admin, body: { name: "beta", url: a.url, key, interval_s: 1 } });
    expect(bad.status).toBe(422);
    expectEnvelope(await b.json("POST", "/v1/admin/sources", { key: b.admin, body: { name: "beta", url: "ftp://x", key } }), 422, "unprocessable");
    for (const [method, path] of [["GET", "/v1/admin/sources/nobody"], ["PATCH", "/v1/admin/sources/nobody"], ["POST", "/v1/admin/sources/nobody/sync"], ["DELETE", "/v1/admin/sources/nobody"]] as const) {
      expectEnvelope(await b.json(method, path, { key: b.admin, body: method === "PATCH" ? { policy: "watch" } : undefined }), 404, "not_found");
      expectEnvelope(await b.json(method, path, { key: b.writer, body: method === "PATCH" ? { policy: "watch" } : undefined }), 403, "forbidden");
    }
    expect((await b.json("PATCH", "/v1/admin/sources/alpha", { key: b.admin, body: { policy: "ban-all" } })).status).toBe(422);
    expect((await b.json("PATCH", "/v1/admin/sources/alpha", { key: b.admin, body: { interval_s: 4 } })).status).toBe(422);
    expect((await b.json("GET", "/v1/admin/sources", { key: b.admin })).body.data).toHaveLength(1);
  });

  test("a key of an account not opened for following: the sync stops with the source's 403", async () => {
    const key = (await a.account({ scope: "read" })).key;
    await b.json("POST", "/v1/admin/sources", { key: b.admin, body: { name: "alpha", url: a.url, key } });
    const outcome = await sync(b, "alpha");
    expect(outcome.error).toContain("403 forbidden");
    expect((await b.json("GET", "/v1/admin/sources/alpha", { key: b.admin })).body.last_error).toContain("403");
  });
});

describe("apply", () => {
  test("a page's items that name a follower's creator blacklist them: the score falls, one creator.blacklisted event", async () => {
    const accountA = discordId();
    const accountB = discordId();
    expect((await b.json("PUT", "/v1/partner/creators/builder", { key: b.writer, body: { display_name: "Builder", verification_level: 2 } })).status).toBe(201);
    for (const id of [accountA, accountB]) {
      expect((await b.json("POST", "/v1/partner/creators/builder/connections", { key: b.writer, body: { provider: "discord", provider_user_id: id, public: true } })).status).toBe(201);
    }
    const before = (await b.json("GET", "/v1/users/builder/trust", { key: b.writer })).body;
    await follow(b, a, "alpha");
    // Two entries naming the creator and one naming nobody, applied in one page.
    await addEntry(a, { provider_user_id: accountA });
    await addEntry(a, { provider_user_id: accountB });
    await addEntry(a);
    expect(await sync(b, "alpha")).toMatchObject({ applied: 3, error: null });
    const after = (await b.json("GET", "/v1/users/builder/trust", { key: b.writer })).body;
    expect(after.blacklisted).toBe(true);
    expect(after.trust_score).toBeLessThan(before.trust_score);
    const events = await b.rows<{ type: string; payload: string }>("SELECT type, payload FROM outbox_events ORDER BY created_at, id");
    expect(events.filter((e) => e.type === "blacklist.added")).toHaveLength(3);
    // Blacklisted once, however many of the page's entries name the creator.
    const blacklisted = events.filter((e) => e.type === "creator.blacklisted").map((e) => JSON.parse(e.payload));
    expect(blacklisted).toHaveLength(1);
    expect(blacklisted[0].handle).toBe("builder");
  });

  test("a follower's tripwire on a Discord account trips when a synced page bans it, and only that one", async () => {
    expect((await b.json("PUT", "/v1/partner/creators/watcher", { key: b.writer, body: {} })).status).toBe(201);
    const link = await b.json("POST", "/v1/partner/login-links", { key: b.writer, body: { handle: "watcher" } });
    const url = new URL(link.body.url);
    const cookie = (await b.call("GET", url.pathname + url.search)).headers.get("set-cookie")!.split(";")[0]!;
    const watched = discordId();
    const unwatched = discordId();
    const wire = await b.json("POST", "/v1/me/tripwires", { body: { who: watched }, headers: { cookie } });
    expect(wire.status, JSON.stringify(wire.body)).toBe(201);
    await follow(b, a, "alpha");
    await addEntry(a, { provider_user_id: unwatched });
    await addEntry(a, { provider_user_id: watched });
    await addEntry(a, { provider_user_id: discordId(), severity: "warn" });
    expect(await sync(b, "alpha")).toMatchObject({ applied: 3, error: null });
    const wires = (await b.json("GET", "/v1/me/tripwires", { headers: { cookie } })).body.tripwires;
    expect(wires.map((w: { who: string; trips: number }) => [w.who, w.trips])).toEqual([[watched, 1]]);
  });

  test("items become entries naming the source; overturns and expiries follow; the cursor advances", async () => {
    await follow(b, a, "alpha");
    const banned = await addEntry(a);
    const lapsing = await addEntry(a, { severity: "warn", expires_at: new Date(a.clock.now() + 3_600_000).toISOString() });
    const gone = await addEntry(a);
    await overturn(a, gone.id);
    const outcome = await sync(b, "alpha");
    expect(outcome).toMatchObject({ applied: 4, error: null, has_more: false, running: false });
    expect([...(await held(b, "alpha")).keys()].sort()).toEqual([banned.id, lapsing.id].sort());
    const hit = await check(b, (await a.rows("SELECT provider_user_id FROM blacklist_entries WHERE id = ?", banned.id))[0].provider_user_id);
    expect(hit.banned).toBe(true);
    expect(hit.entry.source).toBe("alpha");
    // Nothing new: a second sync applies nothing.
    expect((await sync(b, "alpha")).applied).toBe(0);
    // The source's overturn and expiry reach the follower at its next sync.
    await overturn(a, banned.id);
    a.clock.advance(3_600_001);
    expect(await a.services.blacklist.expireDue()).toBe(1);
    expect((await sync(b, "alpha")).applied).toBe(2);
    expect((await held(b, "alpha")).size).toBe(0);
    const statuses = await b.rows<{ upstream_id: string; status: string; overturn_reason: string | null }>(
      "SELECT upstream_id, status, overturn_reason FROM blacklist_entries WHERE source = 'alpha' ORDER BY upstream_id",
    );
    expect(new Map(statuses.map((row): [string, unknown] => [row.upstream_id, [row.status, row.overturn_reason]]))).toEqual(
      new Map<string, unknown>([
        [banned.id, ["overturned", "source_overturned"]],
        [lapsing.id, ["expired", null]],
        // Added and overturned upstream before the first sync: applied, then overturned, in order.
        [gone.id, ["overturned", "source_overturned"]],
      ]),
    );
    const actors = await b.rows<{ actor_kind: string; actor_id: string; action: string }>("SELECT actor_kind, actor_id, action FROM audit_events WHERE entry_id IS NOT NULL ORDER BY at, id");
    expect(actors.every((row) => row.actor_kind === "source" && row.actor_id === "alpha")).toBe(true);
    expect(actors.map((row) => row.action).sort()).toEqual(["entry.added", "entry.added", "entry.added", "entry.expired", "entry.overturned", "entry.overturned"]);
  });

  test("the severity cap, vertical and reason-code filters; rejected items are audited", async () => {
    await follow(b, a, "alpha", { max_severity: "restrict", verticals: ["roblox", "all"], reason_codes: ["scam_trade", "chargeback"] });
    const ban = await addEntry(a);
    const warn = await addEntry(a, { severity: "warn", reason_code: "chargeback" });
    const minecraft = await addEntry(a, { scope: "vertical", vertical: "minecraft" });
    const roblox = await addEntry(a, { scope: "vertical", vertical: "roblox" });
    const otherReason = await addEntry(a, { reason_code: "harassment" });
    await sync(b, "alpha");
    const holding = await held(b, "alpha");
    expect([...holding.keys()].sort()).toEqual([ban.id, warn.id, roblox.id].sort());
    expect(holding.get(ban.id)!.severity).toBe("restrict");
    expect(holding.get(warn.id)!.severity).toBe("warn");
    const hit = await check(b, holding.get(ban.id)!.id);
    expect(hit.banned).toBe(false);
    expect(hit.entry.severity).toBe("restrict");
    const rejected = await b.rows<{ details: string }>("SELECT details FROM audit_events WHERE action = 'source.item_rejected'");
    expect(rejected.map((row) => JSON.parse(row.details)).sort((x, y) => x.upstream_id.localeCompare(y.upstream_id))).toEqual(
      [
        { upstream_id: minecraft.id, reason: "vertical" },
        { upstream_id: otherReason.id, reason: "reason_code" },
      ].sort((x, y) => x.upstream_id.localeCompare(y.upstream_id)),
    );
  });

  test("watch holds every item as a watchlist hit, never banned; the source's watchlist rows stay watchlist under apply", async () => {
    await follow(b, a, "alpha", { policy: "watch" });
    const ban = await addEntry(a);
    await sync(b, "alpha");
    const holding = await held(b, "alpha");
    expect(holding.get(ban.id)).toMatchObject({ watchlist: true });
    const hit = await check(b, holding.get(ban.id)!.id);
    expect(hit.banned).toBe(false);

    const c = await instance(a.clock);
    try {
      await follow(c, a, "alpha");
      const watched = await addEntry(a, { watchlist: true });
      await sync(c, "alpha");
      const onC = await held(c, "alpha");
      expect(onC.get(watched.id)).toMatchObject({ watchlist: true });
      expect(onC.get(ban.id)).toMatchObject({ watchlist: false });
      expect((await check(c, onC.get(watched.id)!.id)).banned).toBe(false);
    } finally {
      await c.close();
    }
  });

  test("a policy change re-applies to what is held at once, without a sync", async () => {
    await follow(b, a, "alpha");
    const ban = await addEntry(a);
    const roblox = await addEntry(a, { scope: "vertical", vertical: "roblox", severity: "restrict" });
    await sync(b, "alpha");
    expect((await held(b, "alpha")).size).toBe(2);

    const capped = await b.json("PATCH", "/v1/admin/sources/alpha", { key: b.admin, body: { max_severity: "warn", verticals: ["roblox"] } });
    expect(capped.status, JSON.stringify(capped.body)).toBe(200);
    expect(capped.body).toMatchObject({ max_severity: "warn", verticals: ["roblox"], entries_held: 1 });
    let holding = await held(b, "alpha");
    expect([...holding.keys()]).toEqual([roblox.id]);
    expect(holding.get(roblox.id)!.severity).toBe("warn");

    await b.json("PATCH", "/v1/admin/sources/alpha", { key: b.admin, body: { max_severity: null, verticals: null, policy: "watch" } });
    holding = await held(b, "alpha");
    expect([...holding.keys()].sort()).toEqual([ban.id, roblox.id].sort());
    expect([...holding.values()].every((entry) => entry.watchlist)).toBe(true);

    await b.json("PATCH", "/v1/admin/sources/alpha", { key: b.admin, body: { policy: "apply" } });
    holding = await held(b, "alpha");
    expect(holding.get(ban.id)).toMatchObject({ severity: "ban", watchlist: false });
  });

  test("removal overturns what is held with source_removed, or keeps it with keep=true", async () => {
    await follow(b, a, "alpha");
    await follow(b, a, "beta");
    await addEntry(a);
    await addEntry(a);
    await sync(b, "alpha");
    await sync(b, "beta");
    const removed = await b.json("DELETE", "/v1/admin/sources/alpha", { key: b.admin });
    expect(removed.body).toEqual({ name: "alpha", removed: true, entries_overturned: 2, running: false });
    const reasons = await b.rows<{ overturn_reason: string }>("SELECT overturn_reason FROM blacklist_entries WHERE source = 'alpha'");
    expect(reasons.map((row) => row.overturn_reason)).toEqual(["source_removed", "source_removed"]);
    const kept = await b.json("DELETE", "/v1/admin/sources/beta?keep=true", { key: b.admin });
    expect(kept.body).toEqual({ name: "beta", removed: true, entries_overturned: 0, running: false });
    expect((await held(b, "beta")).size).toBe(2);
    expectEnvelope(await b.json("DELETE", "/v1/admin/sources/beta", { key: b.admin }), 404, "not_found");
  });
});

describe("where a held entry shows", () => {
  test("the public check and the home page name the source; a local entry says blacklist", async () => {
    await follow(b, a, "next-door");
    const remote = await addEntry(a, { username: "FarAwayScammer" });
    const local = await addEntry(b, { username: "NearbyScammer" });
    await sync(b, "next-door");
    const remoteId = (await a.rows("SELECT provider_user_id FROM blacklist_entries WHERE id = ?", remote.id))[0].provider_user_id;
    const publicHit = (await b.json("GET", `/v1/public/blacklist/check?q=${remoteId}`)).body.platforms[0];
    expect(publicHit).toMatchObject({ banned: true, source: "next-door" });
    const localId = (await b.rows("SELECT provider_user_id FROM blacklist_entries WHERE id = ?", local.id))[0].provider_user_id;
    expect((await b.json("GET", `/v1/public/blacklist/check?q=${localId}`)).body.platforms[0].source).toBe("blacklist");
    expect((await check(b, localId)).entry.source).toBeUndefined();
    const page = await (await b.call("GET", `/?q=${remoteId}`)).text();
    expect(page).toContain("Listed by:</span> next-door");
    const localPage = await (await b.call("GET", `/?q=${localId}`)).text();
    expect(localPage).not.toContain("Listed by:");
  });

  test("a source may not take a name the public answer uses for this instance's own", async () => {
    const key = (await a.account({ scope: "read" })).key;
    for (const name of ["blacklist", "creator", "external"]) {
      expectEnvelope(await b.json("POST", "/v1/admin/sources", { key: b.admin, body: { name, url: a.url, key } }), 422, "unprocessable");
    }
  });
});

test("the sync job pulls a source when its interval has passed, from its durable cursor", async () => {
  await follow(b, a, "alpha", { interval_s: 30 });
  const first = await addEntry(a);
  const job = async () => {
    const res = await b.json("POST", "/v1/admin/jobs/sync-sources", { key: b.admin });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.worked;
  };
  expect(await job()).toBe(1);
  const second = await addEntry(a);
  b.clock.advance(29_000);
  expect(await job()).toBe(0);
  b.clock.advance(1_000);
  expect(await job()).toBe(1);
  expect([...(await held(b, "alpha")).keys()].sort()).toEqual([first.id, second.id].sort());
  const source = (await b.json("GET", "/v1/admin/sources/alpha", { key: b.admin })).body;
  expect(source.last_synced_at).toBe(new Date(b.clock.now()).toISOString());
  expect(source.cursor).not.toBeNull();
});

test("a sync, a re-apply and a removal that outlast the wait answer at once and finish behind it", async () => {
  await follow(b, a, "alpha");
  for (let i = 0; i < 30; i++) await addEntry(a);
  const actor = { kind: "cli" as const, id: "test" };
  const early = await b.services.federation.syncSource("alpha", 0);
  expect(early).toMatchObject({ running: true, error: null });
  await eventually(async () => expect((await held(b, "alpha")).size).toBe(30));
  const updated = await b.services.federation.updateSource("alpha", { policy: "watch" }, actor, 0);
  expect(updated.policy).toBe("watch");
  await eventually(async () => expect([...(await held(b, "alpha")).values()].every((entry) => entry.watchlist)).toBe(true));
  const removing = await b.services.federation.removeSource("alpha", false, actor, 0);
  // On SQLite 30 entries are retracted before the wait is up; on PostgreSQL the answer comes first.
  expect(removing).toMatchObject({ name: "alpha", removed: true });
  if (!removing.running) expect(removing.entries_overturned).toBe(30);
  await eventually(async () => expect((await b.json("GET", "/v1/admin/sources", { key: b.admin })).body.data).toEqual([]));
  expect((await held(b, "alpha")).size).toBe(0);
});

