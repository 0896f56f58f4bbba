// The blacklist's tables on SQLite (the contract: store.ts). Prepared statements throughout; the
// check's read and the import's bulk writes are also offered without a promise (`sync`).
import type { Database as SqliteDatabase, Statement } from "bun:sqlite";
import type { Store } from "../../db/client";
import { countInSlices } from "../../db/count-slices";
import { asUniqueViolation, translatingConflicts } from "../../db/errors";
import { columnsOf, type RowOf, rowReader } from "../../db/rows";
import type { ChangeType, Provider, Vertical } from "../../domain";
import type { BlacklistStore, BlacklistSyncStore, ChangeRow, EntryRow, HitRow, StoredSubject, SubjectKey, SubjectName } from "./store";
import { HIT_FIELDS, SUBJECT_FIELDS } from "./store.shared";
import { blacklistChanges, blacklistEntries } from "./tables";

/** A subject's row as `subjectName` chooses among them. */
type NamedSubjectRow = RowOf<typeof blacklistEntries, "provider" | "providerUserId" | "username" | "issuedAt">;

/** An entry's insert on SQLite, bound by `insertEntryWith`: the table's and an `EntriesFile`'s. */
export const INSERT_ENTRY = `INSERT INTO blacklist_entries (id, provider, provider_user_id, username, severity, scope, vertical,
    reason_code, summary, issued_at, expires_at, appealable, high_risk, watchlist, creator_handle, evidence, reporter,
    status, overturned_at, created_at, supersedes, source, upstream_id)
  VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23)`;

export function insertEntryWith(statement: Statement, row: EntryRow): void {
  statement.run(
    row.id,
    row.provider,
    row.providerUserId,
    row.username,
    row.severity,
    row.scope,
    row.vertical,
    row.reasonCode,
    row.summary,
    row.issuedAt,
    row.expiresAt,
    row.appealable,
    row.highRisk,
    row.watchlist,
    row.creatorHandle,
    row.evidence,
    row.reporter,
    row.status,
    row.overturnedAt,
    row.createdAt,
    row.supersedes,
    row.source,
    row.upstreamId,
  );
}

/** What an `EntriesFile` is called while the import's connection has it attached. */
const ENTRIES_APART = "entries_apart";

const ENTRY_COLUMNS = columnsOf(blacklistEntries);
/** SQLite hands flags back as 0/1: the rows a check does not read are given their booleans. */
const readEntry = rowReader(blacklistEntries);
const readChange = (raw: Record<string, unknown>) => readEntry(raw) as ChangeRow;

/**
 * `originChangesAfter` on any connection to the file: the signed feed reads its pages on a thread
 * of their own (federation/crypto-worker.ts), with a read-only connection there.
 */
export function originChangesOn(sqlite: SqliteDatabase, seq: number, limit: number): ChangeRow[] {
  return sqlite
    .query<Record<string, unknown>, [number, number]>(
      `SELECT ${columnsOf(blacklistChanges, ["seq", "type", "entryId", "at"], "c")}, ${columnsOf(blacklistEntries, undefined, "e")}
       FROM blacklist_changes c JOIN blacklist_entries e ON e.id = c.entry_id
       WHERE c.seq > ?1 AND e.source IS NULL ORDER BY c.seq LIMIT ?2`,
    )
    .all(seq, limit)
    .map(readChange);
}

export class SqliteBlacklistStore implements BlacklistStore, BlacklistSyncStore {
  readonly sync: BlacklistSyncStore = this;
  private readonly sqlite: SqliteDatabase;
  private readonly subjectStatement: Statement<HitRow, [string, string]>;
  private readonly pageRows: Statement<Record<string, unknown>, [number, string, number, string, number]>;
  private readonly byIdRow: Statement<Record<string, unknown>, [string]>;
  private readonly changeRows: Statement<Record<string, unknown>, [number, number]>;
  private readonly insertEntryRow: Statement;
  private readonly insertChangeRow: Statement;
  private readonly markOverturnedRow: Statement;
  private readonly dueForExpiry: Statement<Record<string, unknown>, [number, number]>;
  private readonly markExpired: Statement;
  private readonly subjectsAfterRows: Statement<SubjectKey, [string, string, number]>;
  private readonly rowsAfterRows: Statement<StoredSubject, [number, number]>;
  private readonly maxRowid: Statement<{ n: number | null }, []>;
  private readonly subjectsByUsernameRows: Statement<SubjectName, [string, number]>;
  private readonly subjectNameRows: Statement<NamedSubjectRow, [string, string, number]>;

