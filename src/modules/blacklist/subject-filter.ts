// A Bloom filter over every subject (provider + platform id) that has an active row. Most checks
// are of accounts nobody ever reported; when the filter says a subject cannot be present, the
// check answers without touching the database. A "maybe" goes to the database as before, so a false positive
// costs only the lookup it would have cost anyway.
//
// Freshness: this process adds the rows it writes. When another process (the CLI, an import) has
// committed, the store's change notifier says so before the request reads anything
// (`noticeExternalWrite`): from then on every check answers "maybe" (SQLite decides) until the
// rows past the last one seen are in, read in slices so a million imported rows do not stall
// the requests meanwhile. On PostgreSQL another instance's notification lists the subjects its
// commit listed, and they are added on receipt: no read, and no "maybe" window.
import { yieldToRequests } from "../../yield";
import type { BlacklistStore, SubjectKey } from "./store";

const HASHES = 7;
/** Bits per expected subject: about 0.1 % false positives at 16 with 7 hashes. */
const BITS_PER_SUBJECT = 16;
const MIN_BITS = 1 << 20;
/**
 * Rows per slice of a fill: 20,000 held the request thread for 52 ms of CPU at 1M entries, and
 * 10,000 still up to 60 ms on a cold page cache, while requests streamed beside a start (the
 * start's worst wait was 170-240 ms); 2,500 reads at most a few ms, and the whole fill is no slower.
 */
const CHUNK = 2_500;
/**
 * Rows per slice when catching up with another process's rows: the first slice after a 300k-entry
 * import took 41 ms at 20,000 rows (busy 2-core machine); 5,000 keeps a slice near 10 ms.
 */
const CATCH_UP_SLICE = 5_000;

export class SubjectFilter {
  private bits = new Uint32Array(MIN_BITS / 32);
  private mask = MIN_BITS - 1;
  private subjects = 0;
  private lastRowid = 0;
  /** Another process's commits announced, and how many of them have all their rows in. */
  private noticed = 0;
  private takenIn = 0;
  private catchingUp: Promise<void> | null = null;
  private building: Promise<void> | null = null;
  /**
   * Whether a fill was ever asked for. Until then another process's commits are not read: the
   * fill reads every row anyway, and a process that never checks (the supervisor of
   * `serve --workers N`) would otherwise read the whole table into a filter nobody asks.
   */
  private wanted = false;
  /** True once every row present at start has been added: only then is a "no" trusted. */
  ready = false;

  /**
   * Rows are read through the blacklist's store. Where rows have no storing order (PostgreSQL),
   * another instance's commit makes the filter refill itself, answering "maybe" meanwhile.
   */
  constructor(private readonly store: BlacklistStore) {}

  /**
   * Fills the filter in chunks, yielding between them so requests keep flowing (and the first
   * request is not kept waiting). Rows other processes write while it runs are past `lastRowid`,
   * and the catch-up after it brings them in.
   */
  build(): Promise<void> {
    this.wanted = true;
    this.building ??= (async () => {
      await yieldToRequests();
      const last = await this.store.lastPosition();
      this.lastRowid = last ?? 0;
      // max(rowid) counts every row ever written, a fair upper bound of the active ones; without
      // it, the size the last fill found.
      this.resize(last ?? this.subjects);
      let after: SubjectKey = ["", ""];
      for (;;) {
        const rows = await this.store.subjectsAfter(after, CHUNK);
        for (const [provider, id] of rows) this.add(provider, id);
        if (rows.length < CHUNK) break;
        after = rows[rows.length - 1]!;
        await yieldToRequests();
      }
      this.ready = true;
    })().finally(() => {
      this.building = null;
      // Sized without a row count (PostgreSQL's first fill): now that the count is known, refill
      // at the right size (it answers "maybe" meanwhile, as before the first fill).
      if (this.ready && this.outgrown()) {
        void this.rebuild();
        return;
      }
      // Another process may have committed while we walked: take its rows in now.
      this.startCatchUp();
    });
    return this.building;
  }

