// The directory's fuzzy `q`, answered from memory. A trigram index in SQLite (FTS5) had to read
// position lists of every trigram of the query, about 0.3 ms per query on 100k creators, and
// sorting its matches meant a row lookup each; with 16 requests in flight on one thread that
// alone put the p99 past 15 ms. Here each creator's haystack and sort keys sit in arrays, the
// query's rarest trigrams name the candidates, `includes` confirms them, and a bounded selection
// picks the page. The database stays the truth, read through the creators store on SQLite and
// PostgreSQL alike, creators keyed by `rowid` (SQLite's rowid, PostgreSQL's seq): writes only mark
// creators dirty, and they are re-read (committed state) before the next query. Another instance's
// commit on PostgreSQL names the creators it wrote (CREATORS_NOTE), and just those are re-read;
// when a commit does not say (SQLite's other processes, a PostgreSQL commit too big to list them)
// and the `creators_version` counter moved, the index is rebuilt, in slices so requests keep flowing.
// A build ends in a flat snapshot (directory-snapshot.ts); the creators re-read since sit beside it,
// in this process only, until the next build. The workers of `serve --workers N` share snapshots:
// one worker builds the snapshot of a counter value and the others map it (a shelf, see
// `shareWith`).
import type { ChangeNotifier } from "../../db/changes";
import type { MetaStore } from "../../db/meta-store";
import { CREATORS_NOTE, type CreatorsStore, type DirectoryIndexRow } from "../creators/store";
import { yieldToRequests } from "../../yield";
import { DIRECTORY_SORT_KEYS, DirectorySnapshot, type DirectorySnapshotShelf, type DirectorySortKey } from "./directory-snapshot";

export type { DirectorySortKey } from "./directory-snapshot";

/** The creators store's reads the index is filled and kept fresh with. */
export type DirectoryRows = Pick<CreatorsStore, "indexRowsAfter" | "indexRowsByIds" | "rowidsByHandlePrefix">;

/** Above this many slots appended for creators already indexed, the postings are rebuilt. */
const STALE_POSTINGS_LIMIT = 50_000;
/** Pages that end past this many rows are sorted whole instead of selected. */
const SELECT_TOP_UP_TO = 1_000;
/**
 * Rows read per slice of a build or of re-reading dirty creators; the event loop runs between
 * slices. 5,000 held the request thread for 70-100 ms of CPU at 100k creators (bench data set).
 */
const BUILD_SLICE = 2_000;
/** Candidates few enough to check in full rather than narrow by another trigram's postings. */
const NARROWED_ENOUGH = 16;
/** Ordered rows (about 8 bytes each) kept for recent queries until the next change. */
const WINDOW_SLOTS_KEPT = 500_000;
/**
 * Rows ordered for a query's first pages: they need few, and selecting a thousand costs more than
 * the rest of a fuzzy query. A page past them orders the whole window at once.
 */
const FIRST_WINDOW = 100;