  constructor(private readonly store: Store) {
    const db = (this.sqlite = store.sqlite);
    // The check's hot path: its flags stay 0/1 (HitRow), no per-row mapping.
    this.subjectStatement = db.prepare(
      `SELECT ${columnsOf(blacklistEntries, HIT_FIELDS)}
       FROM blacklist_entries WHERE provider = ?1 AND provider_user_id = ?2 AND status = 'active'`,
    );
    this.pageRows = db.prepare(
      `SELECT ${ENTRY_COLUMNS} FROM blacklist_entries INDEXED BY blacklist_list_idx
       WHERE status = 'active' AND watchlist = 0 AND (issued_at, id) > (?1, ?2)
         AND (expires_at IS NULL OR expires_at > ?3)
         AND (?4 = 'all' OR scope = 'global' OR vertical = ?4)
       ORDER BY issued_at, id LIMIT ?5`,
    );
    this.byIdRow = db.prepare(`SELECT ${ENTRY_COLUMNS} FROM blacklist_entries WHERE id = ?`);
    this.changeRows = db.prepare(
      `SELECT ${columnsOf(blacklistChanges, ["seq", "type", "entryId", "at"], "c")}, ${columnsOf(blacklistEntries, undefined, "e")}
       FROM blacklist_changes c JOIN blacklist_entries e ON e.id = c.entry_id
       WHERE c.seq > ?1 AND e.watchlist = 0 ORDER BY c.seq LIMIT ?2`,
    );
    this.insertEntryRow = db.prepare(INSERT_ENTRY);
    this.insertChangeRow = db.prepare("INSERT INTO blacklist_changes (type, entry_id, at) VALUES (?1, ?2, ?3)");
    this.markOverturnedRow = db.prepare(
      "UPDATE blacklist_entries SET status = 'overturned', overturned_at = ?2, overturn_reason = ?3 WHERE id = ?1",
    );
    this.dueForExpiry = db.prepare(
      `SELECT ${ENTRY_COLUMNS} FROM blacklist_entries INDEXED BY blacklist_expiry_idx
       WHERE status = 'active' AND expires_at IS NOT NULL AND expires_at <= ?1 LIMIT ?2`,
    );
    this.markExpired = db.prepare("UPDATE blacklist_entries SET status = 'expired' WHERE id = ?1");
    // The first fill walks the check's own index, which holds every column it needs: a fraction
    // of the table's pages, so the start does not drag the whole table through the page cache.
    this.subjectsAfterRows = db.prepare(
      `SELECT provider, provider_user_id FROM blacklist_entries INDEXED BY blacklist_subject_idx
       WHERE (provider, provider_user_id) > (?1, ?2) AND status = 'active'
       ORDER BY provider, provider_user_id LIMIT ?3`,
    );
    this.rowsAfterRows = db.prepare(
      `SELECT rowid AS position, ${columnsOf(blacklistEntries, ["provider", "providerUserId"])} FROM blacklist_entries
       WHERE rowid > ?1 AND status = 'active' ORDER BY rowid LIMIT ?2`,
    );
    this.maxRowid = db.prepare("SELECT max(rowid) AS n FROM blacklist_entries");
    // Without DISTINCT and a bound LIMIT (SQLite prepares a statement again at every run when a
    // bound LIMIT may change its plan): 10 us a call on the bench data, against 3 for the same rows
    // made distinct as they are read (`subjectsByUsername`).
    this.subjectsByUsernameRows = db.prepare(
      `SELECT ${columnsOf(blacklistEntries, SUBJECT_FIELDS)} FROM blacklist_entries INDEXED BY blacklist_username_idx
       WHERE lower(username) = ?1 AND username IS NOT NULL AND status = 'active' AND (expires_at IS NULL OR expires_at > ?2)`,
    );
    // A subject's few active rows, the one named picked by `subjectName`: with the ORDER BY here
    // beside the bound `=`s, 17-22 us a call on the bench data, against 8-9.
    this.subjectNameRows = db.prepare(
      `SELECT ${columnsOf(blacklistEntries, [...SUBJECT_FIELDS, "issuedAt"])} FROM blacklist_entries
       WHERE provider = ?1 AND provider_user_id = ?2 AND status = 'active' AND (expires_at IS NULL OR expires_at > ?3)`,
    );
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.store.write(fn);
  }

