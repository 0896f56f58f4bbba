// The blacklist's tables on PostgreSQL (the contract: store.ts). Every statement goes through
// `database.sql()`, so it joins the caller's transaction.
import { type CopyValue, copyRows } from "../../db/copy.postgres";
import { translatingConflicts } from "../../db/errors";
import type { PostgresDatabase } from "../../db/postgres";
import { columnsOf, rowReader } from "../../db/rows";
import type { ChangeType, Provider, Vertical } from "../../domain";
import type { BlacklistStore, ChangeRow, EntryRow, HitRow, SubjectKey, SubjectName } from "./store";
import { HIT_FIELDS, SUBJECT_FIELDS, SUBJECTS_NOTE } from "./store.shared";
import { blacklistChanges, blacklistEntries } from "./tables";

const CHANGE_FIELDS = ["seq", "type", "entryId", "at"] as const;
const ENTRY_COLUMNS = columnsOf(blacklistEntries);
const SUBJECT_COLUMNS = columnsOf(blacklistEntries, SUBJECT_FIELDS);
const readEntry = rowReader(blacklistEntries);
const readHit = rowReader(blacklistEntries, HIT_FIELDS);
const readChangeFields = rowReader(blacklistChanges, CHANGE_FIELDS);
const readChange = (raw: Record<string, unknown>) => readChangeFields(readEntry(raw)) as ChangeRow;

/**
 * From this many rows an insert of entries (or of their feed rows) is one COPY instead of an
 * INSERT over unnest: the client no longer quotes 23 array literals a window (about 1 s of CPU in
 * a profile of an import of 100k entries of the bench data set, 2-core machine, Nov 2026).
 */
const COPY_FROM_ROWS = 50;

/** The columns an entry is inserted with, in the order of `entryCopyRow`. */
const ENTRY_COPY_COLUMNS = [
  "id", "provider", "provider_user_id", "username", "severity", "scope", "vertical", "reason_code", "summary",
  "issued_at", "expires_at", "appealable", "high_risk", "watchlist", "creator_handle", "evidence", "reporter",
  "status", "overturned_at", "created_at", "supersedes", "source", "upstream_id",
] as const;

function entryCopyRow(r: EntryRow): CopyValue[] {
  return [
    r.id, r.provider, r.providerUserId, r.username, r.severity, r.scope, r.vertical, r.reasonCode, r.summary,
    r.issuedAt, r.expiresAt, !!r.appealable, !!r.highRisk, !!r.watchlist, r.creatorHandle, r.evidence, r.reporter,
    r.status, r.overturnedAt, r.createdAt, r.supersedes, r.source, r.upstreamId,
  ];
}

export class PostgresBlacklistStore implements BlacklistStore {
  constructor(private readonly database: PostgresDatabase) {}

  private get sql() {
    return this.database.sql();
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.database.write(fn);
  }

  async subjectRows(provider: Provider, id: string): Promise<HitRow[]> {
    const rows = await this.sql.unsafe(
      `SELECT ${columnsOf(blacklistEntries, HIT_FIELDS)}
       FROM blacklist_entries WHERE provider = $1 AND provider_user_id = $2 AND status = 'active'`,
      [provider, id],
    );
    return rows.map(readHit);
  }

  async page(afterTime: number, afterId: string, now: number, vertical: Vertical, limit: number) {
    const rows = await this.sql.unsafe(
      `SELECT ${ENTRY_COLUMNS} FROM blacklist_entries
       WHERE status = 'active' AND NOT watchlist AND (issued_at, id) > ($1::bigint, $2::text)
         AND (expires_at IS NULL OR expires_at > $3::bigint)
         AND ($4::text = 'all' OR scope = 'global' OR vertical = $4::text)
       ORDER BY issued_at, id LIMIT $5`,
      [afterTime, afterId, now, vertical, limit],
    );
    return rows.map(readEntry);
  }

  async byId(id: string) {
    const [row] = await this.sql.unsafe(`SELECT ${ENTRY_COLUMNS} FROM blacklist_entries WHERE id = $1`, [id]);
    return row ? readEntry(row) : null;
  }

  async lockById(id: string) {
    const [row] = await this.sql.unsafe(`SELECT ${ENTRY_COLUMNS} FROM blacklist_entries WHERE id = $1 FOR UPDATE`, [id]);
    return row ? readEntry(row) : null;
  }