export class DirectoryIndex {
  /** What the last build read (or took from another process), shared or not; never written to. */
  private base = DirectorySnapshot.empty();
  /** Slots: the snapshot's, then creators new since it. */
  private count = 0;
  /**
   * Rowid, sort keys (every sort is descending on its key, then ascending on id) and platform list
   * by slot. The snapshot's own arrays until this process changes a creator, then copies of them
   * (`own`), with room for new creators.
   */
  private rowids: Int32Array<ArrayBufferLike> = new Int32Array(0);
  private keys: Record<DirectorySortKey, Float64Array<ArrayBufferLike>> = { newest: new Float64Array(0), trust: new Float64Array(0), vouches: new Float64Array(0), deals: new Float64Array(0) };
  /**
   * Platform list by slot, as a number: lists repeat ("discord,roblox"), a few hundred at most, so
   * a filter decides each list once and then reads one number per creator (a string check per
   * creator took 10 ms over 100k creators).
   */
  private platformIds: Uint16Array<ArrayBufferLike> = new Uint16Array(0);
  private ownsArrays = false;
  private platformLists: string[] = [];
  private platformIdOf = new Map<string, number>();
  /** Slot + 1 by rowid (0: not indexed); rowids are dense. The snapshot's until a new creator comes. */
  private slotByRowid: Int32Array<ArrayBufferLike> = new Int32Array(0);
  private ownsSlotMap = false;
  /** Haystacks of the slots changed or added since the snapshot (the others are read from it). */
  private readonly changedHaystacks = new Map<number, string>();
  /** Ids of the slots added since the snapshot. */
  private addedIds: string[] = [];
  private lastId = "";
  /** Every slot's id, made only for sorting when ids do not follow slots; dropped when slots change. */
  private allIds: string[] | null = null;
  /**
   * Whether creator ids ascend with slots (creators are made with time-ordered ids and indexed in
   * rowid order): ties between equal sort keys are then broken by slot, not by comparing id strings,
   * which was most of a deep page's selection cost.
   */
  private idsFollowSlots = true;
  /**
   * Per query (text, platform, sort): how many match and the first of them in order, so paging
   * through a query, or many visitors asking the same (a platform, the whole list by trust), costs
   * one selection until the next change; any change empties it. The matches themselves are not
   * kept (a platform's are tens of thousands): a page past the first ones finds them again.
   */
  private readonly windows = new Map<string, { total: number; ordered: number[] }>();
  private windowSlots = 0;
  /** Slots per trigram appended since the snapshot (whose own postings are packed in it). */
  private recent = new Map<string, number[]>();
  private seen = new Int32Array(0);
  private stamp = 0;
  private staleAppends = 0;
  private built = false;
  /** Another process changed creators since the index was built. */
  private stale = false;
  /** This process changed creators in the transaction now open. */
  private ownWrite = false;
  private building: Promise<void> | null = null;
  private rereading: Promise<void> | null = null;
  /** Moves with every build, which gives creators new slots. */
  private generation = 0;
  private readonly dirty = new Set<string>();
  /** The counter as of everything the index reflects or has marked dirty. */
  private lastCreatorsVersion = "";
  /** After another process committed: whether it moved the creators counter (awaited by the next refresh). */
  private creatorsCheck: Promise<boolean> | null = null;
  /** Where the processes of one serve share snapshots; null: this process builds its own. */
  private shelf: DirectorySnapshotShelf | null = null;

  constructor(
    private readonly rows: DirectoryRows,
    changes: ChangeNotifier,
    private readonly meta: MetaStore,
  ) {
    changes.onExternalCommit((notes) => {
      // Not built nor building: the first build reads everything and the counter itself (a process
      // that never answers the directory, the supervisor of `serve --workers N`, reads nothing).
      if (!this.built && this.building === null) return;
      if (notes !== null) {
        // The creators the commit wrote (none when the topic is absent): re-read before the next query.
        const ids = (notes[CREATORS_NOTE] as string[] | undefined) ?? [];
        if (this.built || this.building) for (const id of ids) this.dirty.add(id);
        return;
      }
      // Every write moves the counter, this process's own too; those are recorded as they commit
      // (below), so a moved counter here is another process's change to creators.
      // Compared with the counter as this index knew it now, before a write of its own moves it.
      const known = this.lastCreatorsVersion;
      const earlier = this.creatorsCheck;
      // A failed read counts as a move: the index is rebuilt rather than left behind.
      this.creatorsCheck = this.readCreatorsVersion()
        .then(async (version) => version !== known || (earlier !== null && (await earlier)))
        .catch(() => true);
    });
    changes.onOwnCommit(() => {
      if (!this.ownWrite) return;
      this.ownWrite = false;
      // The read itself starts here, before COMMIT (on PostgreSQL inside the transaction); only
      // the assignment waits. A failed read leaves the older value: the next moved counter rebuilds.
      // On PostgreSQL the read may also take in another instance's commit whose notification is
      // still on its way; that matters only for a commit too big to name its creators (notes null).
      void this.readCreatorsVersion()
        .then((version) => {
          this.lastCreatorsVersion = version;
        })
        .catch(() => {});
    });
  }

