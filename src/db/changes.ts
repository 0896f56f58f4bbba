// Commits of other processes or instances (a CLI revoke, rotate, suspend, blacklist add, an import,
// another instance's write) reach every in-memory cache through one notifier: the key cache drops
// its entries, the subject filter catches up, the directory index checks whether creators changed.
// The contract; SQLite reads `data_version` (changes.sqlite.ts), PostgreSQL is told by LISTEN/NOTIFY
// and keyed requests read the keys' version row (changes.postgres.ts).

/**
 * What another instance's commit says about itself (PostgreSQL only): items per topic, noted by the
 * stores that wrote them (`PostgresDatabase.note`). A topic absent means that commit wrote nothing
 * of that kind. Null means "unknown" (SQLite, or too much to tell): a listener then catches up by
 * reading.
 */
export type CommitNotes = Readonly<Record<string, readonly unknown[]>> | null;

export interface ChangeNotifier {
  /** `listener` runs whenever another process or instance has committed. */
  onExternalCommit(listener: (notes: CommitNotes) => void): void;
  /** `listener` runs inside each of this process's write transactions, just before COMMIT. */
  onOwnCommit(listener: () => void): void;
  /** Looks for other processes' commits now (SQLite); true when there were some. */
  check(): boolean;
  /** `check()` for the start of a request: at most once per turn of the event loop (changes.sqlite.ts). */
  checkAtRequest(): boolean;
  /** Called by the write function inside its transaction, right before COMMIT. */
  beforeCommit(): void;
  /** `listener` runs when another process or instance has changed API keys or accounts. */
  onKeysChanged(listener: () => void): void;
  /**
   * For a keyed request, before the key cache answers it: resolves once every change to keys and
   * accounts committed before the request arrived has reached the `onKeysChanged` listeners. Null
   * when that is so already: SQLite's `checkAtRequest` told them at the start of the request.
   */
  keysAtRequest(): Promise<void> | null;
}