  /**
   * Another process has committed. With the subjects it listed (PostgreSQL's notification says),
   * they are added at once; without (null: SQLite, or too many to tell), every check asks the
   * database until the rows past the last one seen are in.
   */
  noticeExternalWrite(subjects: readonly SubjectKey[] | null = null): void {
    if (!this.wanted) return;
    if (subjects !== null) {
      for (const [provider, id] of subjects) this.add(provider, id);
      // A fill in progress reads the table as it is now, and is still answering "maybe".
      return;
    }
    this.noticed++;
    this.startCatchUp();
  }

  /** False only when no active row can exist for this subject. */
  mightContain(provider: string, id: string): boolean {
    if (!this.ready || this.takenIn !== this.noticed) return true;
    return this.test(provider, id);
  }

  private startCatchUp(): void {
    if (this.building || this.takenIn === this.noticed) return;
    // Work no request awaits: a failed read (the database closed or gone) leaves the unread commits
    // unread, so every check answers "maybe" (always right) until a later catch-up reads them.
    this.catchingUp ??= this.catchUp()
      .catch(() => {})
      .finally(() => {
        this.catchingUp = null;
      });
  }

  /** Takes in the rows past the last one seen, a slice at a time, until no commit is left unread. */
  private async catchUp(): Promise<void> {
    while (this.takenIn !== this.noticed) {
      const upTo = this.noticed;
      // Not inside the request that noticed: it goes on at once (its check asks SQLite meanwhile).
      let refill = false;
      for (;;) {
        await yieldToRequests();
        const taken = await this.takeRows(CATCH_UP_SLICE);
        if (taken === null) {
          refill = true;
          break;
        }
        if (taken < CATCH_UP_SLICE) break;
      }
      if (refill) {
        // No storing order to resume from: fill again (every check asks the database meanwhile).
        this.takenIn = upTo;
        void this.rebuild();
        return;
      }
      this.takenIn = upTo;
    }
    if (this.outgrown()) void this.rebuild();
  }

  /** Past half the bits per subject it was sized for, false positives climb. */
  private outgrown(): boolean {
    return this.subjects > (this.bits.length * 32) / (BITS_PER_SUBJECT / 2);
  }

  /**
   * Records a subject this process has just written. Before any fill was asked for there is
   * nothing to keep up: the fill reads every row (the CLI's import of 1M entries spent 0.4 s
   * hashing subjects for a filter its process never asks).
   */
  add(provider: string, id: string): void {
    if (!this.wanted) return;
    const [h1, h2] = hashes(provider, id);
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + i * h2) & this.mask;
      this.bits[bit >>> 5]! |= 1 << (bit & 31);
    }
    this.subjects++;
  }

  /** Whether it keeps up with this process's writes: not before a fill was asked for (`add`). */
  get keepingUp(): boolean {
    return this.wanted;
  }

  get size() {
    return this.subjects;
  }

  private test(provider: string, id: string): boolean {
    const [h1, h2] = hashes(provider, id);
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + i * h2) & this.mask;
      if ((this.bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }

  /** Adds up to `limit` active rows past the last seen rowid; returns how many it read (null: no order to resume from). */
  private async takeRows(limit: number): Promise<number | null> {
    const rows = await this.store.rowsAfter(this.lastRowid, limit);
    if (rows === null) return null;
    for (const row of rows) this.add(row.provider, row.providerUserId);
    if (rows.length > 0) this.lastRowid = rows[rows.length - 1]!.position;
    return rows.length;
  }

  private resize(expected: number) {
    let size = MIN_BITS;
    while (size < expected * BITS_PER_SUBJECT) size *= 2;
    this.bits = new Uint32Array(size / 32);
    this.mask = size - 1;
    this.subjects = 0;
  }

  /** The list outgrew the filter (false positives climb): build a larger one, answering "maybe" meanwhile. */
  /**
   * Work no request awaits: a failed read (the database closed or gone) leaves the filter not
   * ready, answering "maybe" (always right), instead of an unhandled rejection.
   */
  private async rebuild() {
    if (this.building) return;
    this.ready = false;
    await this.build().catch(() => {});
  }
}

function hashes(provider: string, id: string): [number, number] {
  const key = `${provider}:${id}`;
  // Double hashing: probe i is h1 + i * h2; an odd h2 visits distinct bits.
  return [Bun.hash.murmur32v3(key, 0x5bd1e995) >>> 0, (Bun.hash.murmur32v3(key, 0x1b873593) | 1) >>> 0];
}
