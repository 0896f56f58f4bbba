// The blacklist's tables (blacklist_entries, blacklist_changes): the only place their SQL lives.
// SQLite keeps prepared statements, and the check's read and the import's bulk writes stay
// synchronous there (`SqliteBlacklistStore`'s `*Now` methods); PostgreSQL goes through
// `database.sql()` so every statement joins the caller's transaction.
import { Database as SqliteDatabase, type Statement } from "bun:sqlite";
import type { Store } from "../../db/client";
import type { Database } from "../../db/database";
import { countInSlices } from "../../db/count-slices";
import { asUniqueViolation, translatingConflicts } from "../../db/errors";
import { type ReadSnapshot, snapshotRows } from "../../db/snapshot";
import type { PostgresDatabase } from "../../db/postgres";
import type { ChangeType, EntryScope, EntryStatus, Provider, Severity, Vertical } from "../../domain";

export interface EntryRow {
  id: string;
  provider: Provider;
  provider_user_id: string;
  username: string | null;
  severity: Severity;
  scope: EntryScope;
  vertical: Vertical;
  reason_code: string;
  summary: string | null;
  issued_at: number;
  expires_at: number | null;
  appealable: number;
  high_risk: number;
  watchlist: number;
  creator_handle: string | null;
  evidence: string | null;
  reporter: string | null;
  status: EntryStatus;
  overturned_at: number | null;
  overturn_reason: string | null;
  created_at: number;
}

/** What a check needs of one active row of a subject. */
export type HitRow = Pick<
  EntryRow,
  "id" | "severity" | "scope" | "vertical" | "reason_code" | "summary" | "issued_at" | "expires_at" | "appealable" | "high_risk" | "watchlist"
>;

export type ChangeRow = EntryRow & { seq: number; type: ChangeType; entry_id: string; at: number };

export type SubjectKey = [provider: string, providerUserId: string];

/** An account named by active entries, with the username one of them gives it. */
export interface SubjectName {
  provider: Provider;
  provider_user_id: string;
  username: string | null;
}

export interface BlacklistStore {
  readonly dialect: Database["dialect"];
  /** One write transaction (a write inside a write joins it). */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /** Active rows of one subject, expired ones included (the caller compares `expires_at` with its clock). */
  subjectRows(provider: Provider, id: string): Promise<HitRow[]>;
  /** Active confirmed rows past (afterTime, afterId) in list order, unexpired at `now`, on `vertical`. */
  page(afterTime: number, afterId: string, now: number, vertical: Vertical, limit: number): Promise<EntryRow[]>;
  byId(id: string): Promise<EntryRow | null>;
  /** `byId` that holds the row until the transaction ends (PostgreSQL: FOR UPDATE). */
  lockById(id: string): Promise<EntryRow | null>;
  changesAfter(seq: number, limit: number): Promise<ChangeRow[]>;
  /** Throws UniqueViolation for an id already taken. */
  insertEntry(row: EntryRow): Promise<void>;
  insertChange(type: ChangeType, entryId: string, at: number): Promise<void>;
  markOverturned(id: string, at: number, reason: string | null): Promise<void>;
  /** Marks up to `limit` active rows lapsed at `now` expired and returns them (as they were before). */
  expireDue(now: number, limit: number): Promise<EntryRow[]>;
  /** Subjects with an active row past `after` in (provider, id) order: the subject filter's fill. */
  subjectsAfter(after: SubjectKey, limit: number): Promise<SubjectKey[]>;
  /** A position past every row stored so far (SQLite: max rowid), or null where rows have no order (PostgreSQL). */
  lastPosition(): Promise<number | null>;
  /** Active rows stored past `position` (SQLite only: PostgreSQL returns null and the filter refills). */
  rowsAfter(position: number, limit: number): Promise<Array<{ position: number; provider: string; provider_user_id: string }> | null>;
  /** Active confirmed entries unexpired at `now` (the public counters; SQLite counts in slices). */
  countListed(now: number): Promise<number>;
  /**
   * Accounts with an active entry unexpired at `now` whose username, without case, is
   * `lowerUsername` (keyless search; src/modules/public/disclosure.ts decides what they may show).
   * SQLite answers without a promise.
   */
  subjectsByUsername(lowerUsername: string, now: number, limit: number): SubjectName[] | Promise<SubjectName[]>;
  /**
   * The username the newest active entry unexpired at `now` gives an account (one that gives one
   * first), or null when it has no such entry. SQLite answers without a promise.
   */
  subjectName(provider: string, id: string, now: number): SubjectName | null | Promise<SubjectName | null>;
}

