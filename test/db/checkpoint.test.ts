// WAL checkpoints run on the checkpointer's own thread, never in a COMMIT of the serving
// connection, and the WAL stays bounded; `serve` (the compiled binary too) starts the checkpointer
// and stops it on SIGTERM.
import { afterAll, expect, test } from "bun:test";
import { readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { Checkpointer } from "../../src/db/checkpointer";
import { openStore, type Store } from "../../src/db/client";
import { startServer, trustlist, workspace } from "../cli-helpers";
import { describeSqliteOnly } from "../backend";
import { tempDir } from "../helpers";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * The WAL index header (the -shm file, native byte order): the WAL's last valid frame (mxFrame,
 * offset 16) and how far checkpoints have copied it into the database file (nBackfill, offset 96).
 */
function walProgress(db: string) {
  const shm = readFileSync(`${db}-shm`);
  return { lastFrame: shm.readUInt32LE(16), backfilled: shm.readUInt32LE(96) };
}

const walBytes = (store: Store) => statSync(`${store.path}-wal`).size;
const MB = 1024 * 1024;

/** `count` transactions of 64 rows of 8 KB each (half a megabyte), with a pause after each. */
async function writeMuch(store: Store, from: number, count: number, pauseMs: number) {
  const value = "x".repeat(8192);
  for (let i = from; i < from + count; i++) {
    await store.write(() => {
      for (let row = 0; row < 64; row++) store.sqlite.run("INSERT INTO meta (key, value) VALUES (?, ?)", [`fill-${i}-${row}`, value]);
    });
    await Bun.sleep(pauseMs);
  }
}

// SQLite's WAL checkpoints: PostgreSQL has no such thing to test.
describeSqliteOnly("checkpointer", () => {
  test("checkpoints on its own thread keep the WAL bounded; the serving connection never checkpoints", async () => {
    const dir = tempDir("trustlist-checkpoint-");
    dirs.push(dir);
    const store = openStore(join(dir, "t.db"));
    const checkpointer = new Checkpointer(store, { intervalMs: 10 });
    expect(await checkpointer.ready).toBe(true);
    expect(store.sqlite.query<{ wal_autocheckpoint: number }, []>("PRAGMA wal_autocheckpoint").get()!.wal_autocheckpoint).toBe(0);

    // 20 MB written; the WAL holds a few transactions at most.
    let largest = 0;
    for (let round = 0; round < 8; round++) {
      await writeMuch(store, round * 5, 5, 40);
      largest = Math.max(largest, walBytes(store));
    }
    expect(checkpointer.checkpoints).toBeGreaterThan(0);
    expect(largest).toBeLessThan(4 * MB);
    await checkpointer.stop();

    // Without the checkpointer nothing copies the WAL back: the same writes pile up in it.
    await writeMuch(store, 1000, 40, 0);
    expect(walBytes(store)).toBeGreaterThan(16 * MB);
    expect(store.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM meta WHERE key LIKE 'fill-%'").get()!.n).toBe(80 * 64);
    store.close();
  }, 30_000);

  test("once a burst is over, the checkpointer's thread cuts the WAL file back; the serving connection never does", async () => {
    const dir = tempDir("trustlist-checkpoint-");
    dirs.push(dir);
    const store = openStore(join(dir, "t.db"));
    // A burst that outran the checkpoints: 20 MB in the WAL, none of it copied back yet.
    store.sqlite.exec("PRAGMA wal_autocheckpoint = 0");
    await writeMuch(store, 0, 40, 0);
    expect(walBytes(store)).toBeGreaterThan(16 * MB);

    const checkpointer = new Checkpointer(store, { intervalMs: 10 });
    expect(await checkpointer.ready).toBe(true);
    // The serving connection keeps whatever size the WAL file has: cutting a large file back held
    // the request thread for 109 ms in a COMMIT. The thread cuts it once nothing was committed for 2 s.
    expect(store.sqlite.query<{ journal_size_limit: number }, []>("PRAGMA journal_size_limit").get()!.journal_size_limit).toBe(-1);
    const deadline = Date.now() + 15_000;
    // The worker's message saying so comes after the file is cut.
    while ((walBytes(store) > 16 * MB || checkpointer.truncations === 0) && Date.now() < deadline) await Bun.sleep(20);
    expect(walBytes(store)).toBeLessThanOrEqual(16 * MB);
    expect(checkpointer.truncations).toBeGreaterThan(0);
    expect(walProgress(store.path).lastFrame).toBe(0);

    // Writes go on after it, and nothing written before it is lost.
    await writeMuch(store, 40, 2, 0);
    const rows = store.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM meta WHERE key LIKE 'fill-%'").get()!.n;
    expect(rows).toBe(42 * 64);
    await checkpointer.stop();
    store.close();
    const reopened = openStore(join(dir, "t.db"));
    expect(reopened.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM meta WHERE key LIKE 'fill-%'").get()!.n).toBe(42 * 64);
    reopened.close();
  }, 30_000);

  test("a checkpointer that cannot open its database says so and stops cleanly", async () => {
    const dir = tempDir("trustlist-checkpoint-");
    dirs.push(dir);
    const store = openStore(join(dir, "t.db"));
    const errors: string[] = [];
    const checkpointer = new Checkpointer({ ...store, path: join(dir, "missing", "t.db") }, { onError: (message) => errors.push(message) });
    expect(await checkpointer.ready).toBe(false);
    expect(errors.join(" ")).toContain("unable to open");
    await checkpointer.stop();
    store.close();
  });

  test("the compiled binary's checkpointer copies the server's writes into the database file; SIGTERM exits 0", async () => {
    const { db } = workspace();
    const server = await startServer([trustlist()], db);
    const adminKey = server.stderr.match(/tl_live_\w{32}/)![0];
    const headers = { authorization: `Bearer ${adminKey}`, "content-type": "application/json" };
    for (let i = 0; i < 50; i++) {
      const r = await fetch(`${server.base}/v1/partner/blacklist`, {
        method: "POST",
        headers,
        body: JSON.stringify({ provider: "roblox", provider_user_id: String(7000 + i), severity: "ban", reason_code: "scam" }),
      });
      expect(r.status).toBe(201);
    }
    // The checkpointer copied the server's commits into the database file: the WAL index's
    // backfill mark reaches its last frame (the server's own connection never checkpoints).
    let progress = walProgress(db);
    for (let waited = 0; waited < 5_000 && !(progress.lastFrame > 0 && progress.backfilled === progress.lastFrame); waited += 50) {
      await Bun.sleep(50);
      progress = walProgress(db);
    }
    expect(progress.lastFrame).toBeGreaterThan(0);
    expect(progress.backfilled).toBe(progress.lastFrame);
    expect(await server.stop()).toBe(0);
    const log = await new Response(server.proc.stdout as ReadableStream).text();
    expect(log).toContain('"msg":"checkpointer ready"');
    expect(log).not.toContain("checkpointer failed");
    expect(log).toContain('"msg":"stopped"');
  }, 120_000);
});
