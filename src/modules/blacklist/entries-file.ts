// Entries a large import prepares on a second thread (transfer/line-check-worker.ts): a scratch
// SQLite file with a table made by blacklist_entries' own CREATE statement, rows in file order.
// The store's `copyEntriesNow` then stores them all in one statement. The file is thrown away
// after the import: no journal, no syncs.
import { Database as SqliteDatabase, type Statement } from "bun:sqlite";
import { asUniqueViolation } from "../../db/errors";
import type { EntryRow } from "./store";
import { INSERT_ENTRY, insertEntryWith } from "./store.sqlite";

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
