// The periodic jobs, driven by hand with the manual clock: expiry, usage pruning, metering flush.
// (Another process's writes are noticed by every request: test/db/external-changes.test.ts.)
import { afterEach, expect, test } from "bun:test";
import { jobs } from "../../src/jobs";
import { createTestApp, type TestApp } from "../helpers";

let t: TestApp;
afterEach(() => t?.close());

const job = (name: string) => {
  const found = jobs(t.runtime, t.services).find((j) => j.name === name);
  if (!found) throw new Error(`no job ${name}`);
  return found;
};

test("the expiry job marks lapsed entries expired and records them in the change feed", async () => {
  t = await createTestApp();
  const { key } = await t.account({ tier: "pro", burst: 10_000 });
  const short = await t.services.blacklist.add(
    { provider: "discord", provider_user_id: "1001", severity: "ban", reason_code: "scam", expires_at: "2026-11-21T12:00:00Z" },
    { kind: "cli", id: "test" },
  );
  const permanent = await t.services.blacklist.add({ provider: "discord", provider_user_id: "1002", severity: "ban", reason_code: "scam" }, { kind: "cli", id: "test" });

  await job("expire-entries").run();
  expect((await t.json("GET", "/v1/blacklist/check?provider=discord&id=1001", { key })).body.banned).toBe(true);

  t.clock.set("2026-11-21T12:00:01Z");
  // Reads stop reporting the entry at its expiry even before the job has run.
  expect((await t.json("GET", "/v1/blacklist/check?provider=discord&id=1001", { key })).body).toEqual({
    provider: "discord",
    id: "1001",
    banned: false,
    checked_at: "2026-11-21T12:00:01.000Z",
  });
  await job("expire-entries").run();
  await job("expire-entries").run();

  const status = await t.rows("SELECT id, status FROM blacklist_entries ORDER BY provider_user_id");
  expect(status).toEqual([
    { id: short.id, status: "expired" },
    { id: permanent.id, status: "active" },
  ]);
  const feed = await t.json("GET", "/v1/blacklist/changes", { key });
  expect(feed.body.data.map((c: { type: string; entry_id: string }) => [c.type, c.entry_id])).toEqual([
    ["added", short.id],
    ["added", permanent.id],
    ["expired", short.id],
  ]);
  const list = await t.json("GET", "/v1/blacklist", { key });
  expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([permanent.id]);
});

test("the flush job persists metering, and pruning drops usage older than 93 days", async () => {
  t = await createTestApp();
  const { key, keyId, accountId } = await t.account({ burst: 10_000 });
  for (let i = 0; i < 3; i++) await t.call("GET", "/v1/blacklist/check?provider=roblox&id=5", { key });
  const count = async (table: string) => (await t.rows(`SELECT CAST(count(*) AS INTEGER) AS n FROM ${table}`))[0].n;
  expect(await count("usage_endpoints")).toBe(0);
  await job("flush-metering").run();
  expect(await t.rows("SELECT key_id, day, endpoint, count FROM usage_endpoints")).toEqual([
    { key_id: keyId, day: "2026-11-21", endpoint: "GET /v1/blacklist/check", count: 3 },
  ]);
  expect(await t.rows("SELECT account_id, count FROM usage_daily")).toEqual([{ account_id: accountId, count: 3 }]);

  t.clock.set("2027-02-21T10:00:00Z"); // 92 days later: kept
  await job("prune-usage").run();
  expect(await count("usage_endpoints")).toBe(1);
  t.clock.set("2027-02-23T10:00:00Z"); // 94 days later: pruned
  await job("prune-usage").run();
  expect(await count("usage_endpoints")).toBe(0);
  expect(await count("usage_daily")).toBe(0);
});

