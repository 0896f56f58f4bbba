// Another process's commits (a CLI revoke, rotate, suspend, blacklist add, an import) reach every
// in-memory cache through this one notifier. SQLite's `PRAGMA data_version` moves only when
// another connection has committed; it is read before the first request of each turn of the
// event loop (and by every write, once it holds the lock), and when it moved each subscriber is
// told before the request reads anything: the key cache drops its entries, the subject filter
// catches up, the directory index checks whether creators changed. So another process's change
// applies from the very next request, with no polling interval to wait out.
//
// Cost: the PRAGMA is a read transaction of its own (two fcntl calls on the -shm lock), 1.7-2.2 µs
// alone (bench/profile.ts), about 9 % of a keyed check's CPU when every request read it. Once per
// turn, the requests a busy turn answers share it: under wrk on `GET /v1/blacklist/check`, 16
// connections made about 10 requests a turn and 32 about 20.
import type { Database, Statement } from "bun:sqlite";
import type { ChangeNotifier, CommitNotes } from "./changes";

export class ExternalChanges implements ChangeNotifier {
  private readonly dataVersion: Statement<unknown, []>;
  private seen: number;
  private readonly external: Array<(notes: CommitNotes) => void> = [];
  private readonly ownCommit: Array<() => void> = [];
  private readonly keysChanged: Array<() => void> = [];
  /**
   * Called before a turn's first request reads `data_version`: the store ends a read group still
   * open from an earlier turn (db/write.ts), so the read, and the requests of this turn, see every
   * commit made before it.
   */
  beforeTurn: () => void = () => {};
  /** Whether this turn of the event loop has read `data_version` for a request already. */
  private checkedThisTurn = false;
  private readonly endTurn = () => {
    this.checkedThisTurn = false;
  };

  constructor(sqlite: Database) {
    this.dataVersion = sqlite.prepare("PRAGMA data_version");
    this.seen = this.read();
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
    const version = this.read();
    if (version === this.seen) return false;
    this.seen = version;
    for (const listener of this.external) listener(null);
    // data_version does not say what the other process wrote: it may have been a key or an account.
    for (const listener of this.keysChanged) listener();
    return true;
  }

  onKeysChanged(listener: () => void): void {
    this.keysChanged.push(listener);
  }

  keysAtRequest(): null {
    return null;
  }

  /**
   * `check()` once per turn of the event loop, for the requests that turn answers. A request is
   * answered in a turn only once it has arrived, and the turn's first request reads
   * `data_version` after every request of the turn arrived: a commit that ended before a request
   * was sent is seen by that read. The immediate that ends the turn runs before the loop polls
   * for the next requests (test/db/external-changes.test.ts revokes from the CLI between requests).
   * Under load a turn answers several requests, which then share the one read.
   */
  checkAtRequest(): boolean {
    if (this.checkedThisTurn) return false;
    this.checkedThisTurn = true;
    setImmediate(this.endTurn);
    this.beforeTurn();
    return this.check();
  }

  /** Called by the write function inside its transaction, right before COMMIT. */
  beforeCommit(): void {
    for (const listener of this.ownCommit) listener();
  }

  private read(): number {
    return this.dataVersion.values()[0]![0] as number;
  }
}
