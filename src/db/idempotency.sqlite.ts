// The `idempotency_keys` table on SQLite (the contract: idempotency.ts).
import type { Database as SqliteConnection, Statement } from "bun:sqlite";
import type { Store } from "./client";
import type { Answer, IdempotencyStore, PendingKey, StoredAnswer } from "./idempotency";
import { columnsOf } from "./rows";
import { idempotencyKeys } from "./tables";

const ANSWER_FIELDS = ["fingerprint", "status", "contentType", "body"] as const satisfies readonly (keyof StoredAnswer)[];
const ANSWER_COLUMNS = columnsOf(idempotencyKeys, ANSWER_FIELDS);

export class SqliteIdempotencyStore implements IdempotencyStore {
  private readonly findRow: Statement<StoredAnswer, [string, string, number]>;
  private readonly upsert: Statement;
  private readonly pruneRows: Statement;
  readonly connection: SqliteConnection;

  constructor(
    private readonly store: Store,
    private readonly now: () => number,
    readonly keptMs: number,
  ) {
    const sqlite = (this.connection = store.sqlite);
    this.findRow = sqlite.prepare(`SELECT ${ANSWER_COLUMNS} FROM idempotency_keys WHERE account_id = ?1 AND key = ?2 AND created_at > ?3`);
    // A row is taken over only by the request that claimed it, or once it has expired.
    this.upsert = sqlite.prepare(
      `INSERT INTO idempotency_keys (account_id, key, fingerprint, claim, status, content_type, body, created_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
       ON CONFLICT (account_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, claim = excluded.claim,
         status = excluded.status, content_type = excluded.content_type, body = excluded.body, created_at = excluded.created_at
       WHERE idempotency_keys.claim = excluded.claim OR idempotency_keys.created_at <= ?9`,
    );
    this.pruneRows = sqlite.prepare(
      "DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM idempotency_keys WHERE created_at <= ?1 LIMIT ?2)",
    );
  }

  async find(accountId: string, key: string): Promise<StoredAnswer | null> {
    return this.findRow.get(accountId, key, this.now() - this.keptMs);
  }

  async save(pending: PendingKey, answer: Answer | null): Promise<boolean> {
    const now = this.now();
    const result = this.upsert.run(
      pending.accountId,
      pending.key,
      pending.fingerprint,
      pending.claim,
      answer?.status ?? null,
      answer?.contentType ?? null,
      answer?.body ?? null,
      now,
      now - this.keptMs,
    );
    return result.changes > 0;
  }

  async saveAnswer(pending: PendingKey, answer: Answer): Promise<void> {
    await this.store.write(() => this.save(pending, answer));
  }

  pruneSlice(limit: number): Promise<number> {
    return this.store.write(() => this.pruneRows.run(this.now() - this.keptMs, limit).changes);
  }
}
