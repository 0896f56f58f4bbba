// The import's bulk writes of entries, inside the transaction the import holds throughout. Entries
// are stored without their feed rows and listener calls until `endBulk`, which writes them in one
// pass: at a million imported entries, one INSERT ... SELECT and one catch-up query per listener
// instead of a million of each. They run where the store answers without a promise (SQLite's
// `sync`); elsewhere the import stores a window of entries at a time through `importEntries`.
import type { BlacklistStore, BlacklistSyncStore, EntryRow } from "./store";
import type { SubjectFilter } from "./subject-filter";

/**
 * Told, at the end of a bulk write (an import) and inside its transaction, that the active
 * entries stored past `afterRowid` were added: listeners catch up in one pass instead of one
 * look-up per entry.
 */
export type BulkEntriesListener = (afterRowid: number) => void;

export class BlacklistBulk {
  private readonly listeners: BulkEntriesListener[] = [];
  /** Inside a bulk write: the largest rowid before it began; feed rows and listeners wait for `endBulk`. */
  private afterRowid: number | null = null;

  constructor(
    private readonly store: BlacklistStore,
    private readonly subjects: SubjectFilter,
  ) {}

  onBulkEntries(listener: BulkEntriesListener): void {
    this.listeners.push(listener);
  }

  /** The store's synchronous side, which the bulk writes need. */
  private get sync(): BlacklistSyncStore {
    const sync = this.store.sync;
    if (!sync) throw new Error("bulk blacklist writes (import) run on SQLite only for now");
    return sync;
  }

  begin(): void {
    this.afterRowid = this.storedCount();
  }

  /** Rows ever stored (the largest rowid): a free upper bound of the table's size. */
  storedCount(): number {
    return this.sync.storedCountNow();
  }

  /** Writes the feed rows of the entries stored since `begin`, in storing order, and tells the listeners. */
  end(): void {
    const after = this.afterRowid;
    this.afterRowid = null;
    if (after === null) return;
    this.sync.addedFeedRowsAfterNow(after);
    for (const listener of this.listeners) listener(after);
  }

  /** Leaves bulk mode without writing anything (the bulk write was rolled back). */
  abandon(): void {
    this.afterRowid = null;
  }

  /** blacklist_entries' CREATE statement, for a file of entries prepared apart. */
  entriesTableSql(): string {
    return this.sync.entriesTableSqlNow();
  }

  /**
   * Stores the entries a large import prepared on a second thread into the `EntriesFile` at
   * `path`: null when done, or the place in the file (1 for its first entry) of the first entry
   * whose id is already stored.
   */
  storeEntriesFrom(path: string): number | null {
    const after = this.afterRowid;
    if (after === null) throw new Error("storeEntriesFrom runs inside beginBulk/endBulk");
    const sync = this.sync;
    const duplicate = sync.copyEntriesNow(path);
    if (duplicate !== null) return duplicate;
    if (this.subjects.keepingUp) for (const row of sync.rowsAfterNow(after)) this.subjects.add(row.provider, row.providerUserId);
    return null;
  }

  /** Lets go of the file `storeEntriesFrom` read, once the bulk write's transaction has ended. */
  releaseEntriesFile(): void {
    this.sync.detachEntriesNow();
  }

  /** Stores a prepared entry: no feed row, no event and no listener call until `end`. */
  storeEntry(row: EntryRow): void {
    if (this.afterRowid === null) throw new Error("storeEntry runs inside beginBulk/endBulk; use add");
    this.sync.insertEntryNow(row);
    if (row.status === "active") this.subjects.add(row.provider, row.providerUserId);
  }
}
