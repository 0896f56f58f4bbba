// Reads through SQLite's memory map (src/db/pragmas.ts, MAPPED_BYTES): the serving connection sees
// what another process commits, after the file grows past what was mapped when it last read, after
// a checkpoint copies the WAL into the file, after the WAL is cut back, and after a warm-up hands the
// map back (`releaseCachedPages`). A real SQLite file, a second connection standing in for the other
// process.
import { afterEach, expect } from "bun:test";
import { Database as SqliteConnection } from "bun:sqlite";
import { join } from "node:path";
import { type Store, openStore } from "../../src/db/client";
import { MAPPED_BYTES, releaseCachedPages } from "../../src/db/pragmas";
import { sqliteOnly } from "../backend";
import { tempDir } from "../helpers";

let store: Store | undefined;
let other: SqliteConnection | undefined;
afterEach(() => {
  other?.close();
  store?.close();
  other = store = undefined;
});

const keysOf = (store: Store, prefix: string) =>
  store.sqlite.query<{ key: string; value: string }, [string]>("SELECT key, value FROM meta WHERE key LIKE ? ORDER BY key").all(`${prefix}%`);

sqliteOnly("the serving connection reads through the memory map and sees another process's commits as the file grows and is checkpointed", () => {
  const path = join(tempDir(), "mapped.db");
  store = openStore(path);
  expect(store.sqlite.query<{ mmap_size: number }, []>("PRAGMA mmap_size").get()!.mmap_size).toBe(MAPPED_BYTES);
  other = new SqliteConnection(path);
  other.exec("PRAGMA busy_timeout = 1000");
  const pageSize = store.sqlite.query<{ page_size: number }, []>("PRAGMA page_size").get()!.page_size;
  const pages = () => other!.query<{ page_count: number }, []>("PRAGMA page_count").get()!.page_count;
  // Every frame copied into the file and the WAL emptied, so what follows is read from the file.
  const checkpointWhole = () => expect(other!.query("PRAGMA wal_checkpoint(TRUNCATE)").get()).toEqual({ busy: 0, log: 0, checkpointed: 0 });

  // Read once, so the map covers the file as it is now.
  expect(keysOf(store, "mapped_")).toEqual([]);
  const before = pages();
  // Rows of 2 KiB: the file grows by several hundred pages, into the file itself once checkpointed.
  const value = (i: number) => `${i}:`.padEnd(2048, "x");
  const insert = other.prepare("INSERT INTO meta (key, value) VALUES (?, ?)");
  other.transaction(() => {
    for (let i = 0; i < 500; i++) insert.run(`mapped_${String(i).padStart(4, "0")}`, value(i));
  })();
  // Still in the WAL: read from there.
  let seen = keysOf(store, "mapped_");
  expect(seen).toHaveLength(500);
  expect(seen[499]).toEqual({ key: "mapped_0499", value: value(499) });
  // Copied into the file and the WAL cut back: read from the map, past the old end of the file.
  checkpointWhole();
  expect(pages()).toBeGreaterThan(before + 250);
  seen = keysOf(store, "mapped_");
  expect(seen).toHaveLength(500);
  expect(seen.map((row) => row.value)).toEqual(Array.from({ length: 500 }, (_, i) => value(i)));
  expect(pages() * pageSize).toBeLessThan(MAPPED_BYTES);

  // Rows changed and deleted by the other process, checkpointed again: the map shows the new pages.
  other.run("UPDATE meta SET value = 'changed' WHERE key = 'mapped_0007'");
  other.run("DELETE FROM meta WHERE key >= 'mapped_0400' AND key LIKE 'mapped_%'");
  checkpointWhole();
  seen = keysOf(store, "mapped_");
  expect(seen).toHaveLength(400);
  expect(seen[7]).toEqual({ key: "mapped_0007", value: "changed" });

  // What a warm-up hands back: the file unmapped and mapped again, read through the new map.
  releaseCachedPages(store.sqlite);
  expect(store.sqlite.query<{ mmap_size: number }, []>("PRAGMA mmap_size").get()!.mmap_size).toBe(MAPPED_BYTES);
  other.run("UPDATE meta SET value = 'after release' WHERE key = 'mapped_0008'");
  checkpointWhole();
  seen = keysOf(store, "mapped_");
  expect(seen).toHaveLength(400);
  expect(seen[8]).toEqual({ key: "mapped_0008", value: "after release" });
});
