// The sign-in tables, `login_links` and `sessions`, on SQLite or PostgreSQL: the only place their
// SQL lives. Both hold SHA-256 hashes of the secrets, never the secrets, so a copy of the database
// signs no one in. Consuming a link is one conditional UPDATE, so two clicks on one link (or two
// instances answering them) cannot both get a session.
import type { Database } from "../../db/database";
import type { PostgresDatabase } from "../../db/postgres";

export interface SessionRow {
  creatorId: string;
  createdAt: number;
  expiresAt: number;
}

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

type SqliteStore = Extract<Database, { dialect: "sqlite" }>;

class SqliteSessionsStore implements SessionsStore {
  private readonly statements;

  constructor(private readonly store: SqliteStore) {
    const db = store.sqlite;
    this.statements = {
      insertLink: db.prepare("INSERT INTO login_links (token_hash, creator_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)"),
      consumeLink: db.prepare<{ creator_id: string }, [string, number]>(
        "UPDATE login_links SET used_at = ?2 WHERE token_hash = ?1 AND used_at IS NULL AND expires_at > ?2 RETURNING creator_id",
      ),
      insertSession: db.prepare("INSERT INTO sessions (token_hash, creator_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)"),
      sessionByHash: db.prepare<{ creator_id: string; created_at: number; expires_at: number }, [string, number]>(
        "SELECT creator_id, created_at, expires_at FROM sessions WHERE token_hash = ?1 AND expires_at > ?2",
      ),
      deleteSession: db.prepare("DELETE FROM sessions WHERE token_hash = ?"),
      pruneSessions: db.prepare("DELETE FROM sessions WHERE token_hash IN (SELECT token_hash FROM sessions WHERE expires_at <= ?1 LIMIT ?2)"),
      pruneLinks: db.prepare("DELETE FROM login_links WHERE token_hash IN (SELECT token_hash FROM login_links WHERE expires_at <= ?1 LIMIT ?2)"),
    };
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.store.write(fn);
  }

  async insertLoginLink(tokenHash: string, creatorId: string, createdAt: number, expiresAt: number): Promise<void> {
    await this.store.write(() => void this.statements.insertLink.run(tokenHash, creatorId, createdAt, expiresAt));
  }

  async consumeLoginLink(tokenHash: string, now: number): Promise<string | null> {
    return this.statements.consumeLink.get(tokenHash, now)?.creator_id ?? null;
  }

  async insertSession(tokenHash: string, row: SessionRow): Promise<void> {
    this.statements.insertSession.run(tokenHash, row.creatorId, row.createdAt, row.expiresAt);
  }

  async sessionByHash(tokenHash: string, now: number): Promise<SessionRow | null> {
    const row = this.statements.sessionByHash.get(tokenHash, now);
    return row ? { creatorId: row.creator_id, createdAt: row.created_at, expiresAt: row.expires_at } : null;
  }

  async deleteSession(tokenHash: string): Promise<boolean> {
    return this.store.write(() => this.statements.deleteSession.run(tokenHash).changes > 0);
  }

  async pruneExpired(now: number, limit: number): Promise<number> {
    return this.store.write(() => this.statements.pruneSessions.run(now, limit).changes + this.statements.pruneLinks.run(now, limit).changes);
  }
}

class PostgresSessionsStore implements SessionsStore {
  constructor(private readonly database: PostgresDatabase) {}

  private get sql() {
    return this.database.sql();
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.database.write(fn);
  }

  async insertLoginLink(tokenHash: string, creatorId: string, createdAt: number, expiresAt: number): Promise<void> {
    await this.database.write(
      () => this.sql`INSERT INTO login_links (token_hash, creator_id, created_at, expires_at) VALUES (${tokenHash}, ${creatorId}, ${createdAt}, ${expiresAt})`,
    );
  }

  async consumeLoginLink(tokenHash: string, now: number): Promise<string | null> {
    const [row] = await this.sql`
      UPDATE login_links SET used_at = ${now}
      WHERE token_hash = ${tokenHash} AND used_at IS NULL AND expires_at > ${now} RETURNING creator_id`;
    return row ? (row.creator_id as string) : null;
  }

  async insertSession(tokenHash: string, row: SessionRow): Promise<void> {
    await this.sql`INSERT INTO sessions (token_hash, creator_id, created_at, expires_at) VALUES (${tokenHash}, ${row.creatorId}, ${row.createdAt}, ${row.expiresAt})`;
  }

  async sessionByHash(tokenHash: string, now: number): Promise<SessionRow | null> {
    const [row] = await this.sql`SELECT creator_id, created_at, expires_at FROM sessions WHERE token_hash = ${tokenHash} AND expires_at > ${now}`;
    return row ? { creatorId: row.creator_id, createdAt: Number(row.created_at), expiresAt: Number(row.expires_at) } : null;
  }

  async deleteSession(tokenHash: string): Promise<boolean> {
    const result = await this.database.write(() => this.sql`DELETE FROM sessions WHERE token_hash = ${tokenHash}`);
    return Number(result.count ?? 0) > 0;
  }

  async pruneExpired(now: number, limit: number): Promise<number> {
    return this.database.write(async () => {
      const sessions = await this.sql`
        DELETE FROM sessions WHERE token_hash IN (SELECT token_hash FROM sessions WHERE expires_at <= ${now} LIMIT ${limit})`;
      const links = await this.sql`
        DELETE FROM login_links WHERE token_hash IN (SELECT token_hash FROM login_links WHERE expires_at <= ${now} LIMIT ${limit})`;
      return Number(sessions.count ?? 0) + Number(links.count ?? 0);
    });
  }
}
