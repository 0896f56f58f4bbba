// Memory shared by the worker processes of one `serve --workers N`: a file mapped MAP_SHARED by
// every worker (Bun.mmap), read and written with Atomics. It holds what must be one value across
// the workers however a request is routed: how many workers are up, the locks of the jobs, the
// accounts' daily counts and the keys' burst buckets. The supervisor creates the file owner-only
// in a private temporary folder and removes both at once: the workers inherit its open descriptor
// and map it through /proc/self/fd, so nothing is left behind however the processes end.
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const MAGIC = 0x74_6c_77_31; // "tlw1"
const HEADER_WORDS = 16;
/** Header words (Int32 indices). */
const WORKERS_UP = 1;
const KEY_GENERATION = 2;
/** The directory snapshot last published: the pid of the process holding it open, and its descriptor there. */
const SNAPSHOT_PID = 3;
const SNAPSHOT_FD = 4;
export const JOB_LOCKS = 64;
/** The lock of whoever makes a directory snapshot (server/shared-snapshots.ts): the last of the job locks, which jobs never reach. */
export const DIRECTORY_SNAPSHOT_LOCK = JOB_LOCKS - 1;

/** One slot of a table: Int32 [lock, key high, key low, spare] then Float64 [a, b, c, spare]. */
const SLOT_BYTES = 48;
const SLOT_INTS = SLOT_BYTES / 4;
const SLOT_DOUBLES = SLOT_BYTES / 8;
/** Slots of a table a key may land in, from its hash onwards, before it gives up. */
const PROBES = 16;
/**
 * Slots per table: 65,536 (3 MB of address space each; only the pages touched are resident).
 * Daily counts of past days and refilled buckets are taken over, so this bounds the accounts
 * calling in one day and the keys in the middle of a burst, not the keys that exist.
 */
export const TABLE_SLOTS = 1 << 16;

const TABLES = 2;
export const QUOTA_TABLE = 0;
export const BUCKET_TABLE = 1;

const HEADER_BYTES = HEADER_WORDS * 4 + JOB_LOCKS * 4;
const TABLE_BYTES = TABLE_SLOTS * SLOT_BYTES;
export const REGION_BYTES = HEADER_BYTES + TABLES * TABLE_BYTES;

/** The descriptor a worker finds the region's file at (the supervisor passes it as the fourth stdio entry). */
export const WORKER_REGION_FD = 3;

/** A new region: its file is already removed; `fd` keeps it open for the workers to inherit. */
export function createRegion(): { region: SharedRegion; fd: number; close(): void } {
  const fd = createRemovedFile("trustlist-workers-", REGION_BYTES);
  const region = new SharedRegion(`/proc/self/fd/${fd}`);
  Atomics.store(region.ints, 0, MAGIC);
  return { region, fd, close: () => closeSync(fd) };
}

/**
 * An owner-only file of `bytes` in a private folder named from `prefix`, already removed: open
 * only through the descriptor returned (and /proc/<pid>/fd/<fd>), so nothing is left behind
 * however the processes end. Memory-backed (/dev/shm) where the system has it: these files are
 * never meant for the disk.
 */
