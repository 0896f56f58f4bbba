// The sign-in tables, `login_links` and `sessions`: the contract every database implements, and
// the factory that picks one. Their SQL lives in store.sqlite.ts and store.postgres.ts only. Both
// tables hold SHA-256 hashes of the secrets, never the secrets, so a copy of the database signs no
// one in. Consuming a link is one conditional UPDATE, so two clicks on one link (or two instances
// answering them) cannot both get a session.
import type { Database } from "../../db/database";
import type { RowOf } from "../../db/rows";
import { PostgresSessionsStore } from "./store.postgres";
import { SqliteSessionsStore } from "./store.sqlite";
import type { sessions } from "./tables";

/** What a session's row tells: who, since when, until when. */
export type SessionRow = RowOf<typeof sessions, "creatorId" | "createdAt" | "expiresAt">;

export interface SessionsStore {
  insertLoginLink(tokenHash: string, creatorId: string, createdAt: number, expiresAt: number): Promise<void>;
  /**
   * Marks an unused, unexpired link used and answers its creator; null (changing nothing) when
   * the link is unknown, used or expired. Call inside a transaction with the session's insert.
   */
  consumeLoginLink(tokenHash: string, now: number): Promise<string | null>;
  insertSession(tokenHash: string, row: SessionRow): Promise<void>;
  /** A session that has not expired at `now`. */
  sessionByHash(tokenHash: string, now: number): Promise<SessionRow | null>;
  /** False when no such session was stored. */
  deleteSession(tokenHash: string): Promise<boolean>;
  /** Deletes expired sessions and links older than `now`, at most `limit` of each; answers how many. */
  pruneExpired(now: number, limit: number): Promise<number>;
  transaction<T>(fn: () => Promise<T>): Promise<T>;
}

export function createSessionsStore(database: Database): SessionsStore {
  return database.dialect === "sqlite" ? new SqliteSessionsStore(database) : new PostgresSessionsStore(database);
}