  subjectRowsNow(provider: string, id: string): HitRow[] {
    return this.subjectStatement.all(provider, id);
  }

  async subjectRows(subjects: SubjectKey[]) {
    return subjects.map(([provider, id]) => this.subjectRowsNow(provider, id));
  }

  async page(afterTime: number, afterId: string, now: number, vertical: Vertical, limit: number) {
    return this.pageRows.all(afterTime, afterId, now, vertical, limit).map(readEntry);
  }

  async byId(id: string) {
    const row = this.byIdRow.get(id);
    return row ? readEntry(row) : null;
  }

  /** The write lock is already the database's: a plain read. */
  async lockById(id: string) {
    return this.byId(id);
  }

  async entriesOf(subject: { provider: Provider; providerUserId: string } | { creatorHandle: string }) {
    const rows =
      "creatorHandle" in subject
        ? this.sqlite.query<Record<string, unknown>, [string]>(`SELECT ${ENTRY_COLUMNS} FROM blacklist_entries WHERE creator_handle = ? ORDER BY issued_at, id`).all(subject.creatorHandle)
        : this.sqlite
            .query<Record<string, unknown>, [string, string]>(`SELECT ${ENTRY_COLUMNS} FROM blacklist_entries WHERE provider = ? AND provider_user_id = ? ORDER BY issued_at, id`)
            .all(subject.provider, subject.providerUserId);
    return rows.map(readEntry);
  }

  async changesAfter(seq: number, limit: number) {
    return this.changeRows.all(seq, limit).map(readChange);
  }

  async originChangesAfter(seq: number, limit: number) {
    return originChangesOn(this.sqlite, seq, limit);
  }

  get readableFile(): string | undefined {
    return this.store.path === ":memory:" ? undefined : this.store.path;
  }

  async heldFrom(source: string, upstreamId: string) {
    const row = this.sqlite
      .query<Record<string, unknown>, [string, string]>(
        `SELECT ${ENTRY_COLUMNS} FROM blacklist_entries INDEXED BY blacklist_source_idx
         WHERE source = ?1 AND upstream_id = ?2 AND status = 'active' LIMIT 1`,
      )
      .get(source, upstreamId);
    return row ? readEntry(row) : null;
  }

  async heldUpstreamIds(source: string, upstreamIds: string[]) {
    const rows = this.sqlite
      .query<{ id: string }, [string, string]>(
        `SELECT upstream_id AS id FROM blacklist_entries INDEXED BY blacklist_source_idx
         WHERE source = ?1 AND upstream_id IN (SELECT value FROM json_each(?2)) AND status = 'active'`,
      )
      .all(source, JSON.stringify(upstreamIds));
    return new Set(rows.map((row) => row.id));
  }

  async heldPage(source: string, afterUpstreamId: string, limit: number) {
    return this.sqlite
      .query<Record<string, unknown>, [string, string, number]>(
        `SELECT ${ENTRY_COLUMNS} FROM blacklist_entries INDEXED BY blacklist_source_idx
         WHERE source = ?1 AND upstream_id > ?2 AND status = 'active' ORDER BY upstream_id LIMIT ?3`,
      )
      .all(source, afterUpstreamId, limit)
      .map(readEntry);
  }

  async heldOfSubject(provider: Provider, id: string) {
    return this.sqlite
      .query<Record<string, unknown>, [string, string]>(
        `SELECT ${ENTRY_COLUMNS} FROM blacklist_entries WHERE provider = ?1 AND provider_user_id = ?2 AND status = 'active' AND source IS NOT NULL`,
      )
      .all(provider, id)
      .map(readEntry);
  }

  async heldCount(source: string) {
    return this.sqlite
      .query<{ n: number }, [string]>("SELECT count(*) AS n FROM blacklist_entries INDEXED BY blacklist_source_idx WHERE source = ?1 AND status = 'active'")
      .get(source)!.n;
  }

  async markExpiredNow(id: string) {
    this.markExpired.run(id);
  }

  async insertEntry(row: EntryRow) {
    await translatingConflicts(() => this.insertEntryNow(row));
  }

  async insertEntries(rows: EntryRow[]) {
    await translatingConflicts(() => {
      for (const row of rows) this.insertEntryNow(row);
    });
  }

  async storedIds(ids: string[]) {
    const stored = new Set<string>();
    const exists = this.sqlite.query<{ id: string }, [string]>("SELECT id FROM blacklist_entries WHERE id = ?");
    for (const id of ids) if (exists.get(id)) stored.add(id);
    return stored;
  }

