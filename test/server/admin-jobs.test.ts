// POST /v1/admin/jobs/{name}: an operator runs a periodic job now and gets what it did; a second
// run of the same job while one is under way is refused, whoever started the first.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { createTestApp, expectEnvelope, type TestApp } from "../helpers";

let t: TestApp;
let admin: string;
beforeEach(async () => {
  t = await createTestApp();
  admin = (await t.account({ tier: "enterprise", scope: "admin", burst: 10_000, dailyQuota: 1_000_000 })).key;
});
afterEach(() => t.close());

/** `count` entries that lapse at 11:00 on the test clock's day. */
async function entriesLapsingAt11(count: number) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const row = await t.services.blacklist.add(
      { provider: "discord", provider_user_id: String(5000 + i), severity: "ban", reason_code: "scam", expires_at: "2026-11-21T11:00:00Z" },
      { kind: "cli", id: "test" },
    );
    ids.push(row.id);
  }
  return ids;
}

test("happy: the expiry job runs now and answers what it worked through", async () => {
  await entriesLapsingAt11(3);
  t.clock.set("2026-11-21T11:00:01Z");
  const res = await t.json("POST", "/v1/admin/jobs/expire-entries", { key: admin });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    job: "expire-entries",
    worked: 3,
    started_at: "2026-11-21T11:00:01.000Z",
    finished_at: "2026-11-21T11:00:01.000Z",
    duration_ms: expect.any(Number),
  });
  const statuses = await t.rows("SELECT DISTINCT status FROM blacklist_entries");
  expect(statuses).toEqual([{ status: "expired" }]);
  // Nothing left to do: a second run works through nothing.
  expect((await t.json("POST", "/v1/admin/jobs/expire-entries", { key: admin })).body.worked).toBe(0);
});

test("happy: every job can be run by name; jobs that count nothing answer worked null", async () => {
  for (const name of ["prune-usage", "trust-snapshots", "public-stats", "suggestion-index-stats", "prune-limiters", "flush-metering"]) {
    const res = await t.json("POST", `/v1/admin/jobs/${name}`, { key: admin });
    expect(res.status, name).toBe(200);
    expect(res.body.job).toBe(name);
  }
  expect((await t.json("POST", "/v1/admin/jobs/public-stats", { key: admin })).body.worked).toBeNull();
  expect((await t.json("POST", "/v1/admin/jobs/prune-usage", { key: admin })).body.worked).toBe(0);
});

test("error: an unknown job is 404 naming the jobs there are", async () => {
  const res = await t.json("POST", "/v1/admin/jobs/vacuum", { key: admin });
  expectEnvelope(res, 404, "not_found");
  expect(res.body.error.message).toContain("expire-entries");
});

test("error: a second run of a job while the first is under way is 409, and the first finishes exactly", async () => {
  const ids = await entriesLapsingAt11(1_200);
  t.clock.set("2026-11-21T11:00:01Z");
  const first = t.json("POST", "/v1/admin/jobs/expire-entries", { key: admin });
  // Once its first slice has committed, the first run is between two slices: a second one would
  // walk the same due rows. (PostgreSQL reaches the job a few round trips later than SQLite.)
  const expiredSoFar = async () => (await t.rows<{ n: number }>("SELECT CAST(count(*) AS INTEGER) AS n FROM blacklist_changes WHERE type = 'expired'"))[0]!.n;
  while ((await expiredSoFar()) === 0) await Bun.sleep(1);
  const second = await t.json("POST", "/v1/admin/jobs/expire-entries", { key: admin });
  expectEnvelope(second, 409, "conflict");
  expect(second.body.error.message).toContain("expire-entries");
  // Another job is not held up by it.
  expect((await t.json("POST", "/v1/admin/jobs/public-stats", { key: admin })).status).toBe(200);
  expect((await first).body.worked).toBe(1_200);
  const expired = (await t.rows<{ entry_id: string }>("SELECT entry_id FROM blacklist_changes WHERE type = 'expired' ORDER BY entry_id")).map((r) => r.entry_id);
  expect(expired).toEqual([...ids].sort());
  // Once it is done, the job can run again.
  expect((await t.json("POST", "/v1/admin/jobs/expire-entries", { key: admin })).status).toBe(200);
});

test("security: no key is 401, a read or write key is 403, and nothing runs", async () => {
  await entriesLapsingAt11(2);
  t.clock.set("2026-11-21T11:00:01Z");
  expectEnvelope(await t.json("POST", "/v1/admin/jobs/expire-entries"), 401, "unauthorized");
  expectEnvelope(await t.json("POST", "/v1/admin/jobs/expire-entries", { key: "tl_live_" + "x".repeat(32) }), 401, "unauthorized");
  for (const scope of ["read", "write"] as const) {
    const { key } = await t.account({ tier: "enterprise", scope, burst: 10_000 });
    expectEnvelope(await t.json("POST", "/v1/admin/jobs/expire-entries", { key }), 403, "forbidden");
    expectEnvelope(await t.json("POST", "/v1/admin/jobs/vacuum", { key }), 403, "forbidden");
  }
  const [active] = await t.rows("SELECT CAST(count(*) AS INTEGER) AS n FROM blacklist_entries WHERE status = 'active'");
  expect(active).toEqual({ n: 2 });
});

test("happy: over HTTP, a run that outlasts the server's idle timeout still gets its answer", async () => {
  // A server that closes a connection idle for 1 s (Bun closes it at its next 4 s tick), and a run
  // held for 6 s: without the route lifting the timeout, the connection was reset (ECONNRESET).
  const server = t.app.listen({ port: 0, hostname: "127.0.0.1", reusePort: false, idleTimeout: 1 }).server!;
  const refreshStats = t.services.public.refreshStats.bind(t.services.public);
  t.services.public.refreshStats = async () => {
    await Bun.sleep(6_000);
    return refreshStats();
  };
  try {
    const res = await fetch(`http://127.0.0.1:${server.port}/v1/admin/jobs/public-stats`, { method: "POST", headers: { authorization: `Bearer ${admin}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { job: string; duration_ms: number };
    expect(body.job).toBe("public-stats");
    expect(body.duration_ms).toBeGreaterThanOrEqual(6_000);
  } finally {
    await server.stop(true);
  }
});