/** An entry's insert on SQLite, bound by `insertEntryWith`: the table's and an `EntriesFile`'s. */
const INSERT_ENTRY = `INSERT INTO blacklist_entries (id, provider, provider_user_id, username, severity, scope, vertical,
    reason_code, summary, issued_at, expires_at, appealable, high_risk, watchlist, creator_handle, evidence, reporter,
    status, overturned_at, created_at)
  VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)`;

function insertEntryWith(statement: Statement, row: EntryRow): void {
  statement.run(
    row.id,
    row.provider,
    row.provider_user_id,
    row.username,
    row.severity,
    row.scope,
    row.vertical,
    row.reason_code,
    row.summary,
    row.issued_at,
    row.expires_at,
    row.appealable,
    row.high_risk,
    row.watchlist,
    row.creator_handle,
    row.evidence,
    row.reporter,
    row.status,
    row.overturned_at,
    row.created_at,
  );
}

export function createBlacklistStore(database: Database): BlacklistStore {
  return database.dialect === "sqlite" ? new SqliteBlacklistStore(database) : new PostgresBlacklistStore(database);
}

export class SqliteBlacklistStore implements BlacklistStore {
  readonly dialect = "sqlite" as const;
  private readonly sqlite: SqliteDatabase;
  private readonly subjectStatement: Statement<HitRow, [string, string]>;
  private readonly pageRows: Statement<EntryRow, [number, string, number, string, number]>;
  private readonly byIdRow: Statement<EntryRow, [string]>;
  private readonly changeRows: Statement<ChangeRow, [number, number]>;
  private readonly insertEntryRow: Statement;
  private readonly insertChangeRow: Statement;
  private readonly markOverturnedRow: Statement;
  private readonly dueForExpiry: Statement<EntryRow, [number, number]>;
  private readonly markExpired: Statement;
  private readonly subjectsAfterRows: Statement<SubjectKey, [string, string, number]>;
  private readonly rowsAfterRows: Statement<{ position: number; provider: string; provider_user_id: string }, [number, number]>;
  private readonly maxRowid: Statement<{ n: number | null }, []>;
  private readonly subjectsByUsernameRows: Statement<SubjectName, [string, number, number]>;
  private readonly subjectNameRow: Statement<SubjectName, [string, string, number]>;