  /** Whether queries can be answered now: the index is built and no (re)build is under way. */
  get ready(): boolean {
    return this.built && this.building === null;
  }

  /** Creators indexed (creators are never deleted). Call `refresh` first. */
  get size(): number {
    return this.count;
  }

  /**
   * Shares snapshots with the other processes of one serve: a build first looks for the snapshot of
   * the same counter value another has made, and a snapshot made here is offered to them.
   */
  shareWith(shelf: DirectorySnapshotShelf): void {
    this.shelf = shelf;
  }

  /** A creator changed (inside a transaction that may still roll back): re-read it before the next query. */
  markDirty(creatorId: string): void {
    this.ownWrite = true;
    if (this.built || this.building) this.dirty.add(creatorId);
  }

  /**
   * Brings the index up to date with what is committed: builds it on first use or after another
   * process wrote to creators, and re-reads the creators this process changed since the last call.
   */
  async refresh(): Promise<void> {
    if (this.creatorsCheck !== null && this.building === null) {
      // Reading the counter is asynchronous: meanwhile the index is not ready, as in a build.
      const check = this.creatorsCheck;
      this.creatorsCheck = null;
      this.building = check.then((moved) => (moved ? this.build() : undefined)).finally(() => {
        this.building = null;
      });
    }
    if (!this.built || this.stale || this.staleAppends > STALE_POSTINGS_LIMIT || this.dirty.size > this.count / 4) {
      this.building ??= this.build().finally(() => {
        this.building = null;
      });
    }
    if (this.building) await this.building;
    // One re-read at a time for every caller: a query waits for creators another caller took out of
    // the set and is still reading.
    while (this.dirty.size > 0 || this.rereading) {
      this.rereading ??= this.rereadDirty().finally(() => {
        this.rereading = null;
      });
      await this.rereading;
    }
  }

  /**
   * A job that rewrites many creators (the daily trust refresh) can leave tens of thousands dirty:
   * they are re-read a slice at a time. Creators marked meanwhile join the same set.
   */
  private async rereadDirty(): Promise<void> {
    while (this.dirty.size > 0) {
      const ids: string[] = [];
      for (const id of this.dirty) {
        this.dirty.delete(id);
        if (ids.push(id) === BUILD_SLICE) break;
      }
      // In rowid order, so creators new to the index take slots in the order they were made.
      const rows = await this.rows.indexRowsByIds(ids);
      for (const row of rows.sort((a, b) => a.rowid - b.rowid)) this.put(row);
      if (this.dirty.size > 0) await yieldToRequests();
    }
  }

  /**
   * Slots whose haystack holds `text` as typed; failing that, and when `text` has several words
   * of three or more characters, holds each of them. Optionally only creators on `platform`.
   * Call `refresh` first.
   */
  match(text: string, platform: string | null): number[] {
    const exact = this.scan([text], platform);
    if (exact.length > 0) return exact;
    const words = [...new Set(text.split(" ").filter((w) => [...w].length >= 3))];
    return words.length > 1 ? this.scan(words, platform) : exact;
  }

  /**
   * Slots of `handleRowids` (null: every creator), optionally only creators on `platform`. The
   * rowids of a handle prefix come from the database's handle index, which answers a prefix without
   * reading every handle. Call `refresh` first.
   */
  filter(handleRowids: number[] | null, platform: string | null): number[] {
    const on = this.platformFilter(platform);
    const out: number[] = [];
    if (handleRowids === null) {
      for (let slot = 0; slot < this.count; slot++) if (on === null || on[this.platformIds[slot]!]) out.push(slot);
      return out;
    }
    for (const rowid of handleRowids) {
      const slot = rowid < this.slotByRowid.length ? this.slotByRowid[rowid]! - 1 : -1;
      if (slot >= 0 && (on === null || on[this.platformIds[slot]!])) out.push(slot);
    }
    return out;
  }

  /** By platform list id, whether the list holds `platform`; null when there is no platform filter. */
  private platformFilter(platform: string | null): Uint8Array | null {
    if (platform === null) return null;
    const on = new Uint8Array(this.platformLists.length);
    for (let id = 0; id < on.length; id++) on[id] = `,${this.platformLists[id]},`.includes(`,${platform},`) ? 1 : 0;
    return on;
  }

