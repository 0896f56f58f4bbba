// A request's reads in one read transaction (`readTogether`, db/write.ts): on SQLite they see one
// snapshot, a write made meanwhile (by the same request or another) still commits at once, and
// the connection is never left inside a transaction, whatever `fn` does. On PostgreSQL it runs
// `fn`. A real SQLite file, with a second connection standing in for another process.
import { afterEach, expect, test } from "bun:test";
import { Database as SqliteConnection } from "bun:sqlite";
import { join } from "node:path";
import { type Store, openStore } from "../../src/db/client";
import type { Database } from "../../src/db/database";
import { DatabaseBusy } from "../../src/db/errors";
import { dropDatabase, freshDatabase, sqliteOnly } from "../backend";
import { tempDir } from "../helpers";

let store: Store | undefined;
let other: SqliteConnection | undefined;
let database: { database: Database; location: string } | undefined;
afterEach(async () => {
  other?.close();
  store?.close();
  other = store = undefined;
  if (database) {
    await database.database.close();
    await dropDatabase(database.location);
    database = undefined;
  }
});

/** A migrated SQLite file, its store (as the server opens it) and a second connection to it. */
function open(): { store: Store; other: SqliteConnection } {
  const path = join(tempDir(), "read-together.db");
  store = openStore(path);
  store.neverBlockOnLocks({ writeWaitMs: 0 });
  other = new SqliteConnection(path);
  other.exec("PRAGMA busy_timeout = 0");
  return { store, other };
}

const countOf = (store: Store) => store.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM meta WHERE key LIKE 'rt_%'").get()!.n;
const insertBy = (connection: SqliteConnection, key: string) => connection.run("INSERT INTO meta (key, value) VALUES (?, 'x')", [key]);
const visibleTo = (connection: SqliteConnection, key: string) => connection.query("SELECT 1 FROM meta WHERE key = ?").get(key) !== null;

/** A group that reads the count, waits until `release`, then reads it again: it answers both counts. */
function pausedGroup(store: Store): { group: Promise<number[]>; release: () => void } {
  let release!: () => void;
  const paused = new Promise<void>((resolve) => (release = resolve));
  const group = store.readTogether(async () => {
    const first = countOf(store);
    await paused;
    return [first, countOf(store)];
  });
  return { group, release };
}

sqliteOnly("the reads inside see one snapshot; the next read after sees what another connection committed meanwhile", async () => {
  const { store, other } = open();
  const seen = await store.readTogether(() => {
    const before = countOf(store);
    insertBy(other, "rt_1");
    return [before, countOf(store)];
  });
  expect(seen).toEqual([0, 0]);
  expect(countOf(store)).toBe(1);
  expect(store.sqlite.inTransaction).toBe(false);
  // Without the group each read is a snapshot of its own: the same steps see the row at once.
  const before = countOf(store);
  insertBy(other, "rt_2");
  expect([before, countOf(store)]).toEqual([1, 2]);
});

sqliteOnly("a write inside the group commits when it ends, not when the group does; later reads see it", async () => {
  const { store, other } = open();
  await store.readTogether(async () => {
    expect(countOf(store)).toBe(0);
    expect(store.writing()).toBe(false);
    await store.write(() => {
      expect(store.writing()).toBe(true);
      insertBy(store.sqlite, "rt_inside");
    });
    expect(visibleTo(other, "rt_inside")).toBe(true);
    expect(store.sqlite.inTransaction).toBe(false);
    expect(countOf(store)).toBe(1);
  });
  expect(store.sqlite.inTransaction).toBe(false);
  // The connection can write again, and another connection can take the lock.
  await store.write(() => insertBy(store.sqlite, "rt_after"));
  other.exec("BEGIN IMMEDIATE");
  other.exec("ROLLBACK");
});

sqliteOnly("another request's write while the group waits commits at once, and the group still ends cleanly", async () => {
  const { store, other } = open();
  const { group, release } = pausedGroup(store);
  expect(store.sqlite.inTransaction).toBe(true);
  await store.write(() => insertBy(store.sqlite, "rt_other_request"));
  expect(visibleTo(other, "rt_other_request")).toBe(true);
  release();
  expect(await group).toEqual([0, 1]);
  expect(store.sqlite.inTransaction).toBe(false);
});

sqliteOnly("a group still waiting when the next turn's first request comes is ended there: that request sees every commit", async () => {
  const { store, other } = open();
  const { group, release } = pausedGroup(store);
  insertBy(other, "rt_next_turn");
  // The same turn: the group's snapshot still answers.
  expect(countOf(store)).toBe(0);
  await new Promise((resolve) => setTimeout(resolve, 5));
  // A request in a later turn reads data_version first (src/http, the fast paths).
  expect(store.changes.checkAtRequest()).toBe(true);
  expect(store.sqlite.inTransaction).toBe(false);
  expect(countOf(store)).toBe(1);
  release();
  expect(await group).toEqual([0, 1]);
  expect(store.sqlite.inTransaction).toBe(false);
});

sqliteOnly("a group that throws ends its transaction and passes the error on", async () => {
  const { store, other } = open();
  const failure = store.readTogether(() => {
    countOf(store);
    throw new Error("the reader failed");
  });
  await expect(failure).rejects.toThrow("the reader failed");
  expect(store.sqlite.inTransaction).toBe(false);
  // A read transaction left open would keep this commit from the store's next read.
  insertBy(other, "rt_after_failure");
  expect(countOf(store)).toBe(1);
});

sqliteOnly("inside a write, or inside another group, `fn` just runs in the transaction that is open", async () => {
  const { store, other } = open();
  await store.write(async () => {
    insertBy(store.sqlite, "rt_uncommitted");
    const seen = await store.readTogether(() => countOf(store));
    expect(seen).toBe(1);
    expect(store.writing()).toBe(true);
  });
  expect(visibleTo(other, "rt_uncommitted")).toBe(true);
  const nested = await store.readTogether(async () => {
    const inner = await store.readTogether(() => countOf(store));
    // The inner group did not end the outer one: still one snapshot.
    insertBy(other, "rt_nested");
    return [inner, countOf(store), store.sqlite.inTransaction];
  });
  expect(nested).toEqual([1, 1, true]);
  expect(store.sqlite.inTransaction).toBe(false);
  expect(countOf(store)).toBe(2);
});

sqliteOnly("while another process holds the write lock, a group reads; a write inside it fails busy and leaves no transaction open", async () => {
  const { store, other } = open();
  other.exec("BEGIN IMMEDIATE");
  insertBy(other, "rt_pending");
  const outcome = await store.readTogether(async () => {
    const seen = countOf(store);
    const write = await store.write(() => insertBy(store.sqlite, "rt_refused")).catch((error: unknown) => error);
    return { seen, write };
  });
  expect(outcome.seen).toBe(0);
  expect(outcome.write).toBeInstanceOf(DatabaseBusy);
  expect(store.sqlite.inTransaction).toBe(false);
  other.exec("COMMIT");
  expect(countOf(store)).toBe(1);
});

test("on either database a group answers `fn`'s value, and its failure", async () => {
  database = await freshDatabase(tempDir());
  const db = database.database;
  expect(await db.readTogether(() => 42)).toBe(42);
  expect(await db.readTogether(async () => "later")).toBe("later");
  await expect(db.readTogether(() => Promise.reject(new Error("no")))).rejects.toThrow("no");
  // The database still answers and writes after a failed group.
  await db.ping();
  expect(await db.write(async () => "written")).toBe("written");
});
