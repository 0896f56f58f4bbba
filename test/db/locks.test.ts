// Another process holding the write lock (a CLI import is one long transaction) must not stall
// the server: reads and keyed checks keep answering, a write waits without blocking and answers
// 503 `busy` when the lock outlasts its wait, and the metering counts made meanwhile all land.
// Real processes on real SQLite files: a child holds the lock until the test releases it.
import { afterEach, expect } from "bun:test";
import { Database } from "bun:sqlite";
import type { Store } from "../../src/db/client";
import { join } from "node:path";
import { startServer, trustlist } from "../cli-helpers";
import { sqliteOnly } from "../backend";
import { createTestApp, expectEnvelope, tempDir, type TestApp } from "../helpers";

/** A child process that takes the write lock (with a pending write of its own) and holds it until `release`. */
async function holdWriteLock(dbPath: string) {
  const script = `
    const { Database } = require("bun:sqlite");
    const db = new Database(process.env.LOCK_DB);
    db.exec("BEGIN IMMEDIATE");
    db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('lock_holder', 'held')");
    console.log("locked");
    for await (const _ of Bun.stdin.stream()) break;
    db.exec("COMMIT");
    console.log("released");`;
  const proc = Bun.spawn([process.execPath, "-e", script], { env: { ...process.env, LOCK_DB: dbPath }, stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const lines = proc.stdout.getReader();
  const nextLine = async () => new TextDecoder().decode((await lines.read()).value).trim();
  expect(await nextLine()).toBe("locked");
  return {
    /** True while no other connection can begin a write: asked without waiting. */
    stillHeld() {
      const probe = new Database(dbPath);
      probe.exec("PRAGMA busy_timeout = 0");
      try {
        probe.exec("BEGIN IMMEDIATE");
        probe.exec("ROLLBACK");
        return false;
      } catch (error) {
        if ((error as { code?: string }).code === "SQLITE_BUSY") return true;
        throw error;
      } finally {
        probe.close();
      }
    },
    async release() {
      proc.stdin.write("go\n");
      proc.stdin.end();
      expect(await nextLine()).toBe("released");
      expect(await proc.exited).toBe(0);
    },
    kill: () => proc.kill(),
  };
}

let t: TestApp | undefined;
let holder: Awaited<ReturnType<typeof holdWriteLock>> | undefined;
afterEach(() => {
  holder?.kill();
  holder = undefined;
  t?.close();
  t = undefined;
});

sqliteOnly("while another process holds the lock: reads answer, a write is 503 busy with Retry-After and changes nothing", async () => {
  t = await createTestApp();
  // The 5 s default shortened so the test does not wait it out; the behaviour is the same.
  (t.runtime.store as Store).neverBlockOnLocks({ writeWaitMs: 300 });
  const reader = await t.account({ burst: 10_000 });
  const partner = await t.account({ scope: "write", burst: 10_000 });
  holder = await holdWriteLock(t.dbPath);

  expect((await t.json("GET", "/healthz")).status).toBe(200);
  for (let i = 0; i < 5; i++) {
    const check = await t.json("GET", `/v1/blacklist/check?provider=discord&id=${700 + i}`, { key: reader.key });
    expect(check.status).toBe(200);
    expect(check.body.banned).toBe(false);
  }
  const entry = { provider: "discord", provider_user_id: "777", severity: "ban", reason_code: "scam" };
  const refused = await t.json("POST", "/v1/partner/blacklist", { key: partner.key, body: entry });
  expectEnvelope(refused, 503, "busy");
  expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  // The flush of the counts made meanwhile is put off, not lost.
  expect(await t.runtime.meter.flush()).toBe(0);
  expect(holder.stillHeld()).toBe(true);

  await holder.release();
  const after = await t.json("GET", "/v1/blacklist/check?provider=discord&id=777", { key: reader.key });
  expect(after.body.banned).toBe(false);
  expect(t.sqlite.query("SELECT count(*) AS n FROM blacklist_entries").get()).toEqual({ n: 0 });
  // The lock holder's own write is there: the server waited for it instead of breaking it.
  expect(t.sqlite.query("SELECT value FROM meta WHERE key = 'lock_holder'").get()).toEqual({ value: "held" });

  // Once the lock is gone the same write goes through, and every metered call is persisted.
  expect((await t.json("POST", "/v1/partner/blacklist", { key: partner.key, body: entry })).status).toBe(201);
  expect(await t.runtime.meter.flush()).toBeGreaterThan(0);
  const persisted = t.sqlite
    .query<{ n: number }, [string]>("SELECT sum(count) AS n FROM usage_endpoints WHERE key_id = ? AND endpoint = 'GET /v1/blacklist/check'")
    .get(reader.keyId);
  expect(persisted).toEqual({ n: 6 });
});

sqliteOnly("a write that meets the lock waits without blocking and commits once the lock is released", async () => {
  t = await createTestApp();
  const partner = await t.account({ scope: "write", burst: 10_000 });
  holder = await holdWriteLock(t.dbPath);
  const entry = { provider: "discord", provider_user_id: "778", severity: "ban", reason_code: "scam" };
  const pending = t.json("POST", "/v1/partner/blacklist", { key: partner.key, body: entry });
  // Served while the write waits: the event loop is free.
  expect((await t.json("GET", "/healthz")).status).toBe(200);
  expect(holder.stillHeld()).toBe(true);
  await holder.release();
  const created = await pending;
  expect(created.status).toBe(201);
  const check = await t.json("GET", "/v1/blacklist/check?provider=discord&id=778", { key: (await t.account({ burst: 10 })).key });
  expect(check.body).toMatchObject({ banned: true, entry: { id: created.body.id } });
});

sqliteOnly("a live server keeps answering health and keyed checks while a lock outlasts several metering flushes, and loses no count", async () => {
  const dir = tempDir("trustlist-locks-");
  const db = join(dir, "t.db");
  const server = await startServer([trustlist()], db);
  try {
    const adminKey = server.stderr.match(/tl_live_\w{32}/)![0];
    const auth = { authorization: `Bearer ${adminKey}` };
    const check = async (id: number) => {
      const res = await fetch(`${server.base}/v1/blacklist/check?provider=discord&id=${id}`, { headers: auth });
      expect(res.status).toBe(200);
    };
    const deferredFlushes = async () => {
      const text = await (await fetch(`${server.base}/metrics`, { headers: auth })).text();
      return Number(text.match(/^trustlist_metering_deferred_flushes (\d+)$/m)![1]);
    };
    await check(1);
    holder = await holdWriteLock(db);
    let calls = 1;
    // Until two flushes have met the lock (each tick tries once), keep calling: every call answers.
    while ((await deferredFlushes()) < 2) {
      calls++; // the /metrics call itself is metered
      await check(1000 + calls);
      calls++;
      expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
      await Bun.sleep(50);
    }
    calls++;
    expect(holder.stillHeld()).toBe(true);
    await holder.release();
    holder = undefined;
    // Within a flush tick of the release every call made is persisted, none twice.
    const sqlite = new Database(db, { readonly: true });
    const persisted = () => (sqlite.query("SELECT coalesce(sum(count), 0) AS n FROM usage_daily").get() as { n: number }).n;
    const deadline = Date.now() + 10_000;
    while (persisted() < calls && Date.now() < deadline) await Bun.sleep(100);
    expect(persisted()).toBe(calls);
    sqlite.close();
  } finally {
    expect(await server.stop()).toBe(0);
  }
}, 30_000);

sqliteOnly("a CLI write that outlasts the lock's 5 s wait exits 1 naming the lock, and changes nothing", async () => {
  t = await createTestApp();
  const { key, keyId } = await t.account();
  holder = await holdWriteLock(t.dbPath);
  const revoke = Bun.spawnSync([trustlist(), "keys", "revoke", keyId, "--db", t.dbPath], { stdout: "pipe", stderr: "pipe" });
  expect(holder.stillHeld()).toBe(true);
  await holder.release();
  expect(revoke.exitCode).toBe(1);
  expect(revoke.stderr.toString()).toContain("locked");
  expect((await t.json("GET", "/v1/blacklist/check?provider=discord&id=1", { key })).status).toBe(200);
}, 20_000);
