// The entry lines of a large import on SQLite, most of them prepared on the line-check thread
// (line-check-worker.ts) into a scratch SQLite file with blacklist_entries' own table, stored at
// the end with one INSERT ... SELECT: into an empty table SQLite copies the records as they are
// (0.4 s at 1M entries of the bench data set, against about 5 s of parsing, preparing and
// inserting them on the import thread; about 2.4 s into a table holding rows). The import thread
// leaves those lines unparsed and only notes their numbers, to name the line of an id already
// stored (found only at the copy: a later bad line of another kind is reported before it). The
// entry lines of the file's last part it prepares itself, having read its own lines by then, and
// stores them after the copy, in file order.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ServiceError } from "../../errors";
import { type BlacklistService, type EntryRow, prepareEntryAt } from "../blacklist/service";
import { LineChecks } from "./line-checks";
import { DUPLICATE_RECORD, EntryLine, lineError, schemaProblem } from "./lines";

/**
 * Where, as a share of the file's length, the entry lines the import thread prepares itself
 * begin. At 1M entries of the bench data set the other thread, preparing them all, spent about
 * 8 s of CPU against the import thread's 5 s; an entry costs about 7 us there and 4.5 us on the
 * import thread, plus 2.5 us to insert it after the copy. The import thread also scores the
 * creators before it waits for the other one (1.3 s): from 0.9 on (130k entries here) both were
 * done together, 6.1-6.9 s into the import; at 0.95 the import thread waited 0.3-1.3 s.
 */
const ENTRIES_HERE_FROM_FRACTION = 0.9;

export class EntriesApart {
  /** The line-check thread, which also prepares the entries before `hereFrom`. */
  readonly checks: LineChecks;
  private readonly scratch: string;
  private readonly file: string;
  /** Where the entries this thread prepares begin, in characters of the file (each line with its "\n"). */
  private readonly hereFrom: number;
  /** Line numbers of the entries the other thread prepares, in file order (as its file's rowids run). */
  private readonly apart: number[] = [];
  private readonly here: Array<{ lineNo: number; row: EntryRow }> = [];

  /** Starts the thread, inside the import's transaction. */
  constructor(
    path: string,
    bytes: number,
    private readonly blacklist: BlacklistService,
    private readonly now: number,
  ) {
    this.hereFrom = Math.floor(bytes * ENTRIES_HERE_FROM_FRACTION);
    this.scratch = mkdtempSync(join(tmpdir(), "trustlist-import-"));
    this.file = join(this.scratch, "entries.db");
    try {
      const tableSql = blacklist.entriesTableSql();
      this.checks = new LineChecks(path, { file: this.file, tableSql, now, importThreadFrom: this.hereFrom });
    } catch (error) {
      rmSync(this.scratch, { recursive: true, force: true });
      throw error;
    }
  }

  /** Whether the entry line starting at `position` is the other thread's (then noted as such). */
  takenApart(position: number, lineNo: number): boolean {
    if (position >= this.hereFrom) return false;
    this.apart.push(lineNo);
    return true;
  }

  /** Checks and prepares an entry line this thread keeps; what it throws is the line's failure. */
  prepareHere(value: unknown, lineNo: number): void {
    if (!EntryLine.Check(value)) throw new ServiceError("invalid", schemaProblem(EntryLine, value));
    this.here.push({ lineNo, row: prepareEntryAt(value, "import", this.now, { allowPast: true }) });
  }

  /**
   * Stores every entry, once the thread's verdict is in: the other thread's in one copy, then this
   * thread's through `store` (a raw driver error for a repeated id). Throws the line's error.
   */
  storeAll(store: (row: EntryRow) => void, asLineError: (error: unknown, lineNo: number) => unknown): void {
    const duplicate = this.blacklist.storeEntriesFrom(this.file);
    if (duplicate !== null) throw lineError(this.apart[duplicate - 1]!, DUPLICATE_RECORD);
    for (const { lineNo, row } of this.here) {
      try {
        store(row);
      } catch (error) {
        throw asLineError(error, lineNo);
      }
    }
  }

  /**
   * Stops the thread and removes the scratch file, once the import's transaction has ended. The
   * thread has exited first: one still opening the file could otherwise leave it, or its
   * directory, behind.
   */
  async close(): Promise<void> {
    await this.checks.stop();
    this.blacklist.releaseEntriesFile();
    rmSync(this.scratch, { recursive: true, force: true });
  }
}
