// Another process's commits (a CLI revoke, rotate, suspend, blacklist add, an import) reach every
// in-memory cache through this one notifier. SQLite's `PRAGMA data_version` moves only when
// another connection has committed; it is read once at the start of every request (and by every
// write, once it holds the lock), and when it moved each subscriber is told before the request
// reads anything: the key cache drops its entries, the subject filter catches up, the directory
// index checks whether creators changed. So another process's change applies from the very next
// request, with no polling interval to wait out.
//
// Cost: the PRAGMA is a read transaction of its own (two fcntl calls on the -shm lock), about 2 µs
// a request. So it is asked only when the WAL-index header moved: every commit of any connection
// rewrites that header in the shared -shm file (its change counter, last frame and checksum), and
// reading it from a shared mapping is a few memory loads. An unmoved header means no commit since
// the last look; a moved one may be this process's own write, which the PRAGMA then tells apart.
import type { Database, Statement } from "bun:sqlite";
import { existsSync } from "node:fs";

/**
 * Commits of other processes or instances, told to the in-memory caches. SQLite reads
 * `data_version` (ExternalChanges below); PostgreSQL is told by LISTEN/NOTIFY (db/postgres.ts).
 */
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
  /** Called by the write function inside its transaction, right before COMMIT. */
  beforeCommit(): void;
}

export class ExternalChanges implements ChangeNotifier {
  private readonly dataVersion: Statement<unknown, []>;
  private seen: number;
  private readonly external: Array<(notes: CommitNotes) => void> = [];
  private readonly ownCommit: Array<() => void> = [];

  /** The -shm file's first WAL-index header (12 words), and its words when last looked at. */
  private header: Uint32Array | null = null;
  private readonly headerSeen = new Uint32Array(HEADER_WORDS);

  /** `shmPath`: the -shm file of a database in WAL mode, or null to ask SQLite every time. */
  constructor(
    private readonly sqlite: Database,
    private readonly shmPath: string | null = null,
  ) {
    this.dataVersion = sqlite.prepare("PRAGMA data_version");
    // The read creates the -shm file if this is the first connection.
    this.seen = this.read();
    this.journalModeChanged();
  }

  /**
   * To be called when this connection left WAL mode or came back to it (a bulk import): leaving
   * deletes the -shm file, and coming back makes a new one, so the header is looked up again
   * (none outside WAL: every check asks SQLite).
   */
  journalModeChanged(): void {
    const inWal = this.shmPath !== null && this.sqlite.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode === "wal";
    this.header = inWal ? mapHeader(this.shmPath!) : null;
    if (this.header) this.headerSeen.set(this.header);
  }

  /** `listener` runs whenever another process has committed since the last check. */
  onExternalCommit(listener: (notes: CommitNotes) => void): void {
    this.external.push(listener);
  }

  /**
   * `listener` runs inside each of this process's write transactions, just before COMMIT: the
   * lock keeps every other writer out, so what it reads is this process's writes plus exactly the
   * external commits already announced (a counter read there cannot swallow another's change).
   */
  onOwnCommit(listener: () => void): void {
    this.ownCommit.push(listener);
  }

  /** Tells the subscribers when another process has committed since the last call; true then. */
  check(): boolean {
    const header = this.header;
    if (header) {
      const seen = this.headerSeen;
      let moved = false;
      for (let i = 0; i < HEADER_WORDS; i++) {
        if (header[i] !== seen[i]) {
          moved = true;
          break;
        }
      }
      if (!moved) return false;
      // Copied before the PRAGMA: a commit landing between the two moves the header again, and the
      // next check asks once more.
      seen.set(header);
    }
    const version = this.read();
    if (version === this.seen) return false;
    this.seen = version;
    for (const listener of this.external) listener(null);
    return true;
  }

  /** Called by the write function inside its transaction, right before COMMIT. */
  beforeCommit(): void {
    for (const listener of this.ownCommit) listener();
  }

  private read(): number {
    return this.dataVersion.values()[0]![0] as number;
  }
}

/** Words of SQLite's WalIndexHdr (48 bytes), the first thing in the -shm file. */
const HEADER_WORDS = 12;

/** A shared, read-only view of the first WAL-index header; null where it cannot be mapped. */
function mapHeader(shmPath: string): Uint32Array | null {
  if (!existsSync(shmPath)) return null;
  try {
    const bytes = Bun.mmap(shmPath, { shared: true });
    if (bytes.byteLength < HEADER_WORDS * 4) return null;
    return new Uint32Array(bytes.buffer, bytes.byteOffset, HEADER_WORDS);
  } catch {
    return null;
  }
}
