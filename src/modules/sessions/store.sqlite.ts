// The sign-in tables on SQLite (the contract: store.ts).
import type { Store } from "../../db/client";
import { columnsOf } from "../../db/rows";
import type { SessionRow, SessionsStore } from "./store";
import { sessions } from "./tables";

const SESSION_COLUMNS = columnsOf(sessions, ["creatorId", "createdAt", "expiresAt"]);

export class SqliteSessionsStore implements SessionsStore {
  private readonly statements;

  constructor(private readonly store: Store) {
    const db = store.sqlite;
    this.statements = {
      insertLink: db.prepare("INSERT INTO login_links (token_hash, creator_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)"),
      consumeLink: db.prepare<{ creatorId: string }, [string, number]>(
        `UPDATE login_links SET used_at = ?2 WHERE token_hash = ?1 AND used_at IS NULL AND expires_at > ?2 RETURNING ${columnsOf(sessions, ["creatorId"])}`,
      ),
      insertSession: db.prepare("INSERT INTO sessions (token_hash, creator_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)"),
      sessionByHash: db.prepare<SessionRow, [string, number]>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE token_hash = ?1 AND expires_at > ?2`),
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
    return this.statements.consumeLink.get(tokenHash, now)?.creatorId ?? null;
  }

  async insertSession(tokenHash: string, row: SessionRow): Promise<void> {
    this.statements.insertSession.run(tokenHash, row.creatorId, row.createdAt, row.expiresAt);
  }

  async sessionByHash(tokenHash: string, now: number): Promise<SessionRow | null> {
    return this.statements.sessionByHash.get(tokenHash, now);
  }

  async deleteSession(tokenHash: string): Promise<boolean> {
    return this.store.write(() => this.statements.deleteSession.run(tokenHash).changes > 0);
  }

  async pruneExpired(now: number, limit: number): Promise<number> {
    return this.store.write(() => this.statements.pruneSessions.run(now, limit).changes + this.statements.pruneLinks.run(now, limit).changes);
  }
}
