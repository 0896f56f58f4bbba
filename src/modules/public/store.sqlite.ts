// The suggestion pool on SQLite (the contract: store.ts): the FTS5 trigram index read by rarest
// trigram first, within a budget, with the posting lists kept in memory until the database changes.
import type { Database as SqliteDatabase, Statement } from "bun:sqlite";
import { yieldToRequests } from "../../yield";
import type { SearchNamesStore } from "./store";
import { trigrams } from "./trigrams";

/**
 * Most index postings one lookup reads. Common trigrams ("_12", "ost") sit in tens of thousands of
 * names, so the rarest of the query's trigrams are read first, up to this many.
 */
const POSTINGS_BUDGET = 3_000;
/**
 * Bytes of postings (name ids, 4 bytes each) kept in memory. A near miss reads about 2,000 from
 * five trigrams, and through SQLite that is most of its cost; trigrams recur across names, so
 * nearby misses mostly find theirs here.
 */
const POSTINGS_KEPT_BYTES = 12_000_000;

export class SqliteSearchNamesStore implements SearchNamesStore {
  private readonly gramPostings: Statement<{ ids: string | null }, [string]>;
  private readonly namesById: Statement<{ name: string }, [string]>;
  private readonly gramSlice: Statement<{ term: string; doc: number }, [string, number]>;
  private readonly changeStamp: Statement<{ changes: number; version: number }, []>;
  /** Names per trigram in the index, to pick the rarest; refreshed hourly. */
  private gramCounts: Map<string, number> | null = null;
  /**
   * Postings read, by trigram, least recently used first; valid while `keptStamp` is the
   * database's change stamp (see `keptPostings`).
   */
  private readonly kept = new Map<string, Postings>();
  private keptBytes = 0;
  private keptStamp = "";

  constructor(
    db: SqliteDatabase,
    /** Whether a write transaction is open on `db` (a read group's transaction is not one). */
    private readonly writing: () => boolean,
  ) {
    // The index's vocabulary as a table; temporary, so it lives with this connection only.
    db.run("CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_names_vocab USING fts5vocab(main, search_names_fts, 'row')");
    this.gramSlice = db.prepare("SELECT term, doc FROM temp.search_names_vocab WHERE term > ? ORDER BY term LIMIT ?");
    // One string of ids per trigram: a row (and an array) per posting into JavaScript cost a third
    // more. FTS5 yields rowids ascending, and the aggregate keeps the order it reads them in.
    this.gramPostings = db.prepare("SELECT group_concat(rowid) AS ids FROM search_names_fts WHERE search_names_fts MATCH ?");
    // Every change this connection makes moves total_changes (rolled back or not); another
    // connection's commit moves data_version.
    this.changeStamp = db.prepare("SELECT total_changes() AS changes, (SELECT data_version FROM pragma_data_version) AS version");
    this.namesById = db.prepare("SELECT name FROM search_names WHERE id IN (SELECT value FROM json_each(?)) AND suggestible");
  }

  /**
   * A name sharing at least `minSimilarity` of the query's n trigrams holds one of its rarest
   * n - ceil(minSimilarity n) + 1, so only those posting lists are read, within a budget. Only
   * name ids are read from the index (ranking inside FTS5 costs 15-25x more); the names sharing
   * the most trigrams come first. Posting lists read are kept until the database changes; the
   * names are read each time.
   */
  async candidates(lower: string, { minSimilarity, limit }: { minSimilarity: number; limit: number }): Promise<string[]> {
    const grams = trigrams(lower);
    if (grams.size === 0) return [];
    if (!this.gramCounts) this.countGrams();
    const counts = this.gramCounts!;
    // A trigram the counts have not seen yet came with names added since they were taken: rare.
    const byRarity = [...grams].map((g) => ({ g, n: counts.get(g) ?? 1 })).sort((a, b) => a.n - b.n);
    const lists: Postings[] = [];
    const kept = this.keptPostings();
    let postings = 0;
    for (const { g, n } of byRarity.slice(0, grams.size - Math.ceil(grams.size * minSimilarity) + 1)) {
      if (n === 0) continue;
      if (postings > 0 && postings + n > POSTINGS_BUDGET) break;
      postings += n;
      let ids = kept?.get(g);
      if (ids) {
        // Most recently used last.
        kept!.delete(g);
        kept!.set(g, ids);
      } else {
        const phrase = ftsString(g);
        ids = phrase === null ? new Int32Array(0) : parseIds(this.gramPostings.get(phrase)?.ids ?? "");
        if (kept) this.keep(g, ids);
      }
      if (ids.length > 0) lists.push(ids);
    }
    if (lists.length === 0) return [];
    return this.namesById.all(JSON.stringify(mostShared(lists, limit))).map((row) => row.name);
  }

