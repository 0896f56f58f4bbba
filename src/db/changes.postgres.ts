// PostgreSQL's change notifier (the contract: changes.ts). Other instances' commits come as
// notifications on the `trustlist_changes` channel (postgres.ts listens and calls `receive`); a
// keyed request does not wait for one, and reads the `keys_version` row instead.
import type { SQL } from "bun";
import type { ChangeNotifier, CommitNotes } from "./changes";

/**
 * The `meta` row a trigger moves with every update or delete of API keys or accounts, in the
 * writer's transaction (migration 0010): whoever revoked a key, the row says so once it committed.
 */
const KEYS_VERSION = "keys_version";

export class PostgresChanges implements ChangeNotifier {
  private readonly external: Array<(notes: CommitNotes) => void> = [];
  private readonly ownCommit: Array<() => void> = [];
  private readonly keysChanged: Array<() => void> = [];
  /** The highest `keys_version` read so far; null before the first read. */
  private keysSeen: bigint | null = null;
  /** This turn's read of `keys_version`, shared by the keyed requests the turn answers. */
  private keysReadThisTurn: Promise<void> | null = null;
  private readonly endTurn = () => {
    this.keysReadThisTurn = null;
  };

  constructor(private readonly pool: SQL) {}

  onExternalCommit(listener: (notes: CommitNotes) => void): void {
    this.external.push(listener);
  }

  onOwnCommit(listener: () => void): void {
    this.ownCommit.push(listener);
  }

  /** Notifications are pushed (LISTEN), so there is nothing to poll: false. */
  check(): boolean {
    return false;
  }

  checkAtRequest(): boolean {
    return false;
  }

  beforeCommit(): void {
    for (const listener of this.ownCommit) listener();
  }

  /** Another instance committed. */
  receive(notes: CommitNotes): void {
    for (const listener of this.external) listener(notes);
  }

  onKeysChanged(listener: () => void): void {
    this.keysChanged.push(listener);
  }

  /**
   * Reads `keys_version` once per turn of the event loop, for the keyed requests that turn
   * answers, and tells the listeners when it moved. The read is sent after every request of the
   * turn arrived, so it sees every revoke committed before one of them was sent, however late
   * that commit's notification comes (or if it never does). Mirrors SQLite's `checkAtRequest`; it
   * costs a primary-key read per turn, which the requests of a busy turn share.
   */
  keysAtRequest(): Promise<void> {
    if (this.keysReadThisTurn) return this.keysReadThisTurn;
    setImmediate(this.endTurn);
    this.keysReadThisTurn = this.readKeysVersion();
    return this.keysReadThisTurn;
  }

  private async readKeysVersion(): Promise<void> {
    const [row] = await this.pool`SELECT value::bigint AS version FROM meta WHERE key = ${KEYS_VERSION}`;
    if (!row) return; // a database migrated by an older build: only notifications tell
    const version = BigInt(row.version);
    // Reads of earlier turns may come back after this one: only a higher value is news. The
    // first read tells the listeners too: what they hold was loaded before anything was read.
    if (this.keysSeen !== null && version <= this.keysSeen) return;
    this.keysSeen = version;
    for (const listener of this.keysChanged) listener();
  }
}