  /**
   * One page (`offset` + `limit` within `window`) of the creators matching `text` (3+ characters:
   * `match`; shorter: a handle prefix, `filter`) on `platform`, in the order of `sort`, with how
   * many match in all. Call `refresh` first. Null when the index was rebuilt while a handle prefix
   * was read (its slots changed): the caller answers from the store instead.
   */
  async query(
    text: string,
    platform: string | null,
    sort: DirectorySortKey,
    offset: number,
    limit: number,
    window: number,
  ): Promise<{ total: number; rowids: number[] } | null> {
    const key = `${sort}\u0000${platform ?? ""}\u0000${text}`;
    const end = Math.min(offset + limit, window);
    let kept = this.windows.get(key);
    if (!kept || kept.ordered.length < Math.min(end, kept.total)) {
      let matches: number[];
      if ([...text].length >= 3) {
        matches = this.match(text, platform);
      } else {
        const generation = this.generation;
        const handleRowids = text === "" ? null : await this.rows.rowidsByHandlePrefix(text);
        if (generation !== this.generation || !this.ready) return null;
        matches = this.filter(handleRowids, platform);
        // A re-read creator meanwhile emptied the kept windows.
        kept = this.windows.get(key);
      }
      if (kept) this.windowSlots -= kept.ordered.length;
      else this.windows.set(key, (kept = { total: 0, ordered: [] }));
      kept.total = matches.length;
      kept.ordered = this.ordered(matches, sort, 0, end <= FIRST_WINDOW ? FIRST_WINDOW : window);
      this.windowSlots += kept.ordered.length;
    }
    // Over budget, the oldest queries go first.
    for (const [oldKey, old] of this.windows) {
      if (this.windowSlots <= WINDOW_SLOTS_KEPT || oldKey === key) break;
      this.windows.delete(oldKey);
      this.windowSlots -= old.ordered.length;
    }
    return { total: kept.total, rowids: kept.ordered.slice(offset, end).map((slot) => this.rowids[slot]!) };
  }

  /** Creators' rowids for one page of `slots` in the order of `sort`. */
  page(slots: number[], sort: DirectorySortKey, offset: number, limit: number): number[] {
    return this.ordered(slots, sort, offset, limit).map((slot) => this.rowids[slot]!);
  }

  /** One page of `slots` in the order of `sort`. */
  private ordered(slots: number[], sort: DirectorySortKey, offset: number, limit: number): number[] {
    const key = this.keys[sort];
    const ids = this.idsFollowSlots ? [] : (this.allIds ??= Array.from({ length: this.count }, (_, slot) => this.idOf(slot)));
    const before = this.idsFollowSlots
      ? (a: number, b: number) => key[b]! - key[a]! || a - b
      : (a: number, b: number) => key[b]! - key[a]! || (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0);
    const end = offset + limit;
    let ordered: number[];
    if (end >= slots.length || end > SELECT_TOP_UP_TO) {
      ordered = slots.slice().sort(before);
    } else {
      // A heap of the `end` best so far, the worst of them on top: O(matches x log(end)). Slots
      // follow creation order (and so, mostly, id order): walked backwards for "newest" and
      // forwards for the others (where ties fall back to the id), nearly every candidate after the
      // first few is turned away by one comparison.
      const heap: number[] = [];
      const worse = (i: number, j: number) => before(heap[i]!, heap[j]!) > 0;
      const swap = (i: number, j: number) => {
        const held = heap[i]!;
        heap[i] = heap[j]!;
        heap[j] = held;
      };
      const backwards = sort === "newest";
      for (let n = 0; n < slots.length; n++) {
        const slot = slots[backwards ? slots.length - 1 - n : n]!;
        if (heap.length < end) {
          heap.push(slot);
          for (let i = heap.length - 1; i > 0 && worse(i, (i - 1) >> 1); i = (i - 1) >> 1) swap(i, (i - 1) >> 1);
        } else if (before(slot, heap[0]!) < 0) {
          heap[0] = slot;
          for (let i = 0; ; ) {
            const left = 2 * i + 1;
            if (left >= end) break;
            const child = left + 1 < end && worse(left + 1, left) ? left + 1 : left;
            if (!worse(child, i)) break;
            swap(child, i);
            i = child;
          }
        }
      }
      ordered = heap.sort(before);
    }
    return ordered.slice(offset, end);
  }

