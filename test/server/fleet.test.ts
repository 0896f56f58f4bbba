// Several `trustlist serve` processes on one PostgreSQL database are one service (docs/scaling.md):
// what one instance writes, revokes or suspends, the other answers from the next request; a fleet
// job runs once; the daily quota is shared within the README's bound; a SIGKILL loses no write an
// instance acknowledged. Real processes on a real PostgreSQL database (skipped on SQLite, where
// one file has one server). The fleet job is run by two instances in this process instead, whose
// scheduler is off: a `serve`'s own per-minute expiry tick could work the due entries first.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { iso, ManualClock } from "../../src/clock";
import { type Server, startServer, trustlist } from "../cli-helpers";
import { backend, databasesOfThisFile, dropDatabase, until } from "../backend";
import { createTestApp, partnerWriter, tempDir } from "../helpers";

/** The README's bound: an instance learns the others' calls within two metering flushes. */
const QUOTA_OVERSHOOT_PER_PEER_SECOND = 2;

const onPostgres = backend === "postgres" ? describe : describe.skip;

onPostgres("two instances on one PostgreSQL database", () => {
  const databases = databasesOfThisFile();
  let location: string;
  let a: Server;
  let b: Server;
  let admin: string;

  const call = async (server: Server, method: string, path: string, key: string | null, body?: unknown) => {
    const headers: Record<string, string> = { connection: "close" };
    if (key) headers.authorization = `Bearer ${key}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${server.base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };

  const newAccount = async (options: { scope?: string; daily_quota?: number } = {}) => {
    const account = await call(a, "POST", "/v1/admin/accounts", admin, { name: `acct-${crypto.randomUUID().slice(0, 8)}`, tier: "pro", daily_quota: options.daily_quota ?? 1_000_000 });
    expect(account.status).toBe(201);
    const key = await call(a, "POST", `/v1/admin/accounts/${account.body.id}/keys`, admin, { scope: options.scope ?? "read", rate_tier: "partner", burst: 100_000 });
    expect(key.status).toBe(201);
    return { accountId: account.body.id as string, keyId: key.body.id as string, key: key.body.key as string };
  };

  beforeAll(async () => {
    location = await databases.location();
    a = await startServer([trustlist()], location);
    admin = a.stderr.match(/tl_live_\w{32}/)![0];
    b = await startServer([trustlist()], location, undefined, false);
  }, 30_000);

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  test("a write through A is seen by a check on B from the next request", async () => {
    const writer = await newAccount({ scope: "write" });
    const reader = await newAccount();
    const id = "200000000000000001";
    expect((await call(b, "GET", `/v1/blacklist/check?provider=discord&id=${id}`, reader.key)).body.banned).toBe(false);
    const added = await call(a, "POST", "/v1/partner/blacklist", writer.key, { provider: "discord", provider_user_id: id, severity: "ban", reason_code: "scam_trade" });
    expect(added.status).toBe(201);
    const seen = await call(b, "GET", `/v1/blacklist/check?provider=discord&id=${id}`, reader.key);
    expect(seen.body).toMatchObject({ banned: true, severity: "ban" });
    // And the overturn, the other way round.
    expect((await call(b, "POST", `/v1/partner/blacklist/${added.body.id}/overturn`, writer.key, { reason: "appeal won" })).status).toBe(200);
    expect((await call(a, "GET", `/v1/blacklist/check?provider=discord&id=${id}`, reader.key)).body.banned).toBe(false);
  });

  test("a key revoked through A is refused by B on the next request; a suspended account likewise", async () => {
    const reader = await newAccount();
    const path = "/v1/blacklist/check?provider=discord&id=200000000000000002";
    expect((await call(b, "GET", path, reader.key)).status).toBe(200);
    expect((await call(a, "DELETE", `/v1/admin/keys/${reader.keyId}`, admin)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await call(b, "GET", path, reader.key)).status).toBe(401);

    const other = await newAccount();
    expect((await call(b, "GET", path, other.key)).status).toBe(200);
    expect((await call(a, "PATCH", `/v1/admin/accounts/${other.accountId}`, admin, { status: "suspended" })).status).toBe(200);
    expect((await call(b, "GET", path, other.key)).status).toBe(402);
  });

  test("the daily quota is shared by the fleet within the stated bound", async () => {
    const quota = 100;
    const limited = await newAccount({ daily_quota: quota });
    const path = "/v1/blacklist/check?provider=discord&id=200000000000000003";
    let admitted = 0;
    const started = Date.now();
    for (let i = 0; i < 200; i++) {
      const res = await call(i % 2 ? a : b, "GET", path, limited.key);
      if (res.status === 200) admitted++;
      else expect(res.status).toBe(429);
    }
    const seconds = Math.ceil((Date.now() - started) / 1000);
    expect(admitted).toBeGreaterThanOrEqual(quota);
    // Each instance can admit, unseen by the other, what it admits between two metering flushes.
    expect(admitted).toBeLessThanOrEqual(quota + Math.ceil((200 / seconds) * QUOTA_OVERSHOOT_PER_PEER_SECOND));
    // Once both have flushed (each second, later on a busy machine), both refuse.
    expect(await until(async () => (await call(a, "GET", path, limited.key)).status === 429 && (await call(b, "GET", path, limited.key)).status === 429, 15_000)).toBe(true);
  }, 45_000);

  test("an instance killed with SIGKILL loses no acknowledged write", async () => {
    const writer = await newAccount({ scope: "write" });
    const reader = await newAccount();
    const victim = await startServer([trustlist()], location, undefined, false);
    const acknowledged: string[] = [];
    let stop = false;
    const writing = (async () => {
      for (let i = 0; !stop && i < 500; i++) {
        const id = String(700_000 + i);
        try {
          const res = await call(victim, "POST", "/v1/partner/blacklist", writer.key, { provider: "roblox", provider_user_id: id, severity: "ban", reason_code: "scam_trade" });
          if (res.status === 201) acknowledged.push(id);
        } catch {
          return; // the connection died with the process
        }
      }
    })();
    // Killed in the middle of the writes, once some were acknowledged.
    expect(await until(() => acknowledged.length >= 5, 15_000)).toBe(true);
    victim.proc.kill("SIGKILL");
    await victim.proc.exited;
    stop = true;
    await writing;
    expect(acknowledged.length).toBeGreaterThanOrEqual(5);
    for (const id of acknowledged) {
      expect((await call(b, "GET", `/v1/blacklist/check?provider=roblox&id=${id}`, reader.key)).body.banned, id).toBe(true);
    }
  }, 30_000);
});

onPostgres("two instances in this process on one PostgreSQL database, jobs run only when asked", () => {
  test("a fleet job run on both at once works through each due entry once", async () => {
    // One clock for both: the entries fall due when the test says, not while it is writing them.
    const clock = new ManualClock();
    const dir = tempDir();
    const a = await createTestApp({ clock, dir, http: true });
    const b = await createTestApp({ clock, dir, http: true });
    try {
      const { key: admin } = await a.account({ scope: "admin", tier: "enterprise", burst: 100_000 });
      const write = await partnerWriter(a);
      const due = 40;
      for (let i = 0; i < due; i++) {
        await write("POST", "/v1/partner/blacklist", {
          provider: "roblox",
          provider_user_id: String(900_000 + i),
          severity: "ban",
          reason_code: "scam_trade",
          expires_at: iso(clock.now() + 60_000),
        });
      }
      // And one that is not due: no run may touch it.
      await write("POST", "/v1/partner/blacklist", { provider: "roblox", provider_user_id: "900999", severity: "ban", reason_code: "scam_trade", expires_at: iso(clock.now() + 3_600_000) });
      clock.advance(120_000);
      const expired = async () => (await a.rows<{ n: number }>("SELECT CAST(count(*) AS INTEGER) AS n FROM blacklist_changes WHERE type = 'expired'"))[0]!.n;
      expect(await expired()).toBe(0); // nothing ran on its own

      const runs = await Promise.all([a, b, a, b].map((instance) => instance.json("POST", "/v1/admin/jobs/expire-entries", { key: admin })));
      // A run that found the job under way (here or on the other instance) answers 409; the
      // others worked through what was left.
      for (const run of runs) expect([200, 409]).toContain(run.status);
      const worked = runs.filter((run) => run.status === 200).reduce((sum, run) => sum + run.body.worked, 0);
      expect(worked).toBe(due);
      expect(await expired()).toBe(due);
      expect((await b.json("POST", "/v1/admin/jobs/expire-entries", { key: admin })).body.worked).toBe(0);
      const [still] = await a.rows<{ status: string }>("SELECT status FROM blacklist_entries WHERE provider_user_id = ?", "900999");
      expect(still!.status).toBe("active");
    } finally {
      await a.close();
      await b.close();
      await dropDatabase(a.dbPath);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
