// The `meta` table on PostgreSQL (the contract: meta-store.ts).
import type { MetaStore } from "./meta-store";
import type { PostgresDatabase } from "./postgres";

export function postgresMetaStore(database: PostgresDatabase): MetaStore {
  return {
    async value(key) {
      const [row] = await database.sql()`SELECT value FROM meta WHERE key = ${key}`;
      return row ? (row.value as string) : null;
    },
    async valueOrMake(key, make) {
      await database.sql()`INSERT INTO meta (key, value) VALUES (${key}, ${make()}) ON CONFLICT (key) DO NOTHING`;
      const [row] = await database.sql()`SELECT value FROM meta WHERE key = ${key}`;
      return row.value as string;
    },
  };
}