  private scan(words: string[], platform: string | null): number[] {
    // Every trigram of every word is in the postings of each slot that matches (a changed haystack
    // gets postings for all its trigrams), so the postings of the rarest trigram name the candidates
    // and those of the next rarest narrow them: merging sorted typed arrays costs a fraction of a
    // full check, which reads a haystack string scattered in the heap per candidate (most of a fuzzy
    // query's cost when the rarest trigram still names thousands). The full check of every word
    // then drops stale postings and trigram coincidences.
    const grams: Array<{ packed: Int32Array | undefined; recent: number[] | undefined; count: number }> = [];
    const distinct = new Set<string>();
    for (const word of words) {
      for (let i = 0; i + 3 <= word.length; i++) {
        const gram = word.slice(i, i + 3);
        if (distinct.has(gram)) continue;
        distinct.add(gram);
        const packed = this.base.postingsOf(gram);
        const recent = this.recent.get(gram);
        const count = (packed?.length ?? 0) + (recent?.length ?? 0);
        if (count === 0) return [];
        grams.push({ packed, recent, count });
      }
    }
    if (grams.length === 0) return [];
    grams.sort((a, b) => a.count - b.count);
    if (this.seen.length < this.count) this.seen = new Int32Array(this.rowids.length);
    const seen = this.seen;
    // The rarest trigram's slots, ascending and once each.
    let candidates: number[] = [];
    const rarest = grams[0]!;
    if (rarest.packed) for (let i = 0; i < rarest.packed.length; i++) candidates.push(rarest.packed[i]!);
    if (rarest.recent && rarest.recent.length > 0) {
      for (const slot of rarest.recent) candidates.push(slot);
      candidates.sort((a, b) => a - b);
      let kept = 0;
      for (let i = 0; i < candidates.length; i++) if (i === 0 || candidates[i] !== candidates[kept - 1]) candidates[kept++] = candidates[i]!;
      candidates.length = kept;
    }
    for (let g = 1; g < grams.length && candidates.length > NARROWED_ENOUGH; g++) {
      const { packed, recent } = grams[g]!;
      // Slots appended since the build are few: marked, then looked up by stamp.
      const stamp = ++this.stamp;
      if (recent) for (const slot of recent) seen[slot] = stamp;
      const narrowed: number[] = [];
      let at = 0;
      const end = packed?.length ?? 0;
      for (const slot of candidates) {
        if (seen[slot] === stamp) {
          narrowed.push(slot);
          continue;
        }
        // Galloping: candidates ascend, so the search in `packed` resumes where it stopped.
        if (at < end && packed![at]! < slot) {
          let step = 1;
          let low = at;
          while (at + step < end && packed![at + step]! < slot) {
            low = at + step;
            step *= 2;
          }
          let high = Math.min(at + step, end);
          // packed[low] < slot <= packed[high] (or high = end): binary search between them.
          while (low + 1 < high) {
            const mid = (low + high) >> 1;
            if (packed![mid]! < slot) low = mid;
            else high = mid;
          }
          at = high;
        }
        if (at < end && packed![at] === slot) narrowed.push(slot);
      }
      candidates = narrowed;
    }
    const on = this.platformFilter(platform);
    const out: number[] = [];
    const base = this.base;
    const changed = this.changedHaystacks.size > 0 ? this.changedHaystacks : null;
    next: for (const slot of candidates) {
      const haystack = changed?.get(slot);
      if (haystack === undefined) {
        for (let w = 0; w < words.length; w++) if (!base.includes(slot, words[w]!)) continue next;
      } else {
        for (let w = 0; w < words.length; w++) if (!haystack.includes(words[w]!)) continue next;
      }
      if (on !== null && !on[this.platformIds[slot]!]) continue;
      out.push(slot);
    }
    return out;
  }

