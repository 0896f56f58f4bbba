// The `meta` table on SQLite (the contract: meta-store.ts).
import type { Store } from "./client";
import type { MetaStore } from "./meta-store";

export function sqliteMetaStore(store: Store): MetaStore {
  const sqlite = store.sqlite;
  const read = (key: string) => sqlite.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(key)?.value;
  return {
    value: async (key) => read(key) ?? null,
    async valueOrMake(key, make) {
      const existing = read(key);
      if (existing !== undefined) return existing;
      sqlite.run("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", [key, make()]);
      return read(key)!;
    },
  };
}