  insertEntryNow(row: EntryRow): void {
    insertEntryWith(this.insertEntryRow, row);
  }

  async insertChange(type: ChangeType, entryId: string, at: number) {
    this.insertChangeRow.run(type, entryId, at);
  }

  async insertAddedChanges(rows: EntryRow[]) {
    for (const row of rows) this.insertChangeRow.run("added", row.id, row.createdAt);
  }

  async markOverturned(id: string, at: number, reason: string | null) {
    this.markOverturnedRow.run(id, at, reason);
  }

  async expireDue(now: number, limit: number) {
    const rows = this.dueForExpiry.all(now, limit).map(readEntry);
    for (const row of rows) this.markExpired.run(row.id);
    return rows;
  }

  async subjectsAfter(after: SubjectKey, limit: number) {
    return this.subjectsAfterRows.values(after[0], after[1], limit) as SubjectKey[];
  }

  async lastPosition() {
    return this.storedCountNow();
  }

  async rowsAfter(position: number, limit: number) {
    return this.rowsAfterRows.all(position, limit);
  }

  rowsAfterNow(position: number) {
    return this.rowsAfterRows.all(position, -1);
  }

  countListed(now: number): Promise<number> {
    return countInSlices(this.store.sqlite, "blacklist_entries", "status = 'active' AND watchlist = 0 AND (expires_at IS NULL OR expires_at > ?3)", now);
  }

  subjectsByUsername(lowerUsername: string, now: number, limit: number): SubjectName[] {
    // The first `limit` distinct rows in the index's order, as SELECT DISTINCT ... LIMIT gives them.
    const out: SubjectName[] = [];
    if (limit <= 0) return out;
    const seen = new Set<string>();
    for (const row of this.subjectsByUsernameRows.iterate(lowerUsername, now)) {
      const key = `${row.provider}\u0000${row.providerUserId}\u0000${row.username}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (out.push(row) >= limit) break;
    }
    return out;
  }

  subjectName(provider: string, id: string, now: number): SubjectName | null {
    // The newest row that names the account, else the newest row.
    const before = (a: NamedSubjectRow, b: NamedSubjectRow) => ((a.username === null) !== (b.username === null) ? a.username !== null : a.issuedAt > b.issuedAt);
    let best: NamedSubjectRow | null = null;
    for (const row of this.subjectNameRows.all(provider, id, now)) if (best === null || before(row, best)) best = row;
    return best && { provider: best.provider, providerUserId: best.providerUserId, username: best.username };
  }

  entriesTableSqlNow(): string {
    return this.sqlite.query<{ sql: string }, []>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'blacklist_entries'").get()!.sql;
  }

  /**
   * Into an empty table with no secondary index SQLite copies the rows as they are, rowids
   * included, without decoding them; into one holding rows they get the rowids that follow.
   */
  copyEntriesNow(path: string): number | null {
    this.sqlite.run(`ATTACH ?1 AS ${ENTRIES_APART}`, [path]);
    try {
      this.sqlite.run(`INSERT INTO main.blacklist_entries SELECT * FROM ${ENTRIES_APART}.blacklist_entries`);
      return null;
    } catch (error) {
      if (!asUniqueViolation(error)) throw error;
      const first = this.sqlite
        .query<{ rowid: number | null }, []>(
          `SELECT min(a.rowid) AS rowid FROM ${ENTRIES_APART}.blacklist_entries a JOIN main.blacklist_entries m ON m.id = a.id`,
        )
        .get()!.rowid;
      if (first === null) throw error;
      return first;
    }
  }

  detachEntriesNow(): void {
    const attached = this.sqlite.query<{ name: string }, []>("SELECT name FROM pragma_database_list").all();
    if (attached.some((db) => db.name === ENTRIES_APART)) this.sqlite.run(`DETACH ${ENTRIES_APART}`);
  }

  storedCountNow(): number {
    return this.maxRowid.get()!.n ?? 0;
  }

  addedFeedRowsAfterNow(afterPosition: number): void {
    this.sqlite.run(
      `INSERT INTO blacklist_changes (type, entry_id, at)
       SELECT 'added', id, created_at FROM blacklist_entries
       WHERE rowid > ?1 AND status = 'active' ORDER BY rowid`,
      [afterPosition],
    );
  }
}