test("the 00:05 trust job snapshots every creator for the day; the 5-minute job refreshes public counters", async () => {
  t = await createTestApp();
  expect(job("trust-snapshots").pattern).toBe("5 0 * * *");
  expect(job("public-stats").pattern).toBe("0 */5 * * * *");
  for (const handle of ["one", "two", "three"]) await t.services.creators.upsert(handle, { verification_level: 1, joined_at: "2026-10-22T10:00:00Z" });
  const snapshots = (day: string) => t.rows<{ creator_id: string; score: number }>("SELECT creator_id, score FROM trust_snapshots WHERE day = ?", day);
  expect(await snapshots("2026-11-21")).toHaveLength(3);
  // Joined 30 days ago: the next day's job adds the first month of age (+1) with no write at all.
  t.clock.set("2026-11-22T00:05:00Z");
  expect(await snapshots("2026-11-22")).toHaveLength(0);
  await job("trust-snapshots").run();
  expect((await snapshots("2026-11-22")).map((s) => s.score)).toEqual([109, 109, 109]);
  expect((await t.services.creators.profile("one")).trust_score).toBe(109);

  expect(await t.services.public.publicStats()).toMatchObject({ creators_verified: 3, cached: false });
  await t.services.creators.upsert("four", { verification_level: 2 });
  expect(await t.services.public.publicStats()).toMatchObject({ creators_verified: 3, cached: true });
  await job("public-stats").run();
  expect(await t.services.public.publicStats()).toMatchObject({ creators_verified: 4, cached: true });
});

test("the expiry job gives way to requests between slices, and its result is exact", async () => {
  t = await createTestApp();
  const { key } = await t.account({ tier: "pro", burst: 10_000 });
  // A creator blacklisted through a linked account whose ban lapses with the others.
  await t.services.creators.upsert("lapsing", { verification_level: 1 });
  await t.services.creators.link("lapsing", { provider: "discord", provider_user_id: "7000", public: true });
  const due: string[] = [];
  for (let i = 0; i < 1_500; i++) {
    const row = await t.services.blacklist.add(
      { provider: "discord", provider_user_id: String(7000 + i), severity: "ban", reason_code: "scam", expires_at: "2026-11-21T11:00:00Z" },
      { kind: "cli", id: "test" },
    );
    due.push(row.id);
  }
  const kept = await t.services.blacklist.add({ provider: "discord", provider_user_id: "9", severity: "ban", reason_code: "scam" }, { kind: "cli", id: "test" });
  expect((await t.services.creators.profile("lapsing")).blacklisted).toBe(true);
  t.clock.set("2026-11-21T11:00:01Z");

  let finished = false;
  const run = Promise.resolve(job("expire-entries").run()).then((n) => ((finished = true), n));
  const answer = await t.json("GET", "/v1/blacklist/check?provider=discord&id=9", { key });
  // The request was answered while the job was still between its slices.
  expect(answer.body.banned).toBe(true);
  expect(finished).toBe(false);
  expect(await run).toBe(1_500);

  const expired = await t.rows("SELECT entry_id, CAST(count(*) AS INTEGER) AS n FROM blacklist_changes WHERE type = 'expired' GROUP BY entry_id ORDER BY entry_id");
  expect(expired).toEqual([...due].sort().map((entry_id) => ({ entry_id, n: 1 })));
  expect(await t.rows("SELECT status, CAST(count(*) AS INTEGER) AS n FROM blacklist_entries GROUP BY status ORDER BY status")).toEqual([
    { status: "active", n: 1 },
    { status: "expired", n: 1_500 },
  ]);
  expect((await t.services.blacklist.get(kept.id))?.id).toBe(kept.id);
  expect((await t.services.creators.profile("lapsing")).blacklisted).toBe(false);
  expect(await job("expire-entries").run()).toBe(0);
});

test("the daily trust refresh and the usage prune give way to requests between slices", async () => {
  t = await createTestApp();
  const { key, keyId } = await t.account({ burst: 10_000 });
  for (let i = 0; i < 300; i++) await t.services.creators.upsert(`creator${i}`, { verification_level: 1 });
  for (let i = 0; i < 5_000; i += 500) {
    const rows = Array.from({ length: 500 }, (_, j) => `('${keyId}', '2026-01-01', 'GET /route-${i + j}', 1)`);
    await t.rows(`INSERT INTO usage_endpoints (key_id, day, endpoint, count) VALUES ${rows.join(", ")}`);
  }
  for (const [name, expected] of [["trust-snapshots", 300], ["prune-usage", 5_000]] as const) {
    let finished = false;
    const run = Promise.resolve(job(name).run()).then((n) => ((finished = true), n));
    expect((await t.call("GET", "/v1/blacklist/check?provider=roblox&id=5", { key })).status).toBe(200);
    expect(finished, name).toBe(false);
    expect(await run).toBe(expected);
  }
  expect((await t.rows("SELECT CAST(count(*) AS INTEGER) AS n FROM usage_endpoints"))[0].n).toBe(0);
});
