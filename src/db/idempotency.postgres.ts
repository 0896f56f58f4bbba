// The `idempotency_keys` table on PostgreSQL (the contract: idempotency.ts).
import type { Answer, IdempotencyStore, PendingKey, StoredAnswer } from "./idempotency";
import type { PostgresDatabase } from "./postgres";
import { columnsOf, rowReader } from "./rows";
import { idempotencyKeys } from "./tables";

const ANSWER_FIELDS = ["fingerprint", "status", "contentType", "body"] as const satisfies readonly (keyof StoredAnswer)[];
const ANSWER_COLUMNS = columnsOf(idempotencyKeys, ANSWER_FIELDS);
const readAnswer = rowReader(idempotencyKeys, ANSWER_FIELDS);

export class PostgresIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly database: PostgresDatabase,
    private readonly now: () => number,
    readonly keptMs: number,
  ) {}

  get connection(): object {
    return this.database;
  }

  async find(accountId: string, key: string): Promise<StoredAnswer | null> {
    const [row] = await this.database
      .sql()
      .unsafe(`SELECT ${ANSWER_COLUMNS} FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND created_at > $3`, [
        accountId,
        key,
        this.now() - this.keptMs,
      ]);
    return row ? readAnswer(row) : null;
  }

  async save(pending: PendingKey, answer: Answer | null): Promise<boolean> {
    const now = this.now();
    // A row is taken over only by the request that claimed it, or once it has expired.
    const rows = await this.database.sql()`INSERT INTO idempotency_keys (account_id, key, fingerprint, claim, status, content_type, body, created_at)
      VALUES (${pending.accountId}, ${pending.key}, ${pending.fingerprint}, ${pending.claim}, ${answer?.status ?? null},
              ${answer?.contentType ?? null}, ${answer?.body ?? null}, ${now})
      ON CONFLICT (account_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, claim = excluded.claim,
        status = excluded.status, content_type = excluded.content_type, body = excluded.body, created_at = excluded.created_at
      WHERE idempotency_keys.claim = excluded.claim OR idempotency_keys.created_at <= ${now - this.keptMs}
      RETURNING 1`;
    return rows.length > 0;
  }

  async saveAnswer(pending: PendingKey, answer: Answer): Promise<void> {
    // No instance caches anything of this table: nothing to announce.
    await this.database.write(() => this.save(pending, answer), { announce: false });
  }

  pruneSlice(limit: number): Promise<number> {
    return this.database.write(async () => {
      const rows = await this.database.sql()`DELETE FROM idempotency_keys WHERE ctid IN
        (SELECT ctid FROM idempotency_keys WHERE created_at <= ${this.now() - this.keptMs} LIMIT ${limit}) RETURNING 1`;
      return rows.length as number;
    }, { announce: false });
  }
}