export function createRemovedFile(prefix: string, bytes: number): number {
  let dir: string;
  try {
    dir = mkdtempSync(join("/dev/shm", prefix));
  } catch {
    dir = mkdtempSync(join(tmpdir(), prefix));
  }
  try {
    const fd = openSync(join(dir, "file"), "wx+", 0o600);
    try {
      ftruncateSync(fd, bytes);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return fd;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A 64-bit hash of an id as two Int32 words, never both zero (zero marks an empty slot). */
export type SlotKey = readonly [number, number];

export class SharedRegion {
  readonly ints: Int32Array;
  readonly doubles: Float64Array;
  private readonly pid = process.pid;
  private readonly keys = new Map<string, SlotKey>();
  /** Whether the slot `acquire` returned was just claimed for its key (its values are stale). */
  fresh = false;

  constructor(path: string) {
    const bytes = Bun.mmap(path, { shared: true });
    if (bytes.byteLength < REGION_BYTES) throw new Error(`shared memory file ${path} is too small`);
    this.ints = new Int32Array(bytes.buffer, bytes.byteOffset, REGION_BYTES / 4);
    this.doubles = new Float64Array(bytes.buffer, bytes.byteOffset, REGION_BYTES / 8);
    const magic = Atomics.load(this.ints, 0);
    if (magic !== 0 && magic !== MAGIC) throw new Error(`${path} is not the shared memory of this trustlist's workers`);
  }

  get workersUp(): number {
    return Atomics.load(this.ints, WORKERS_UP);
  }

  set workersUp(count: number) {
    Atomics.store(this.ints, WORKERS_UP, count);
  }

  /** Bumped by a worker that changed keys or accounts (KeyRegistry.shareWith). */
  readonly keyGeneration = {
    read: () => Atomics.load(this.ints, KEY_GENERATION),
    bump: () => Atomics.add(this.ints, KEY_GENERATION, 1) + 1,
  };

  /** The directory snapshot last published (pid 0: none yet). */
  get directorySnapshot(): { pid: number; fd: number } {
    return { pid: Atomics.load(this.ints, SNAPSHOT_PID), fd: Atomics.load(this.ints, SNAPSHOT_FD) };
  }

  set directorySnapshot({ pid, fd }: { pid: number; fd: number }) {
    // A reader that sees the old pid with the new descriptor opens some other file, and refuses it.
    Atomics.store(this.ints, SNAPSHOT_PID, 0);
    Atomics.store(this.ints, SNAPSHOT_FD, fd);
    Atomics.store(this.ints, SNAPSHOT_PID, pid);
  }

  /** The hash of an id, kept per id (ids are keys and accounts: bounded by the database). */
  keyOf(id: string): SlotKey {
    let key = this.keys.get(id);
    if (!key) {
      const hash = Bun.hash.wyhash(id);
      const high = Number(hash >> 32n) | 0;
      const low = Number(hash & 0xffff_ffffn) | 0;
      key = high === 0 && low === 0 ? [0, 1] : [high, low];
      if (this.keys.size >= 1_000_000) this.keys.clear();
      this.keys.set(id, key);
    }
    return key;
  }

  /**
   * Takes job lock `index` for this process; false while a live process holds it. A lock left by
   * a process that died is taken over.
   */
  tryLock(index: number): boolean {
    const word = HEADER_WORDS + (index % JOB_LOCKS);
    for (;;) {
      const holder = Atomics.compareExchange(this.ints, word, 0, this.pid);
      if (holder === 0 || holder === this.pid) return holder === 0;
      if (isAlive(holder)) return false;
      if (Atomics.compareExchange(this.ints, word, holder, this.pid) === holder) return true;
    }
  }

  unlock(index: number): void {
    Atomics.compareExchange(this.ints, HEADER_WORDS + (index % JOB_LOCKS), this.pid, 0);
  }

  /**
   * Finds `key`'s slot in `table` and locks it: the slot holding the key, else an empty one or one
   * `reclaimable` says holds nothing worth keeping (then `fresh` is true). -1 when the PROBES slots
   * from the key's hash all hold other live keys. Hold the lock for a few loads and stores only,
   * then `release`.
   */
  acquire(table: number, key: SlotKey, reclaimable: (slot: number) => boolean): number {
    const [high, low] = key;
    const start = (low ^ (high >>> 7)) & (TABLE_SLOTS - 1);
    for (let probe = 0; probe < PROBES; probe++) {
      const slot = table * TABLE_SLOTS + ((start + probe) & (TABLE_SLOTS - 1));
      const base = HEADER_BYTES / 4 + slot * SLOT_INTS;
      this.lockSlot(base);
      const h = this.ints[base + 1]!;
      const l = this.ints[base + 2]!;
      if (h === high && l === low) {
        this.fresh = false;
        return slot;
      }
      if ((h === 0 && l === 0) || reclaimable(slot)) {
        this.ints[base + 1] = high;
        this.ints[base + 2] = low;
        this.fresh = true;
        return slot;
      }
      Atomics.store(this.ints, base, 0);
    }
    return -1;
  }

  release(slot: number): void {
    Atomics.store(this.ints, HEADER_BYTES / 4 + slot * SLOT_INTS, 0);
  }

  /** Index into `doubles` of value `n` (0-2) of a slot. */
  value(slot: number, n: number): number {
    return HEADER_BYTES / 8 + slot * SLOT_DOUBLES + 2 + n;
  }

  /** A spin lock: held for nanoseconds; one left by a process that died is taken over. */
  private lockSlot(base: number): void {
    let spins = 0;
    for (;;) {
      const holder = Atomics.compareExchange(this.ints, base, 0, this.pid);
      if (holder === 0) return;
      if (++spins % 100_000 === 0 && !isAlive(holder)) {
        if (Atomics.compareExchange(this.ints, base, holder, this.pid) === holder) return;
      }
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