  async entriesOf(subject: { provider: Provider; providerUserId: string } | { creatorHandle: string }) {
    const rows =
      "creatorHandle" in subject
        ? await this.sql.unsafe(`SELECT ${ENTRY_COLUMNS} FROM blacklist_entries WHERE creator_handle = $1 ORDER BY issued_at, id`, [subject.creatorHandle])
        : await this.sql.unsafe(`SELECT ${ENTRY_COLUMNS} FROM blacklist_entries WHERE provider = $1 AND provider_user_id = $2 ORDER BY issued_at, id`, [
            subject.provider,
            subject.providerUserId,
          ]);
    return [...rows].map(readEntry);
  }

  async changesAfter(seq: number, limit: number): Promise<ChangeRow[]> {
    const rows = await this.sql.unsafe(
      `SELECT ${columnsOf(blacklistChanges, CHANGE_FIELDS, "c")}, ${columnsOf(blacklistEntries, undefined, "e")}
       FROM blacklist_changes c JOIN blacklist_entries e ON e.id = c.entry_id
       WHERE c.seq > $1::bigint AND NOT e.watchlist ORDER BY c.seq LIMIT $2`,
      [seq, limit],
    );
    return rows.map(readChange);
  }

  async originChangesAfter(seq: number, limit: number): Promise<ChangeRow[]> {
    const rows = await this.sql.unsafe(
      `SELECT ${columnsOf(blacklistChanges, CHANGE_FIELDS, "c")}, ${columnsOf(blacklistEntries, undefined, "e")}
       FROM blacklist_changes c JOIN blacklist_entries e ON e.id = c.entry_id
       WHERE c.seq > $1::bigint AND e.source IS NULL ORDER BY c.seq LIMIT $2`,
      [seq, limit],
    );
    return rows.map(readChange);
  }

  async heldFrom(source: string, upstreamId: string) {
    const [row] = await this.sql.unsafe(
      `SELECT ${ENTRY_COLUMNS} FROM blacklist_entries WHERE source = $1 AND upstream_id = $2 AND status = 'active' LIMIT 1`,
      [source, upstreamId],
    );
    return row ? readEntry(row) : null;
  }

  async heldUpstreamIds(source: string, upstreamIds: string[]) {
    if (upstreamIds.length === 0) return new Set<string>();
    const rows = await this.sql.unsafe(
      "SELECT upstream_id AS id FROM blacklist_entries WHERE source = $1 AND upstream_id = ANY($2::text[]) AND status = 'active'",
      [source, upstreamIds],
    );
    return new Set<string>(rows.map((row: { id: string }) => row.id));
  }

  async heldPage(source: string, afterUpstreamId: string, limit: number) {
    const rows = await this.sql.unsafe(
      `SELECT ${ENTRY_COLUMNS} FROM blacklist_entries
       WHERE source = $1 AND upstream_id > $2 AND status = 'active' ORDER BY upstream_id LIMIT $3`,
      [source, afterUpstreamId, limit],
    );
    return [...rows].map(readEntry);
  }

  async heldOfSubject(provider: Provider, id: string) {
    const rows = await this.sql.unsafe(
      `SELECT ${ENTRY_COLUMNS} FROM blacklist_entries WHERE provider = $1 AND provider_user_id = $2 AND status = 'active' AND source IS NOT NULL`,
      [provider, id],
    );
    return [...rows].map(readEntry);
  }

  async heldCount(source: string) {
    const [row] = await this.sql`SELECT count(*)::int AS n FROM blacklist_entries WHERE source = ${source} AND status = 'active'`;
    return row.n as number;
  }

  async markExpiredNow(id: string) {
    await this.sql`UPDATE blacklist_entries SET status = 'expired' WHERE id = ${id}`;
  }

  async insertEntry(row: EntryRow) {
    await this.insertEntries([row]);
  }

  async insertEntries(rows: EntryRow[]) {
    if (rows.length === 0) return;
    if (rows.length >= COPY_FROM_ROWS) {
      await translatingConflicts(() => copyRows(this.sql, "blacklist_entries", ENTRY_COPY_COLUMNS, rows.map(entryCopyRow)));
    } else {
      // One statement per page of rows: a round trip per entry was most of a PostgreSQL follower's sync.
      const column = <T>(pick: (row: EntryRow) => T) => rows.map(pick);
      await translatingConflicts(() =>
        this.sql.unsafe(
          `INSERT INTO blacklist_entries (${ENTRY_COPY_COLUMNS.join(", ")})
           SELECT ${ENTRY_COPY_COLUMNS.join(", ")}
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
             $9::text[], $10::bigint[], $11::bigint[], $12::boolean[], $13::boolean[], $14::boolean[], $15::text[],
             $16::text[], $17::text[], $18::text[], $19::bigint[], $20::bigint[], $21::text[], $22::text[], $23::text[])
             WITH ORDINALITY AS r(${ENTRY_COPY_COLUMNS.join(", ")}, n)
           ORDER BY n`,
          ENTRY_COPY_COLUMNS.map((_, i) => column((r) => entryCopyRow(r)[i])),
        ),
      );
    }
    // Other instances add the subject to their filters from the commit's notification instead of
    // reading the table again (every insert of an active row must note it: see PostgresDatabase.note).
    for (const row of rows) if (row.status === "active") this.database.note(SUBJECTS_NOTE, [row.provider, row.providerUserId]);
  }

