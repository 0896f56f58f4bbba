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
// `shareWith`). The trigram postings (directory-postings.ts), the orders pages are cut from
// (directory-paging.ts) and the tracking of changes to catch up on (directory-freshness.ts) live
// beside it. Kept as one file because what remains is one state: the slot arrays, the build that
// fills them or adopts a snapshot, and the queries that read them, which a build swaps whole.
import type { Database } from "../../db/database";
import type { MetaStore } from "../../db/meta-store";
import type { CreatorsStore, DirectoryIndexRow } from "../creators/store";
import { yieldToRequests } from "../../yield";
import { CreatorChanges } from "./directory-freshness";
import { countedOrder, firstInOrder } from "./directory-paging";
import { appendPostings, type GramPostings, narrow, packPostings, slotsOf } from "./directory-postings";
import { DIRECTORY_SORT_KEYS, DirectorySnapshot, type DirectorySnapshotContent, type DirectorySnapshotShelf, type DirectorySortKey } from "./directory-snapshot";

export type { DirectorySortKey } from "./directory-snapshot";

/** The creators store's reads the index is filled and kept fresh with. */
export type DirectoryRows = Pick<CreatorsStore, "indexRowsAfter" | "indexRowsByIds" | "rowidsByHandlePrefix">;

/** Above this many slots appended for creators already indexed, the postings are rebuilt. */
const STALE_POSTINGS_LIMIT = 50_000;
/**
 * Rows read per slice of re-reading dirty creators (each also gets its postings); the event loop
 * runs between slices. 5,000 held the request thread for 70-100 ms of CPU at 100k creators (bench
 * data set).
 */