  private async build() {
    this.generation++;
    // Changes made during the build are marked dirty and re-read after it.
    this.dirty.clear();
    this.stale = false;
    this.built = false;
    const version = await this.readCreatorsVersion();
    this.lastCreatorsVersion = version;
    // Another process of this serve may have made (or be making) the snapshot of this very state.
    const taken = this.shelf ? await this.shelf.take(version) : null;
    const snapshot = taken && DirectorySnapshot.read(taken);
    if (snapshot && snapshot.version === version) {
      this.adopt(snapshot);
      this.built = true;
      return;
    }
    let making = this.shelf !== null && taken === null;
    try {
      this.adopt(DirectorySnapshot.empty());
      let after = 0;
      for (;;) {
        const rows = await this.rows.indexRowsAfter(after, BUILD_SLICE);
        for (const row of rows) this.put(row);
        if (rows.length < BUILD_SLICE) break;
        after = rows[rows.length - 1]!.rowid;
        await yieldToRequests();
      }
      // The rows are the state of `version` only when no write to creators committed meanwhile;
      // otherwise this snapshot stays here (and the write that moved the counter rebuilds it).
      if (making && (await this.readCreatorsVersion()) !== version) {
        this.shelf!.abandon();
        making = false;
      }
      const writer = DirectorySnapshot.writer(this.content(version));
      let bytes: Uint8Array;
      if (making) {
        making = false;
        bytes = this.shelf!.publish(writer.bytes, writer.write);
      } else {
        bytes = new Uint8Array(writer.bytes);
        writer.write(bytes);
      }
      // Creators re-read while the build ran are dirty again, and re-read after it.
      this.adopt(DirectorySnapshot.read(bytes)!);
      this.built = true;
    } finally {
      if (making) this.shelf!.abandon();
    }
  }

  /** What a snapshot of the index as built is written from (every slot was added by the build). */
  private content(version: string) {
    const count = this.count;
    const postings = new Map<string, Int32Array>();
    // Ascending, as `scan` merges them: slots are given in rowid order, but a creator re-read
    // while the build ran may have appended its older slot.
    for (const [gram, slots] of this.recent) postings.set(gram, ascendingOnce(slots));
    return {
      version,
      count,
      rowids: this.rowids.subarray(0, count),
      id: (slot: number) => this.idOf(slot),
      haystack: (slot: number) => this.haystackOf(slot),
      keys: Object.fromEntries(DIRECTORY_SORT_KEYS.map((key) => [key, this.keys[key].subarray(0, count)])) as Record<DirectorySortKey, Float64Array>,
      platformIds: this.platformIds.subarray(0, count),
      platformLists: this.platformLists,
      slotByRowid: this.slotByRowid,
      postings,
      idsFollowSlots: this.idsFollowSlots,
    };
  }

  /** Makes `snapshot` the index, with no creator changed since. */
  private adopt(snapshot: DirectorySnapshot) {
    this.base = snapshot;
    this.count = snapshot.count;
    this.rowids = snapshot.rowids;
    this.keys = { ...snapshot.keys };
    this.platformIds = snapshot.platformIds;
    this.ownsArrays = false;
    this.slotByRowid = snapshot.slotByRowid;
    this.ownsSlotMap = false;
    this.platformLists = [...snapshot.platformLists];
    this.platformIdOf = new Map(this.platformLists.map((list, id) => [list, id]));
    this.changedHaystacks.clear();
    this.addedIds = [];
    this.lastId = snapshot.count > 0 ? snapshot.id(snapshot.count - 1) : "";
    this.allIds = null;
    this.idsFollowSlots = snapshot.idsFollowSlots;
    this.recent = new Map();
    this.staleAppends = 0;
    this.windows.clear();
    this.windowSlots = 0;
  }

  private haystackOf(slot: number): string {
    return this.changedHaystacks.get(slot) ?? this.base.haystack(slot);
  }