  constructor(private readonly store: Store) {
    const db = (this.sqlite = store.sqlite);
    this.subjectStatement = db.prepare(
      `SELECT id, severity, scope, vertical, reason_code, summary, issued_at, expires_at, appealable, high_risk, watchlist
       FROM blacklist_entries WHERE provider = ?1 AND provider_user_id = ?2 AND status = 'active'`,
    );
    this.pageRows = db.prepare(
      `SELECT * FROM blacklist_entries INDEXED BY blacklist_list_idx
       WHERE status = 'active' AND watchlist = 0 AND (issued_at, id) > (?1, ?2)
         AND (expires_at IS NULL OR expires_at > ?3)
         AND (?4 = 'all' OR scope = 'global' OR vertical = ?4)
       ORDER BY issued_at, id LIMIT ?5`,
    );
    this.byIdRow = db.prepare("SELECT * FROM blacklist_entries WHERE id = ?");
    this.changeRows = db.prepare(
      `SELECT c.seq, c.type, c.entry_id, c.at, e.*
       FROM blacklist_changes c JOIN blacklist_entries e ON e.id = c.entry_id
       WHERE c.seq > ?1 ORDER BY c.seq LIMIT ?2`,
    );
    this.insertEntryRow = db.prepare(INSERT_ENTRY);
    this.insertChangeRow = db.prepare("INSERT INTO blacklist_changes (type, entry_id, at) VALUES (?1, ?2, ?3)");
    this.markOverturnedRow = db.prepare(
      "UPDATE blacklist_entries SET status = 'overturned', overturned_at = ?2, overturn_reason = ?3 WHERE id = ?1",
    );
    this.dueForExpiry = db.prepare(
      `SELECT * FROM blacklist_entries INDEXED BY blacklist_expiry_idx
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
      `SELECT rowid AS position, provider, provider_user_id FROM blacklist_entries
       WHERE rowid > ?1 AND status = 'active' ORDER BY rowid LIMIT ?2`,
    );
    this.maxRowid = db.prepare("SELECT max(rowid) AS n FROM blacklist_entries");
    this.subjectsByUsernameRows = db.prepare(
      `SELECT DISTINCT provider, provider_user_id, username FROM blacklist_entries INDEXED BY blacklist_username_idx
       WHERE lower(username) = ?1 AND username IS NOT NULL AND status = 'active' AND (expires_at IS NULL OR expires_at > ?2) LIMIT ?3`,
    );
    this.subjectNameRow = db.prepare(
      `SELECT provider, provider_user_id, username FROM blacklist_entries
       WHERE provider = ?1 AND provider_user_id = ?2 AND status = 'active' AND (expires_at IS NULL OR expires_at > ?3)
       ORDER BY username IS NULL, issued_at DESC LIMIT 1`,
    );
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.store.write(fn);
  }

  /** The check's read without a promise: the keyed check route stays synchronous on SQLite. */
  subjectRowsNow(provider: string, id: string): HitRow[] {
    return this.subjectStatement.all(provider, id);
  }

  async subjectRows(provider: Provider, id: string) {
    return this.subjectRowsNow(provider, id);
  }

  async page(afterTime: number, afterId: string, now: number, vertical: Vertical, limit: number) {
    return this.pageRows.all(afterTime, afterId, now, vertical, limit);
  }

  async byId(id: string) {
    return this.byIdRow.get(id);
  }

  /** The write lock is already the database's: a plain read. */
  async lockById(id: string) {
    return this.byIdRow.get(id);
  }

  async changesAfter(seq: number, limit: number) {
    return this.changeRows.all(seq, limit);
  }

  async insertEntry(row: EntryRow) {
    await translatingConflicts(() => this.insertEntryNow(row));
  }

  /** The import's insert, inside its synchronous bulk write (raw driver errors). */
  insertEntryNow(row: EntryRow): void {
    insertEntryWith(this.insertEntryRow, row);
  }

  async insertChange(type: ChangeType, entryId: string, at: number) {
    this.insertChangeRow.run(type, entryId, at);
  }

  async markOverturned(id: string, at: number, reason: string | null) {
    this.markOverturnedRow.run(id, at, reason);
  }

  async expireDue(now: number, limit: number) {
    const rows = this.dueForExpiry.all(now, limit);
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

  /** Every active row stored past `position` (an import's, inside its transaction). */
  rowsAfterNow(position: number) {
    return this.rowsAfterRows.all(position, -1);
  }

  countListed(now: number): Promise<number> {
    return countInSlices(this.store.sqlite, "blacklist_entries", "status = 'active' AND watchlist = 0 AND (expires_at IS NULL OR expires_at > ?3)", now);
  }

  subjectsByUsername(lowerUsername: string, now: number, limit: number): SubjectName[] {
    return this.subjectsByUsernameRows.all(lowerUsername, now, limit);
  }

  subjectName(provider: string, id: string, now: number): SubjectName | null {
    return this.subjectNameRow.get(provider, id, now);
  }

  /** The table's CREATE statement, which a file of entries prepared apart repeats (`EntriesFile`). */
  entriesTableSqlNow(): string {
    return this.sqlite.query<{ sql: string }, []>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'blacklist_entries'").get()!.sql;
  }

  /**
   * Stores every entry of an `EntriesFile` after the stored ones, in the file's order, inside the
   * caller's transaction; null when done, or the place in the file (its rowid: 1 for the first)
   * of the first entry whose id is already stored (nothing of the file is then stored). Into an
   * empty table with no secondary index SQLite copies the rows as they are, rowids included,
   * without decoding them; into one holding rows they get the rowids that follow. The file stays
   * attached until `detachEntriesNow`, after the transaction ends.
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

  /** Lets go of the file `copyEntriesNow` attached (once its transaction has ended); no-op when none is. */
  detachEntriesNow(): void {
    const attached = this.sqlite.query<{ name: string }, []>("SELECT name FROM pragma_database_list").all();
    if (attached.some((db) => db.name === ENTRIES_APART)) this.sqlite.run(`DETACH ${ENTRIES_APART}`);
  }

  /** Rows ever stored (the largest rowid): a free upper bound of the table's size. */
  storedCountNow(): number {
    return this.maxRowid.get()!.n ?? 0;
  }

  /** Feed rows of the active confirmed entries stored past `afterRowid`, in storing order (end of an import). */
  addedFeedRowsAfterNow(afterRowid: number): void {
    this.sqlite.run(
      `INSERT INTO blacklist_changes (type, entry_id, at)
       SELECT 'added', id, created_at FROM blacklist_entries
       WHERE rowid > ?1 AND status = 'active' AND watchlist = 0 ORDER BY rowid`,
      [afterRowid],
    );
  }
}

/** What an `EntriesFile` is called while the import's connection has it attached. */
const ENTRIES_APART = "entries_apart";

/**
 * Entries a large import prepares on a second thread (line-check-worker.ts): a scratch SQLite file
 * with a table made by blacklist_entries' own CREATE statement, rows in file order.
 * `copyEntriesNow` then stores them all in one statement. The file is thrown away after the
 * import: no journal, no syncs.
 */
export class EntriesFile {
  private readonly db: SqliteDatabase;
  private readonly insert: Statement;

  constructor(path: string, tableSql: string) {
    this.db = new SqliteDatabase(path, { create: true });
    this.db.run("PRAGMA journal_mode = OFF");
    this.db.run("PRAGMA synchronous = OFF");
    this.db.run(tableSql);
    this.db.run("BEGIN");
    this.insert = this.db.prepare(INSERT_ENTRY);
  }

  /** Adds the file's next entry (rowid 1, 2, … in the order added); UniqueViolation for an id it holds. */
  add(row: EntryRow): void {
    try {
      insertEntryWith(this.insert, row);
    } catch (error) {
      throw asUniqueViolation(error) ?? error;
    }
  }

  /** Writes the rows out and closes the file, ready for `copyEntriesNow`. */
  finish(): void {
    this.db.run("COMMIT");
    this.db.close();
  }

  /** Closes the file without finishing it (the import failed). */
  abandon(): void {
    this.db.close();
  }
}

/** A row as Bun.SQL returns it: int8 as strings, flags as booleans. */
type PgEntryRow = Record<string, unknown>;

const num = (value: unknown) => (value === null || value === undefined ? null : Number(value));
const flag = (value: unknown) => (value === true || value === 1 || value === "1" || value === "t" ? 1 : 0);

function entryFromPg(row: PgEntryRow): EntryRow {
  return {
    id: row.id as string,
    provider: row.provider as Provider,
    provider_user_id: row.provider_user_id as string,
    username: (row.username as string | null) ?? null,
    severity: row.severity as Severity,
    scope: row.scope as EntryScope,
    vertical: row.vertical as Vertical,
    reason_code: row.reason_code as string,
    summary: (row.summary as string | null) ?? null,
    issued_at: Number(row.issued_at),
    expires_at: num(row.expires_at),
    appealable: flag(row.appealable),
    high_risk: flag(row.high_risk),
    watchlist: flag(row.watchlist),
    creator_handle: (row.creator_handle as string | null) ?? null,
    evidence: (row.evidence as string | null) ?? null,
    reporter: (row.reporter as string | null) ?? null,
    status: row.status as EntryStatus,
    overturned_at: num(row.overturned_at),
    overturn_reason: (row.overturn_reason as string | null) ?? null,
    created_at: Number(row.created_at),
  };
}

/** The notification topic of subjects given an active row, as [provider, provider_user_id]. */
export const SUBJECTS_NOTE = "blacklist.subjects";

export class PostgresBlacklistStore implements BlacklistStore {
  readonly dialect = "postgres" as const;

  constructor(private readonly database: PostgresDatabase) {}

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.database.write(fn);
  }

  async subjectRows(provider: Provider, id: string): Promise<HitRow[]> {
    const rows = await this.database.sql()`
      SELECT id, severity, scope, vertical, reason_code, summary, issued_at, expires_at, appealable, high_risk, watchlist
      FROM blacklist_entries WHERE provider = ${provider} AND provider_user_id = ${id} AND status = 'active'`;
    return (rows as PgEntryRow[]).map((row) => {
      const entry = entryFromPg({ ...row, provider, provider_user_id: id, created_at: 0 });
      const { id: entryId, severity, scope, vertical, reason_code, summary, issued_at, expires_at, appealable, high_risk, watchlist } = entry;
      return { id: entryId, severity, scope, vertical, reason_code, summary, issued_at, expires_at, appealable, high_risk, watchlist };
    });
  }

  async page(afterTime: number, afterId: string, now: number, vertical: Vertical, limit: number) {
    const rows = await this.database.sql()`
      SELECT * FROM blacklist_entries
      WHERE status = 'active' AND NOT watchlist AND (issued_at, id) > (${afterTime}::bigint, ${afterId}::text)
        AND (expires_at IS NULL OR expires_at > ${now}::bigint)
        AND (${vertical}::text = 'all' OR scope = 'global' OR vertical = ${vertical}::text)
      ORDER BY issued_at, id LIMIT ${limit}`;
    return (rows as PgEntryRow[]).map(entryFromPg);
  }

  async byId(id: string) {
    const [row] = await this.database.sql()`SELECT * FROM blacklist_entries WHERE id = ${id}`;
    return row ? entryFromPg(row) : null;
  }

  async lockById(id: string) {
    const [row] = await this.database.sql()`SELECT * FROM blacklist_entries WHERE id = ${id} FOR UPDATE`;
    return row ? entryFromPg(row) : null;
  }

  async changesAfter(seq: number, limit: number): Promise<ChangeRow[]> {
    const rows = await this.database.sql()`
      SELECT c.seq AS change_seq, c.type AS change_type, c.at AS change_at, e.*
      FROM blacklist_changes c JOIN blacklist_entries e ON e.id = c.entry_id
      WHERE c.seq > ${seq}::bigint ORDER BY c.seq LIMIT ${limit}`;
    return (rows as PgEntryRow[]).map((row) => ({
      ...entryFromPg(row),
      seq: Number(row.change_seq),
      type: row.change_type as ChangeType,
      entry_id: row.id as string,
      at: Number(row.change_at),
    }));
  }

  async insertEntry(row: EntryRow) {
    await translatingConflicts(
      () => this.database.sql()`
        INSERT INTO blacklist_entries (id, provider, provider_user_id, username, severity, scope, vertical, reason_code,
          summary, issued_at, expires_at, appealable, high_risk, watchlist, creator_handle, evidence, reporter, status,
          overturned_at, created_at)
        VALUES (${row.id}, ${row.provider}, ${row.provider_user_id}, ${row.username}, ${row.severity}, ${row.scope},
          ${row.vertical}, ${row.reason_code}, ${row.summary}, ${row.issued_at}, ${row.expires_at}, ${!!row.appealable},
          ${!!row.high_risk}, ${!!row.watchlist}, ${row.creator_handle}, ${row.evidence}, ${row.reporter}, ${row.status},
          ${row.overturned_at}, ${row.created_at})`,
    );
    // Other instances add the subject to their filters from the commit's notification instead of
    // reading the table again (every insert of an active row must note it: see PostgresDatabase.note).
    if (row.status === "active") this.database.note(SUBJECTS_NOTE, [row.provider, row.provider_user_id]);
  }

  async insertChange(type: ChangeType, entryId: string, at: number) {
    await this.database.sql()`INSERT INTO blacklist_changes (type, entry_id, at) VALUES (${type}, ${entryId}, ${at})`;
  }

  async markOverturned(id: string, at: number, reason: string | null) {
    await this.database.sql()`
      UPDATE blacklist_entries SET status = 'overturned', overturned_at = ${at}, overturn_reason = ${reason} WHERE id = ${id}`;
  }

  /** SKIP LOCKED: two instances running the job at once expire (and feed) each row once. */
  async expireDue(now: number, limit: number) {
    const rows = await this.database.sql()`
      UPDATE blacklist_entries SET status = 'expired'
      WHERE id IN (
        SELECT id FROM blacklist_entries
        WHERE status = 'active' AND expires_at IS NOT NULL AND expires_at <= ${now}::bigint
        LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING *`;
    return (rows as PgEntryRow[]).map((row) => ({ ...entryFromPg(row), status: "active" as const }));
  }

  async subjectsAfter(after: SubjectKey, limit: number) {
    const rows = await this.database.sql()`
      SELECT provider, provider_user_id FROM blacklist_entries
      WHERE (provider, provider_user_id) > (${after[0]}::text, ${after[1]}::text) AND status = 'active'
      ORDER BY provider, provider_user_id LIMIT ${limit}`;
    return (rows as PgEntryRow[]).map((row): SubjectKey => [row.provider as string, row.provider_user_id as string]);
  }

  async lastPosition() {
    return null;
  }

  async rowsAfter() {
    return null;
  }

  async countListed(now: number): Promise<number> {
    const [row] = await this.database.sql()`
      SELECT count(*)::int AS n FROM blacklist_entries
      WHERE status = 'active' AND NOT watchlist AND (expires_at IS NULL OR expires_at > ${now})`;
    return row.n as number;
  }

  async subjectsByUsername(lowerUsername: string, now: number, limit: number): Promise<SubjectName[]> {
    const rows = await this.database.sql()`
      SELECT DISTINCT provider, provider_user_id, username FROM blacklist_entries
      WHERE lower(username) = ${lowerUsername} AND username IS NOT NULL AND status = 'active' AND (expires_at IS NULL OR expires_at > ${now}::bigint)
      LIMIT ${limit}`;
    return rows as SubjectName[];
  }

  async subjectName(provider: string, id: string, now: number): Promise<SubjectName | null> {
    const [row] = await this.database.sql()`
      SELECT provider, provider_user_id, username FROM blacklist_entries
      WHERE provider = ${provider} AND provider_user_id = ${id} AND status = 'active' AND (expires_at IS NULL OR expires_at > ${now}::bigint)
      ORDER BY username IS NULL, issued_at DESC LIMIT 1`;
    return (row as SubjectName | undefined) ?? null;
  }
}

/** Every entry in issue order, as of the export's snapshot. */
export async function* entriesForExport(snapshot: ReadSnapshot): AsyncGenerator<EntryRow> {
  const query = "SELECT * FROM blacklist_entries ORDER BY issued_at, id";
  if (snapshot.dialect === "sqlite") yield* snapshotRows<EntryRow>(snapshot, query);
  else for await (const row of snapshotRows<PgEntryRow>(snapshot, query)) yield entryFromPg(row);
}