const BUILD_SLICE = 2_000;
/** Rows read per slice of a build, which computes the postings later: 3-5 ms each. */
const READ_SLICE = 5_000;
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
   * Rowid and sort keys by slot (every sort is descending on its key, then ascending on id). The
   * snapshot's own arrays until this process changes a creator, then copies of them (`own`), with
   * room for new creators.
   */
  private rowids: Int32Array<ArrayBufferLike> = new Int32Array(0);
  private keys: Record<DirectorySortKey, Float64Array<ArrayBufferLike>> = {
    newest: new Float64Array(0),
    trust: new Float64Array(0),
    vouches: new Float64Array(0),
    deals: new Float64Array(0),
  };
  /**
   * Platform list by slot, as a number: lists repeat ("discord,roblox"), a few hundred at most, so
   * a filter decides each list once and then reads one number per creator (a string check per
   * creator took 10 ms over 100k creators).
   */
  private platformIds: Uint16Array<ArrayBufferLike> = new Uint16Array(0);
  private ownsArrays = false;
  private platformLists: string[] = [];
  private platformIdOf = new Map<string, number>();
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
   * Per query (text, platform, sort), least recently asked first: how many match and the first of
   * them in order, so paging through a query, or many visitors asking the same (a platform, the
   * whole list by trust), costs one selection until the next change; any change empties it. The matches themselves are not
   * kept (a platform's are tens of thousands): a page past the first ones finds them again.
   */
  private readonly windows = new Map<string, { total: number; ordered: number[] }>();
  /** Every slot in a sort's order (`sortedSlots`), until the next change. */
  private readonly orders = new Map<DirectorySortKey, Int32Array>();
  private windowSlots = 0;
  /** Slot + 1 by rowid (0: not indexed); rowids are dense. The snapshot's until a new creator comes. */
  private slotByRowid: Int32Array<ArrayBufferLike> = new Int32Array(0);
  private ownsSlotMap = false;
  /** Slots per trigram appended since the snapshot (whose own postings are packed in it). */
  private recent = new Map<string, number[]>();
  private seen = new Int32Array(0);
  private stamp = 0;
  private staleAppends = 0;
  /** Whether a changed haystack gets its postings as it is put (not while the build computes them all). */
  private postingsLive = false;
  /** A build has read every creator (its postings may still be under way). */
  private rowsRead = false;
  /** Queries waiting for the build under way to read every creator (or to end). */
  private rowsReadWaiters: Array<() => void> = [];
  private built = false;
  /** Another process changed creators since the index was built. */
  private stale = false;
  private building: Promise<void> | null = null;
  private rereading: Promise<void> | null = null;
  /** Moves with every build, which gives creators new slots. */
  private generation = 0;
  /** What to catch up on before the next answer: creators to re-read, a counter to check. */
  private readonly changes: CreatorChanges;
  /** Where the processes of one serve share snapshots; null: this process builds its own. */
  private shelf: DirectorySnapshotShelf | null = null;
  /** Waiting for the snapshot another process of the serve is making. */
  private awaitingShared = false;

  /** `database`: its commits, this process's and the others', are what the index catches up on. */
  constructor(
    private readonly rows: DirectoryRows,
    database: Pick<Database, "changes" | "afterCommit">,
    meta: MetaStore,
  ) {
    this.changes = new CreatorChanges(database, meta, () => this.built || this.building !== null);
  }

  /** Whether the index is built and no (re)build is under way. */
  get ready(): boolean {
    return this.built && this.building === null;
  }

  /**
   * Whether queries can be answered now, without waiting: the index is ready, or a build has read
   * every creator and is computing the postings (a fuzzy query then reads every haystack, a few
   * milliseconds at 100k creators, against tens for a scan in the database), with no change to
   * creators to re-read or check for meanwhile.
   */
  get answerable(): boolean {
    if (this.ready) return true;
    return this.rowsRead && !this.changesPending();
  }

  /**
   * Whether queries can be answered by the index (`answerable`), once the build under way has read
   * every creator: a query waits for that part of a build (about 0.1 s at 100k creators, 5,000 rows
   * a slice with requests served between them). A database scan meanwhile cost 30-60 ms of the
   * request thread a query at 100k, and each one held back the build's next slice. False when
   * creators changed since the build began (to re-read or check for), or while another process of
   * the serve builds the snapshot this one will take (a whole build, postings included): the
   * caller asks the database.
   */
  async whenAnswerable(): Promise<boolean> {
    while (!this.answerable && this.building !== null && !this.rowsRead && !this.changesPending() && !this.awaitingShared) {
      await new Promise<void>((resolve) => this.rowsReadWaiters.push(resolve));
    }
    return this.answerable;
  }

  private changesPending(): boolean {
    return this.changes.dirty.size > 0 || this.changes.check !== null || this.stale || this.rereading !== null;
  }

  private releaseRowsReadWaiters(): void {
    for (const resume of this.rowsReadWaiters.splice(0)) resume();
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

  /** A creator changed (inside a transaction that may still roll back): re-read once its write commits, before the next query. */
  markDirty(creatorId: string): void {
    this.changes.markDirty(creatorId);
  }

  /**
   * Brings the index up to date with what is committed: builds it on first use or after another
   * process wrote to creators, and re-reads the creators this process changed since the last call.
   */
  async refresh(): Promise<void> {
    if (this.changes.check !== null && this.building === null) {
      // Reading the counter is asynchronous: meanwhile the index is not ready, as in a build.
      const check = this.changes.check;
      this.changes.check = null;
      this.rowsRead = false;
      this.building = check.then((moved) => (moved ? this.build() : undefined)).finally(() => {
        this.building = null;
        this.releaseRowsReadWaiters();
      });
    }
    if (!this.built || this.stale || this.staleAppends > STALE_POSTINGS_LIMIT || this.changes.dirty.size > this.count / 4) {
      this.building ??= this.build().finally(() => {
        this.building = null;
        this.releaseRowsReadWaiters();
      });
    }
    if (this.building) await this.building;
    // One re-read at a time for every caller: a query waits for creators another caller took out of
    // the set and is still reading.
    while (this.changes.dirty.size > 0 || this.rereading) {
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
    while (this.changes.dirty.size > 0) {
      const ids: string[] = [];
      for (const id of this.changes.dirty) {
        this.changes.dirty.delete(id);
        if (ids.push(id) === BUILD_SLICE) break;
      }
      // In rowid order, so creators new to the index take slots in the order they were made.
      const rows = await this.rows.indexRowsByIds(ids);
      for (const row of rows.sort((a, b) => a.rowid - b.rowid)) this.put(row);
      if (this.changes.dirty.size > 0) await yieldToRequests();
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
        if (generation !== this.generation || !this.answerable) return null;
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
    // Least recently asked first: a query asked often (a platform's pages) stays kept while the
    // stream of one-off fuzzy queries and prefixes passes through. In order of first asking, each
    // platform's deep window was pushed out and ordered again every few thousand queries
    // (2-5 ms each, a tail at 16 connections).
    this.windows.delete(key);
    this.windows.set(key, kept);
    // Over budget, the least recently asked go first.
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
    const end = offset + limit;
    // Many slots (a platform, a common prefix) for the page: walking every creator in the sort's
    // order until `end` of them are found reads about end x creators / slots, against a heap
    // comparison for each slot (3 ms for a page of one platform's 47,000 creators at 100k).
    if (slots.length > 64 && slots.length * slots.length > end * this.count) {
      const order = this.sortedSlots(sort);
      if (order !== null) {
        const stamp = ++this.stamp;
        const seen = this.scratch();
        for (let i = 0; i < slots.length; i++) seen[slots[i]!] = stamp;
        const found: number[] = [];
        for (let i = 0; i < order.length && found.length < end; i++) if (seen[order[i]!] === stamp) found.push(order[i]!);
        return found.slice(offset, end);
      }
    }
    const key = this.keys[sort];
    const ids = this.idsFollowSlots ? [] : (this.allIds ??= Array.from({ length: this.count }, (_, slot) => this.idOf(slot)));
    const before = this.idsFollowSlots
      ? (a: number, b: number) => key[b]! - key[a]! || a - b
      : (a: number, b: number) => key[b]! - key[a]! || (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0);
    return firstInOrder(slots, before, end, sort === "newest").slice(offset, end);
  }

  /**
   * Every slot in the order of `sort`, kept until the next change: a counting sort of the key (1-2
   * ms at 100k creators), ties by slot. Null where that does not apply: ties that are not by slot
   * (ids not ascending with slots), keys that are not small whole numbers (the newest sort's times).
   */
  private sortedSlots(sort: DirectorySortKey): Int32Array | null {
    if (!this.idsFollowSlots || sort === "newest") return null;
    const kept = this.orders.get(sort);
    if (kept) return kept;
    const order = countedOrder(this.keys[sort], this.count);
    if (order !== null) this.orders.set(sort, order);
    return order;
  }

  private scan(words: string[], platform: string | null): number[] {
    // Every trigram of every word is in the postings of each slot that matches (a changed haystack
    // gets postings for all its trigrams), so the postings of the rarest trigram name the candidates
    // and those of the next rarest narrow them: merging sorted typed arrays costs a fraction of a
    // full check, which reads a haystack string scattered in the heap per candidate (most of a fuzzy
    // query's cost when the rarest trigram still names thousands). The full check of every word
    // then drops stale postings and trigram coincidences.
    if (!this.postingsLive) return this.scanEvery(words, platform);
    const grams: GramPostings[] = [];
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
    const seen = this.scratch();
    let candidates = slotsOf(grams[0]!);
    for (let g = 1; g < grams.length && candidates.length > NARROWED_ENOUGH; g++) candidates = narrow(candidates, grams[g]!, seen, ++this.stamp);
    const on = this.platformFilter(platform);
    // A word of three characters is its one trigram, so the postings name exactly the slots that
    // hold it, but for a slot whose haystack changed since they were built (its old postings stay):
    // only those are checked. A 3-character query names the most candidates (244-295 µs a query
    // in process against 75-87 at 8 characters, the bench data set), and checking each was most of it.
    const exact = words.length === 1 && words[0]!.length === 3;
    const out: number[] = [];
    for (const slot of candidates) {
      if (!(exact && !this.changedHaystacks.has(slot)) && !this.holdsEvery(slot, words)) continue;
      if (on !== null && !on[this.platformIds[slot]!]) continue;
      out.push(slot);
    }
    return out;
  }

  /** Whether the haystack of `slot` holds every word (one in the snapshot is never made a string). */
  private holdsEvery(slot: number, words: string[]): boolean {
    const haystack = this.changedHaystacks.size > 0 ? this.changedHaystacks.get(slot) : undefined;
    if (haystack === undefined) {
      for (let w = 0; w < words.length; w++) if (!this.base.includes(slot, words[w]!)) return false;
    } else {
      for (let w = 0; w < words.length; w++) if (!haystack.includes(words[w]!)) return false;
    }
    return true;
  }

  /** A scratch array of a number per slot, for marking slots with `stamp`. */
  private scratch(): Int32Array {
    if (this.seen.length < this.count) this.seen = new Int32Array(Math.max(1024, this.count + (this.count >> 3)));
    return this.seen;
  }

  /** Slots whose haystack holds every word, read in full: while the build computes the postings. */
  private scanEvery(words: string[], platform: string | null): number[] {
    // As with postings: a word shorter than a trigram narrows nothing, and alone finds nothing.
    if (words.every((word) => word.length < 3)) return [];
    const on = this.platformFilter(platform);
    const out: number[] = [];
    for (let slot = 0; slot < this.count; slot++) {
      if (on !== null && !on[this.platformIds[slot]!]) continue;
      if (this.holdsEvery(slot, words)) out.push(slot);
    }
    return out;
  }

  private async build() {
    // Not answerable until this build has read every creator again.
    this.rowsRead = false;
    this.generation++;
    // Changes made during the build are marked dirty and re-read after it.
    this.changes.dirty.clear();
    this.stale = false;
    this.built = false;
    const version = await this.changes.readVersion();
    this.changes.lastVersion = version;
    // Another process of this serve may have made (or be making) the snapshot of this very state.
    let taken: Uint8Array | null = null;
    if (this.shelf) {
      this.awaitingShared = true;
      // Queries waiting for this build's read ask the database meanwhile.
      this.releaseRowsReadWaiters();
      try {
        taken = await this.shelf.take(version);
      } finally {
        this.awaitingShared = false;
      }
    }
    const snapshot = taken && DirectorySnapshot.read(taken);
    if (snapshot && snapshot.version === version) {
      this.adopt(snapshot);
      this.rowsRead = true;
      this.releaseRowsReadWaiters();
      this.built = true;
      return;
    }
    let making = this.shelf !== null && taken === null;
    try {
      this.adopt(DirectorySnapshot.empty());
      this.postingsLive = false;
      let after = 0;
      for (;;) {
        const rows = await this.rows.indexRowsAfter(after, READ_SLICE);
        for (const row of rows) this.put(row);
        if (rows.length < READ_SLICE) break;
        after = rows[rows.length - 1]!.rowid;
        await yieldToRequests();
      }
      this.rowsRead = true;
      this.releaseRowsReadWaiters();
      const { haystacks, packed } = await this.buildPostings();
      // The rows are the state of `version` only when no write to creators committed meanwhile;
      // otherwise this snapshot stays here (and the write that moved the counter rebuilds it).
      if (making && (await this.changes.readVersion()) !== version) {
        this.shelf!.abandon();
        making = false;
      }
      // Creators re-read while the postings were computed (changed or new): the snapshot holds
      // them as they were, and they are put again beside it. Nothing awaits from here on.
      const late: number[] = [];
      for (let slot = 0; slot < this.count; slot++) if (slot >= haystacks.length || this.haystackOf(slot) !== haystacks[slot]) late.push(slot);
      if (making && late.length > 0) {
        this.shelf!.abandon();
        making = false;
      }
      const lateHaystacks = late.map((slot) => this.haystackOf(slot));
      const writer = DirectorySnapshot.writer(this.content(version, haystacks, packed));
      let bytes: Uint8Array;
      if (making) {
        making = false;
        bytes = this.shelf!.publish(writer.bytes, writer.write);
      } else {
        bytes = new Uint8Array(writer.bytes);
        writer.write(bytes);
      }
      this.adopt(DirectorySnapshot.read(bytes)!);
      late.forEach((slot, i) => {
        this.changedHaystacks.set(slot, lateHaystacks[i]!);
        this.addPostings(slot);
      });
      this.built = true;
    } finally {
      if (making) this.shelf!.abandon();
    }
  }

  /**
   * What a snapshot of the index as built is written from: every slot was added by the build, the
   * first `haystacks.length` with the haystacks `packed` was computed from.
   */
  private content(version: string, haystacks: string[], packed: Map<string, Int32Array>): DirectorySnapshotContent {
    const count = this.count;
    return {
      version,
      count,
      rowids: this.rowids.subarray(0, count),
      id: (slot) => this.idOf(slot),
      haystack: (slot) => (slot < haystacks.length ? haystacks[slot]! : this.haystackOf(slot)),
      keys: Object.fromEntries(DIRECTORY_SORT_KEYS.map((key) => [key, this.keys[key].subarray(0, count)])) as Record<DirectorySortKey, Float64Array>,
      platformIds: this.platformIds.subarray(0, count),
      platformLists: this.platformLists,
      slotByRowid: this.slotByRowid,
      postings: packed,
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
    this.postingsLive = true;
    this.windows.clear();
    this.windowSlots = 0;
    this.orders.clear();
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

  /** Every slot's haystack as of now, and the postings packed from them (directory-postings.ts). */
  private async buildPostings(): Promise<{ haystacks: string[]; packed: Map<string, Int32Array> }> {
    // As of now: a creator re-read while the passes run (or new) gets its postings after them.
    const haystacks = Array.from({ length: this.count }, (_, slot) => this.haystackOf(slot));
    return { haystacks, packed: await packPostings(haystacks) };
  }

  private put(row: DirectoryIndexRow) {
    this.windows.clear();
    this.orders.clear();
    this.windowSlots = 0;
    const stored = row.rowid < this.slotByRowid.length ? this.slotByRowid[row.rowid]! : 0;
    const known = stored > 0;
    let slot = stored - 1;
    const changed = !known || this.haystackOf(slot) !== row.searchText;
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
    if (changed) this.changedHaystacks.set(slot, row.searchText);
    this.keys.newest[slot] = row.createdAt;
    this.keys.trust[slot] = row.trustScore;
    this.keys.vouches[slot] = row.vouchCount;
    this.keys.deals[slot] = row.dealCount;
    let platformId = this.platformIdOf.get(row.platforms);
    if (platformId === undefined) {
      platformId = this.platformLists.push(row.platforms) - 1;
      this.platformIdOf.set(row.platforms, platformId);
    }
    this.platformIds[slot] = platformId;
    // A changed haystack gets postings for its trigrams; the old ones stay until the next build
    // and are filtered out by the full check. During a build they are all computed at its end.
    if (!changed || !this.postingsLive) return;
    this.addPostings(slot);
    if (known) this.staleAppends++;
  }

  /** Postings for every trigram of the slot's haystack, appended to those kept since the build. */
  private addPostings(slot: number): void {
    appendPostings(this.recent, slot, this.haystackOf(slot));
  }
}