  private idOf(slot: number): string {
    return slot < this.base.count ? this.base.id(slot) : this.addedIds[slot - this.base.count]!;
  }

  /**
   * Before a change: arrays of this process's own (never the snapshot's, which other processes may
   * be reading), with room for `slots` slots and for `rowid`.
   */
  private own(slots: number, rowid: number) {
    const capacity = this.ownsArrays ? this.rowids.length : 0;
    if (slots > capacity) {
      const size = Math.max(1024, slots, this.ownsArrays ? capacity * 2 : this.count + (this.count >> 3));
      const grow = <T extends Int32Array<ArrayBufferLike> | Float64Array<ArrayBufferLike> | Uint16Array<ArrayBufferLike>>(from: T, to: T): T => {
        to.set(from.subarray(0, this.count));
        return to;
      };
      this.rowids = grow(this.rowids, new Int32Array(size));
      for (const key of DIRECTORY_SORT_KEYS) this.keys[key] = grow(this.keys[key], new Float64Array(size));
      this.platformIds = grow(this.platformIds, new Uint16Array(size));
      this.ownsArrays = true;
    }
    if (!this.ownsSlotMap || rowid >= this.slotByRowid.length) {
      const grown = new Int32Array(Math.max(1024, this.slotByRowid.length, rowid >= this.slotByRowid.length ? rowid * 2 : 0));
      grown.set(this.slotByRowid);
      this.slotByRowid = grown;
      this.ownsSlotMap = true;
    }
  }

  /** The counter the creators triggers move on every write (src/db/meta-store.ts). */
  private async readCreatorsVersion(): Promise<string> {
    return (await this.meta.value("creators_version")) ?? "";
  }

  private put(row: DirectoryIndexRow) {
    this.windows.clear();
    this.windowSlots = 0;
    const stored = row.rowid < this.slotByRowid.length ? this.slotByRowid[row.rowid]! : 0;
    const known = stored > 0;
    let slot = stored - 1;
    const changed = !known || this.haystackOf(slot) !== row.search_text;
    this.own(known ? this.count : this.count + 1, row.rowid);
    if (!known) {
      slot = this.count++;
      this.slotByRowid[row.rowid] = slot + 1;
      if (slot > 0 && this.lastId >= row.id) this.idsFollowSlots = false;
      this.lastId = row.id;
      this.rowids[slot] = row.rowid;
      this.addedIds.push(row.id);
      this.allIds = null;
    }
    if (changed) this.changedHaystacks.set(slot, row.search_text);
    this.keys.newest[slot] = row.created_at;
    this.keys.trust[slot] = row.trust_score;
    this.keys.vouches[slot] = row.vouch_count;
    this.keys.deals[slot] = row.deal_count;
    let platformId = this.platformIdOf.get(row.platforms);
    if (platformId === undefined) {
      platformId = this.platformLists.push(row.platforms) - 1;
      this.platformIdOf.set(row.platforms, platformId);
    }
    this.platformIds[slot] = platformId;
    if (!changed) return;
    // A changed haystack gets postings for its trigrams; the old ones stay until the next build
    // and are filtered out by the full check.
    // Trigrams of UTF-16 code units, the same cut the query gets; a trigram seen twice in one
    // haystack finds this slot already at the end of its list.
    const text = row.search_text;
    for (let i = 0; i + 3 <= text.length; i++) {
      const gram = text.slice(i, i + 3);
      const list = this.recent.get(gram);
      if (!list) this.recent.set(gram, [slot]);
      else if (list[list.length - 1] !== slot) list.push(slot);
    }
    if (known) this.staleAppends++;
  }
}

/** `slots` as a typed array, ascending, each once. */
function ascendingOnce(slots: number[]): Int32Array {
  let ascending = true;
  for (let i = 1; i < slots.length && ascending; i++) if (slots[i]! <= slots[i - 1]!) ascending = false;
  if (ascending) return Int32Array.from(slots);
  const sorted = Int32Array.from(slots).sort();
  let kept = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[kept - 1]) sorted[kept++] = sorted[i]!;
  return sorted.slice(0, kept);
}
