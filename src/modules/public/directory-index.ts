// The directory's fuzzy `q`, answered from memory. A trigram index in SQLite (FTS5) had to read
// position lists of every trigram of the query, about 0.3 ms per query on 100k creators, and
// sorting its matches meant a row lookup each; with 16 requests in flight on one thread that
// alone put the p99 past 15 ms. Here each creator's haystack and sort keys sit in arrays, the
// query's rarest trigram names the candidates, `includes` confirms them, and a bounded selection
// picks the page. SQLite stays the truth: writes only mark creators dirty, and they are re-read
// (committed state) before the next query; when another process has written to creators (the
// `creators_version` counter moved), the index is rebuilt, in slices so requests keep flowing.
import type { Database, Statement } from "bun:sqlite";
import { yieldToRequests } from "../../yield";

export type DirectorySortKey = "newest" | "trust" | "vouches" | "deals";

interface IndexRow {
  rowid: number;
  id: string;
  search_text: string;
  created_at: number;
  trust_score: number;
  vouch_count: number;
  deal_count: number;
  platforms: string;
}

/** Above this many slots appended for creators already indexed, the postings are rebuilt. */
const STALE_POSTINGS_LIMIT = 50_000;
/** Pages that end past this many rows are sorted whole instead of selected. */
const SELECT_TOP_UP_TO = 1_000;
/**
 * Rows read per slice of a build or of re-reading dirty creators; the event loop runs between
 * slices. 5,000 held the request thread for 70-100 ms of CPU at 100k creators (bench data set).
 */
const BUILD_SLICE = 2_000;

export class DirectoryIndex {
  private rowids: number[] = [];
  private ids: string[] = [];
  private haystacks: string[] = [];
  /** Sort keys by slot; every sort is descending on its key, then ascending on id. */
  private keys: Record<DirectorySortKey, number[]> = { newest: [], trust: [], vouches: [], deals: [] };
  private platforms: string[] = [];
  /** Slot + 1 by rowid (0: not indexed); rowids are dense, and a flat array is nothing to trace. */
  private slotByRowid = new Int32Array(0);
  /** Platform lists repeat ("discord,roblox"): one string each, not one per creator. */
  private readonly platformStrings = new Map<string, string>();
  /**
   * Slots per trigram: packed into typed arrays when the index is built (small, and nothing for
   * the garbage collector to trace through), plus the slots appended since in plain arrays.
   */
  private packed = new Map<string, Int32Array>();
  private recent = new Map<string, number[]>();
  private seen = new Int32Array(0);
  private stamp = 0;
  private staleAppends = 0;
  private built = false;
  private building: Promise<void> | null = null;
  private readonly dirty = new Set<string>();
  private readonly rowsAfter: Statement<IndexRow, [number, number]>;
  private readonly rowById: Statement<IndexRow, [string]>;
  private readonly dataVersion: Statement<{ data_version: number }, []>;
  private readonly creatorsVersion: Statement<{ value: string }, []>;
  private lastDataVersion = -1;
  private lastCreatorsVersion = "";

  constructor(sqlite: Database) {
    this.dataVersion = sqlite.prepare("PRAGMA data_version");
    this.creatorsVersion = sqlite.prepare("SELECT value FROM meta WHERE key = 'creators_version'");
    const columns = "rowid, id, search_text, created_at, trust_score, vouch_count, deal_count, platforms";
    this.rowsAfter = sqlite.prepare(`SELECT ${columns} FROM creators WHERE rowid > ? ORDER BY rowid LIMIT ?`);
    this.rowById = sqlite.prepare(`SELECT ${columns} FROM creators WHERE id = ?`);
  }

  /** A creator changed (inside a transaction that may still roll back): re-read it before the next query. */
  markDirty(creatorId: string): void {
    if (this.built || this.building) this.dirty.add(creatorId);
  }