  /**
   * The kept postings, emptied first when the database changed since they were read; null while
   * a write transaction is open on this connection: its rows, uncommitted, may still roll back.
   */
  private keptPostings(): Map<string, Postings> | null {
    if (this.writing()) return null;
    const { changes, version } = this.changeStamp.get()!;
    const stamp = `${changes}:${version}`;
    if (stamp !== this.keptStamp) {
      this.kept.clear();
      this.keptBytes = 0;
      this.keptStamp = stamp;
    }
    return this.kept;
  }

  private keep(gram: string, ids: Postings): void {
    if (ids.byteLength > POSTINGS_KEPT_BYTES) return;
    for (const [old, oldIds] of this.kept) {
      if (this.keptBytes + ids.byteLength <= POSTINGS_KEPT_BYTES) break;
      this.kept.delete(old);
      this.keptBytes -= oldIds.byteLength;
    }
    this.kept.set(gram, ids);
    this.keptBytes += ids.byteLength;
  }

  /**
   * Counting a common trigram's names reads its whole posting list, and the full scan of a million
   * names blocks for about 100 ms: the hourly job and serve's warm-up count in slices.
   */
  async refreshStatistics(inSlices: boolean): Promise<number> {
    if (!inSlices) return this.countGrams();
    const counts = new Map<string, number>();
    for (const _ of this.gramCountSlices(counts)) await yieldToRequests();
    this.gramCounts = counts;
    return counts.size;
  }

  private countGrams(): number {
    const counts = new Map<string, number>();
    for (const _ of this.gramCountSlices(counts));
    this.gramCounts = counts;
    return counts.size;
  }

  /** Fills `counts` from the index's vocabulary, a hundred trigrams per step. */
  private *gramCountSlices(counts: Map<string, number>): Generator<void> {
    for (let after = ""; ; ) {
      const rows = this.gramSlice.all(after, 100);
      for (const row of rows) counts.set(row.term, row.doc);
      if (rows.length < 100) return;
      after = rows[rows.length - 1]!.term;
      yield;
    }
  }
}

/**
 * `text` as an FTS5 string, which matches it literally whatever it holds (quotes, `*`, `^`, `NEAR`,
 * `AND`, parentheses, `column:`): inside double quotes only a double quote is special, and doubled.
 * Null for text with a NUL, which ends FTS5's reading of the query ("unterminated string"); such a
 * trigram has no postings worth reading (a search never carries one: src/http/url-text.ts).
 */
function ftsString(text: string): string | null {
  return text.includes("\0") ? null : `"${text.replaceAll('"', '""')}"`;
}

/**
 * Ids below this are counted in two arrays indexed by id (a byte each), grown to the largest id met:
 * about 2 MB for the bench data set's 650k names. Larger ids, which only a names pool that has seen
 * millions of names would hold, are ranked by merging the lists instead.
 */
const COUNTED_IDS = 1 << 24;
let idCounts = new Uint8Array(1 << 16);
let idFirstLists = new Uint8Array(1 << 16);

/**
 * The `limit` ids held by the most of `lists` (each ascending, without repeats), within a count in
 * the order they are first seen reading the lists one after the other (the rarest trigram's first).
 * Each id is counted in an array indexed by id (a Map's insert and look-up per id cost most of a
 * near miss's 2,000 ids), then each (count, first list) keeps its first `limit` ids, the only ones
 * that can be picked: 20-27 µs against 57-90 for the merge below over the posting lists of 3,000
 * typo and unknown queries of the bench's search.txt, with the same ids for each.
 */
