// The sign-in tables on PostgreSQL (the contract: store.ts).
import type { PostgresDatabase } from "../../db/postgres";
import { columnsOf, rowReader } from "../../db/rows";
import type { SessionRow, SessionsStore } from "./store";
import { sessions } from "./tables";

const SESSION_FIELDS = ["creatorId", "createdAt", "expiresAt"] as const;
const SESSION_COLUMNS = columnsOf(sessions, SESSION_FIELDS);
const readSession = rowReader(sessions, SESSION_FIELDS);

export class PostgresSessionsStore implements SessionsStore {
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
    const [row] = await this.sql.unsafe(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE token_hash = $1 AND expires_at > $2`, [tokenHash, now]);
    return row ? readSession(row) : null;
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
