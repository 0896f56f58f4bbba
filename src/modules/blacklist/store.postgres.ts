// The blacklist's tables on PostgreSQL (the contract: store.ts). Every statement goes through
// `database.sql()`, so it joins the caller's transaction.
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
const HIT_COLUMNS = columnsOf(blacklistEntries, HIT_FIELDS);
const readEntry = rowReader(blacklistEntries);
const readHit = rowReader(blacklistEntries, HIT_FIELDS);
const readChangeFields = rowReader(blacklistChanges, CHANGE_FIELDS);
const readChange = (raw: Record<string, unknown>) => readChangeFields(readEntry(raw)) as ChangeRow;

/**
 * The columns an entry is inserted with and their types: a page of entries goes as one JSON
 * parameter read by json_to_recordset. (Array parameters over unnest cost the client a quoted
 * literal per column, Bun's quoteElement about 1 s per 100k entries; COPY ... FROM STDIN, tried
 * next, holds the connection until each COPY ends, so an import's windows took turns with the
 * server instead of being pipelined behind one another: 300k entries of the bench data set 12.5-13.6 s
 * by COPY, 9.6 s this way, 2-core machine, Nov 2026.)
 */
const ENTRY_INSERT_COLUMNS = {
  id: "text",
  provider: "text",
  provider_user_id: "text",
  username: "text",
  severity: "text",
  scope: "text",
  vertical: "text",
  reason_code: "text",
  summary: "text",
  issued_at: "bigint",
  expires_at: "bigint",
  appealable: "boolean",
  high_risk: "boolean",
  watchlist: "boolean",
  creator_handle: "text",
  evidence: "text",
  reporter: "text",
  status: "text",
  overturned_at: "bigint",
  created_at: "bigint",
  supersedes: "text",
  source: "text",
  upstream_id: "text",
} as const;
const ENTRY_INSERT_NAMES = Object.keys(ENTRY_INSERT_COLUMNS).join(", ");
const ENTRY_RECORD = Object.entries(ENTRY_INSERT_COLUMNS)
  .map(([column, type]) => `${column} ${type}`)
  .join(", ");

function entryRecord(r: EntryRow): Record<keyof typeof ENTRY_INSERT_COLUMNS, unknown> {
  return {
    id: r.id,
    provider: r.provider,
    provider_user_id: r.providerUserId,
    username: r.username,
    severity: r.severity,
    scope: r.scope,
    vertical: r.vertical,
    reason_code: r.reasonCode,
    summary: r.summary,
    issued_at: r.issuedAt,
    expires_at: r.expiresAt,
    appealable: !!r.appealable,
    high_risk: !!r.highRisk,
    watchlist: !!r.watchlist,
    creator_handle: r.creatorHandle,
    evidence: r.evidence,
    reporter: r.reporter,
    status: r.status,
    overturned_at: r.overturnedAt,
    created_at: r.createdAt,
    supersedes: r.supersedes,
    source: r.source,
    upstream_id: r.upstreamId,
  };
}

export class PostgresBlacklistStore implements BlacklistStore {
  constructor(private readonly database: PostgresDatabase) {}

  private get sql() {
    return this.database.sql();
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.database.write(fn);
  }

  async subjectRows(subjects: SubjectKey[]): Promise<HitRow[][]> {
    const bySubject = subjects.map((): HitRow[] => []);
    if (subjects.length === 0) return bySubject;
    // The subjects go as one JSON parameter (see ENTRY_INSERT_COLUMNS), each row naming its place.
    const rows = await this.sql.unsafe(
      `SELECT s.ordinality::int AS "subjectAt", ${HIT_COLUMNS}
       FROM ROWS FROM (json_to_recordset($1::text::json) AS (p text, u text)) WITH ORDINALITY AS s
       JOIN blacklist_entries ON provider = s.p AND provider_user_id = s.u AND status = 'active'`,
      [JSON.stringify(subjects.map(([p, u]) => ({ p, u })))],
    );
    for (const raw of rows) {
      const at = raw.subjectAt as number;
      delete raw.subjectAt;
      bySubject[at - 1]!.push(readHit(raw));
    }
    return bySubject;
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
    // One statement per page of rows: a round trip per entry was most of a PostgreSQL follower's sync.
    await translatingConflicts(() =>
      this.sql.unsafe(
        `INSERT INTO blacklist_entries (${ENTRY_INSERT_NAMES})
         SELECT ${ENTRY_INSERT_NAMES}
         FROM ROWS FROM (json_to_recordset($1::text::json) AS (${ENTRY_RECORD})) WITH ORDINALITY AS r
         ORDER BY ordinality`,
        [JSON.stringify(rows.map(entryRecord))],
      ),
    );
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
    await this.sql.unsafe(
      `INSERT INTO blacklist_changes (type, entry_id, at)
       SELECT 'added', id, at FROM ROWS FROM (json_to_recordset($1::text::json) AS (id text, at bigint)) WITH ORDINALITY AS r
       ORDER BY ordinality`,
      [JSON.stringify(rows.map((row) => ({ id: row.id, at: row.createdAt })))],
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
