// Several `trustlist serve` processes on one PostgreSQL database are one service (SPEC section 10):
// what one instance writes, revokes or suspends, the other answers from the next request; a fleet
// job runs once; the daily quota is shared within the README's bound; a SIGKILL loses no write an
// instance acknowledged. Real processes on a real PostgreSQL database (skipped on SQLite, where
// one file has one server).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BUN, MAIN, type Server, startServer } from "./cli-helpers";
import { backend, databasesOfThisFile } from "./backend";

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
    a = await startServer([BUN, MAIN], location);
    admin = a.stderr.match(/tl_live_\w{32}/)![0];
    b = await startServer([BUN, MAIN], location, undefined, false);
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

  test("a fleet job run on both at once works through each due entry once", async () => {
    const writer = await newAccount({ scope: "write" });
    const due = 40;
    const expiresAt = new Date(Date.now() + 1_500).toISOString();
    for (let i = 0; i < due; i++) {
      const res = await call(a, "POST", "/v1/partner/blacklist", writer.key, {
        provider: "roblox",
        provider_user_id: String(900_000 + i),
        severity: "ban",
        reason_code: "scam_trade",
        expires_at: expiresAt,
      });
      expect(res.status).toBe(201);
    }
    await Bun.sleep(Math.max(0, Date.parse(expiresAt) - Date.now()) + 200);
    const runs = await Promise.all([a, b, a, b].map((server) => call(server, "POST", "/v1/admin/jobs/expire-entries", admin)));
    const worked = runs.filter((r) => r.status === 200).reduce((sum, r) => sum + r.body.worked, 0);
    // A run that found another instance at work answers 409; the others found nothing left.
    for (const run of runs) expect([200, 409]).toContain(run.status);
    expect(worked).toBe(due);
    const { database } = await databases.open(location);
    if (database.dialect !== "postgres") throw new Error("unreachable");
    const [row] = await database.sql()`SELECT count(*)::int AS n FROM blacklist_changes WHERE type = 'expired'`;
    expect(row.n).toBe(due);
  }, 20_000);

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
    // Once both have flushed, both refuse.
    await Bun.sleep(2_500);
    expect((await call(a, "GET", path, limited.key)).status).toBe(429);
    expect((await call(b, "GET", path, limited.key)).status).toBe(429);
  }, 30_000);

  test("an instance killed with SIGKILL loses no acknowledged write", async () => {
    const writer = await newAccount({ scope: "write" });
    const reader = await newAccount();
    const victim = await startServer([BUN, MAIN], location, undefined, false);
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
    await Bun.sleep(400);
    victim.proc.kill("SIGKILL");
    await victim.proc.exited;
    stop = true;
    await writing;
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const id of acknowledged) {
      expect((await call(b, "GET", `/v1/blacklist/check?provider=roblox&id=${id}`, reader.key)).body.banned, id).toBe(true);
    }
  }, 30_000);
});
