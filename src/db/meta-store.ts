// The `meta` table: server-wide values that must survive restarts, made once and then kept (the
// paging cursors' signing secret). Several processes or instances may start together: the first
// insert wins and everyone reads the winner's value.
import type { Database } from "./database";

export interface MetaStore {
  /** The value under `key`, or null (`creators_version` is kept by triggers on both databases). */
  value(key: string): Promise<string | null>;
  /** The value under `key`, made by `make` and stored if there is none yet. */
  valueOrMake(key: string, make: () => string): Promise<string>;
}

export function createMetaStore(database: Database): MetaStore {
  if (database.dialect === "sqlite") {
    const sqlite = database.sqlite;
    return {
      value: async (key) => sqlite.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(key)?.value ?? null,
      valueOrMake: async (key, make) => sqliteValueOrMake(sqlite, key, make),
    };
  }
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

function sqliteValueOrMake(sqlite: Extract<Database, { dialect: "sqlite" }>["sqlite"], key: string, make: () => string): string {
  const read = () => sqlite.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(key)?.value;
  const existing = read();
  if (existing !== undefined) return existing;
  sqlite.run("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", [key, make()]);
  return read()!;
}

/** A new random secret for HMAC signing, base64url. */
export function newSecret(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}