export function mostShared(lists: readonly Postings[], limit: number, countedIds = COUNTED_IDS): number[] {
  let largest = -1;
  for (const list of lists) if (list.length > 0 && list[list.length - 1]! > largest) largest = list[list.length - 1]!;
  if (largest < 0) return [];
  // A byte counts each id: more lists than a byte holds go to the merge too.
  if (largest >= countedIds || lists.length > 255) return mostSharedByMerge(lists, limit);
  if (largest >= idCounts.length) {
    let size = idCounts.length;
    while (size <= largest) size *= 2;
    idCounts = new Uint8Array(size);
    idFirstLists = new Uint8Array(size);
  }
  const counts = idCounts;
  const firsts = idFirstLists;
  for (let l = 0; l < lists.length; l++) {
    const list = lists[l]!;
    for (let i = 0; i < list.length; i++) if (counts[list[i]!]++ === 0) firsts[list[i]!] = l;
  }
  // Read list by list, an id is kept where it was first seen, so each (count, first list) fills in
  // ascending order.
  const byCount: number[][][] = [];
  for (let l = 0; l < lists.length; l++) {
    const list = lists[l]!;
    for (let i = 0; i < list.length; i++) {
      const id = list[i]!;
      if (firsts[id] !== l) continue;
      const held = ((byCount[counts[id]!] ??= [])[l] ??= []);
      if (held.length < limit) held.push(id);
    }
  }
  for (const list of lists) for (let i = 0; i < list.length; i++) counts[list[i]!] = 0;
  return ranked(byCount, limit);
}

/** `mostShared` by merging the lists, for ids too large to count in an array. */
function mostSharedByMerge(lists: readonly Postings[], limit: number): number[] {
  const at = new Int32Array(lists.length);
  // By count, then by the first list holding the id; ids ascend within each.
  const byCount: number[][][] = [];
  for (;;) {
    let id = Number.POSITIVE_INFINITY;
    for (let l = 0; l < lists.length; l++) if (at[l]! < lists[l]!.length && lists[l]![at[l]!]! < id) id = lists[l]![at[l]!]!;
    if (id === Number.POSITIVE_INFINITY) break;
    let count = 0;
    let first = -1;
    for (let l = 0; l < lists.length; l++) {
      if (at[l]! < lists[l]!.length && lists[l]![at[l]!] === id) {
        at[l]!++;
        count++;
        if (first < 0) first = l;
      }
    }
    ((byCount[count] ??= [])[first] ??= []).push(id);
  }
  return ranked(byCount, limit);
}

/** The first `limit` ids of `byCount[count][first list]`, the highest count first. */
function ranked(byCount: number[][][], limit: number): number[] {
  const ids: number[] = [];
  for (let count = byCount.length - 1; count > 0 && ids.length < limit; count--) {
    for (const held of byCount[count] ?? []) {
      for (const id of held ?? []) {
        if (ids.length === limit) return ids;
        ids.push(id);
      }
    }
  }
  return ids;
}

/** Name ids of one trigram, ascending: 32-bit unless an id needs more. */
type Postings = Int32Array | Float64Array;

/** The ids of `ids` (integers, comma-separated, as group_concat gives them), in order. */
function parseIds(ids: string): Postings {
  if (ids === "") return new Int32Array(0);
  let count = 1;
  for (let i = 0; i < ids.length; i++) if (ids.charCodeAt(i) === 44) count++;
  const out = new Float64Array(count);
  let small = true;
  let at = 0;
  let id = 0;
  let sign = 1;
  for (let i = 0; i <= ids.length; i++) {
    const code = i < ids.length ? ids.charCodeAt(i) : 44;
    if (code === 45) sign = -1;
    else if (code !== 44) id = id * 10 + code - 48;
    else {
      out[at++] = sign * id;
      if (id > 2_147_483_647) small = false;
      id = 0;
      sign = 1;
    }
  }
  return small ? Int32Array.from(out) : out;
}