  /**
   * Brings the index up to date with what is committed: builds it on first use or after another
   * process wrote to creators, and re-reads the creators this process changed since the last call.
   */
  async refresh(): Promise<void> {
    // data_version moves only when another connection (the CLI, an import) has committed;
    // creators_version tells whether that write touched creators.
    const dataVersion = this.dataVersion.get()!.data_version;
    if (dataVersion !== this.lastDataVersion) {
      this.lastDataVersion = dataVersion;
      if (this.creatorsVersion.get()?.value !== this.lastCreatorsVersion) this.built = false;
    }
    if (!this.built || this.staleAppends > STALE_POSTINGS_LIMIT || this.dirty.size > this.rowids.length / 4) {
      this.building ??= this.build().finally(() => {
        this.building = null;
      });
    }
    if (this.building) await this.building;
    if (this.dirty.size > 0) {
      // No other connection wrote since data_version was read (it would have moved), so the
      // counter reflects this process's own writes, all of which are dirty now and applied below.
      // Read before the first yield: a later value might include another process's write.
      const creatorsVersion = this.creatorsVersion.get()?.value ?? "";
      // A job that rewrites many creators (the daily trust refresh) can leave tens of thousands
      // dirty: they are re-read a slice at a time. Creators marked meanwhile join the same set.
      let reread = 0;
      for (const id of this.dirty) {
        this.dirty.delete(id);
        const row = this.rowById.get(id);
        if (row) this.put(row);
        if (++reread % BUILD_SLICE === 0) await yieldToRequests();
      }
      this.lastCreatorsVersion = creatorsVersion;
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

  /** Creators' rowids for one page of `slots` in the order of `sort`. */
  page(slots: number[], sort: DirectorySortKey, offset: number, limit: number): number[] {
    const key = this.keys[sort];
    const ids = this.ids;
    const before = (a: number, b: number) => key[b]! - key[a]! || (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0);
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
    return ordered.slice(offset, end).map((slot) => this.rowids[slot]!);
  }

  private scan(words: string[], platform: string | null): number[] {
    // The candidates are the postings of the rarest trigram among all words; every word is then
    // checked in full, so stale postings and trigram coincidences drop out.
    let rarest: string | undefined;
    let fewest = Infinity;
    for (const word of words) {
      for (let i = 0; i + 3 <= word.length; i++) {
        const gram = word.slice(i, i + 3);
        const count = (this.packed.get(gram)?.length ?? 0) + (this.recent.get(gram)?.length ?? 0);
        if (count === 0) return [];
        if (count < fewest) {
          fewest = count;
          rarest = gram;
        }
      }
    }
    if (rarest === undefined) return [];
    const stamp = ++this.stamp;
    const seen = this.seen;
    const wanted = platform === null ? null : `,${platform},`;
    const out: number[] = [];
    const haystacks = this.haystacks;
    const lists: ArrayLike<number>[] = [this.packed.get(rarest) ?? [], this.recent.get(rarest) ?? []];
    for (const list of lists) {
      next: for (let i = 0; i < list.length; i++) {
        const slot = list[i]!;
        if (seen[slot] === stamp) continue;
        seen[slot] = stamp;
        const haystack = haystacks[slot]!;
        for (let w = 0; w < words.length; w++) if (!haystack.includes(words[w]!)) continue next;
        if (wanted !== null && !`,${this.platforms[slot]},`.includes(wanted)) continue;
        out.push(slot);
      }
    }
    return out;
  }

  private async build() {
    // Changes made during the build are marked dirty and re-read after it.
    this.dirty.clear();
    this.lastCreatorsVersion = this.creatorsVersion.get()?.value ?? "";
    this.rowids = [];
    this.ids = [];
    this.haystacks = [];
    this.keys = { newest: [], trust: [], vouches: [], deals: [] };
    this.platforms = [];
    this.slotByRowid = new Int32Array(0);
    this.packed = new Map();
    this.recent = new Map();
    this.staleAppends = 0;
    this.built = false;
    let after = 0;
    for (;;) {
      const rows = this.rowsAfter.all(after, BUILD_SLICE);
      for (const row of rows) this.put(row);
      if (rows.length < BUILD_SLICE) break;
      after = rows[rows.length - 1]!.rowid;
      await yieldToRequests();
    }
    for (const [gram, slots] of this.recent) this.packed.set(gram, Int32Array.from(slots));
    this.recent = new Map();
    this.built = true;
  }

  private put(row: IndexRow) {
    const stored = row.rowid < this.slotByRowid.length ? this.slotByRowid[row.rowid]! : 0;
    const known = stored > 0;
    let slot = stored - 1;
    const changed = !known || this.haystacks[slot] !== row.search_text;
    if (!known) {
      slot = this.rowids.length;
      if (row.rowid >= this.slotByRowid.length) {
        const grown = new Int32Array(Math.max(1024, row.rowid * 2));
        grown.set(this.slotByRowid);
        this.slotByRowid = grown;
      }
      this.slotByRowid[row.rowid] = slot + 1;
      this.rowids.push(row.rowid);
      this.ids.push(row.id);
      if (slot >= this.seen.length) {
        const grown = new Int32Array(Math.max(1024, this.seen.length * 2));
        grown.set(this.seen);
        this.seen = grown;
      }
    }
    this.haystacks[slot] = row.search_text;
    this.keys.newest[slot] = row.created_at;
    this.keys.trust[slot] = row.trust_score;
    this.keys.vouches[slot] = row.vouch_count;
    this.keys.deals[slot] = row.deal_count;
    let platforms = this.platformStrings.get(row.platforms);
    if (platforms === undefined) this.platformStrings.set(row.platforms, (platforms = row.platforms));
    this.platforms[slot] = platforms;
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
