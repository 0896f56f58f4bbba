// The `meta` table: server-wide values that must survive restarts, made once and then kept (the
// paging cursors' signing secret). Several processes or instances may start together: the first
// insert wins and everyone reads the winner's value. The contract and its factory; one
// implementation per database (meta-store.sqlite.ts, meta-store.postgres.ts).
import type { Database } from "./database";
import { postgresMetaStore } from "./meta-store.postgres";
import { sqliteMetaStore } from "./meta-store.sqlite";

export interface MetaStore {
  /** The value under `key`, or null (`creators_version` is kept by triggers on both databases). */
  value(key: string): Promise<string | null>;
  /** The value under `key`, made by `make` and stored if there is none yet. */
  valueOrMake(key: string, make: () => string): Promise<string>;
}

export function createMetaStore(database: Database): MetaStore {
  return database.dialect === "sqlite" ? sqliteMetaStore(database) : postgresMetaStore(database);
}

/** A new random secret for HMAC signing, base64url. */
export function newSecret(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}