  async storedIds(ids: string[]) {
    if (ids.length === 0) return new Set<string>();
    const rows = await this.sql`SELECT id FROM blacklist_entries WHERE id = ANY(${this.sql.array(ids, "TEXT")})`;
    return new Set<string>(rows.map((row: { id: string }) => row.id));
  }

  async insertChange(type: ChangeType, entryId: string, at: number) {
    await this.sql`INSERT INTO blacklist_changes (type, entry_id, at) VALUES (${type}, ${entryId}, ${at})`;
  }

  async insertAddedChanges(rows: EntryRow[]) {
    if (rows.length === 0) return;
    if (rows.length >= COPY_FROM_ROWS) {
      await copyRows(this.sql, "blacklist_changes", ["type", "entry_id", "at"], rows.map((row) => ["added", row.id, row.createdAt]));
      return;
    }
    await this.sql.unsafe(
      `INSERT INTO blacklist_changes (type, entry_id, at)
       SELECT 'added', entry_id, at FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS r(entry_id, at, n) ORDER BY n`,
      [rows.map((row) => row.id), rows.map((row) => row.createdAt)],
    );
  }

  async markOverturned(id: string, at: number, reason: string | null) {
    await this.sql`
      UPDATE blacklist_entries SET status = 'overturned', overturned_at = ${at}, overturn_reason = ${reason} WHERE id = ${id}`;
  }

  /** SKIP LOCKED: two instances running the job at once expire (and feed) each row once. */
  async expireDue(now: number, limit: number) {
    const rows = await this.sql.unsafe(
      `UPDATE blacklist_entries SET status = 'expired'
       WHERE id IN (
         SELECT id FROM blacklist_entries
         WHERE status = 'active' AND expires_at IS NOT NULL AND expires_at <= $1::bigint
         LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING ${ENTRY_COLUMNS}`,
      [now, limit],
    );
    return rows.map((row: Record<string, unknown>) => ({ ...readEntry(row), status: "active" as const }));
  }

  async subjectsAfter(after: SubjectKey, limit: number) {
    const rows = await this.sql`
      SELECT provider, provider_user_id FROM blacklist_entries
      WHERE (provider, provider_user_id) > (${after[0]}::text, ${after[1]}::text) AND status = 'active'
      ORDER BY provider, provider_user_id LIMIT ${limit}`;
    return (rows as Array<{ provider: string; provider_user_id: string }>).map((row): SubjectKey => [row.provider, row.provider_user_id]);
  }

  async lastPosition() {
    return null;
  }

  async rowsAfter() {
    return null;
  }

  async countListed(now: number): Promise<number> {
    const [row] = await this.sql`
      SELECT count(*)::int AS n FROM blacklist_entries
      WHERE status = 'active' AND NOT watchlist AND (expires_at IS NULL OR expires_at > ${now})`;
    return row.n as number;
  }

  async subjectsByUsername(lowerUsername: string, now: number, limit: number): Promise<SubjectName[]> {
    return this.sql.unsafe(
      `SELECT DISTINCT ${SUBJECT_COLUMNS} FROM blacklist_entries
       WHERE lower(username) = $1 AND username IS NOT NULL AND status = 'active' AND (expires_at IS NULL OR expires_at > $2::bigint)
       LIMIT $3`,
      [lowerUsername, now, limit],
    );
  }

  async subjectName(provider: string, id: string, now: number): Promise<SubjectName | null> {
    const [row] = await this.sql.unsafe(
      `SELECT ${SUBJECT_COLUMNS} FROM blacklist_entries
       WHERE provider = $1 AND provider_user_id = $2 AND status = 'active' AND (expires_at IS NULL OR expires_at > $3::bigint)
       ORDER BY username IS NULL, issued_at DESC LIMIT 1`,
      [provider, id, now],
    );
    return (row as SubjectName | undefined) ?? null;
  }
}
