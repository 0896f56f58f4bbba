// The directory index's built part (directory-index.ts) as one flat buffer: every slot's rowid, id,
// haystack, sort keys and platform list, the slot of each rowid, and the postings of every trigram,
// as typed arrays over the buffer. Held as JavaScript strings, arrays and a Map of typed arrays,
// the same index took about 50 MB per process at 100k creators, most of it 200k strings and their
// headers; here it is about 31 MB, nothing for the collector to trace, and nothing tied to the
// process: the workers of `serve --workers N` read one copy in shared memory
// (server/shared-snapshots.ts) instead of each building and holding its own.

export type DirectorySortKey = "newest" | "trust" | "vouches" | "deals";
export const DIRECTORY_SORT_KEYS: readonly DirectorySortKey[] = ["newest", "trust", "vouches", "deals"];

/** What a snapshot is written from: the index as a build left it. */
export interface DirectorySnapshotContent {
  /** The `creators_version` counter the rows were read at. */
  version: string;
  count: number;
  rowids: ArrayLike<number>;
  id(slot: number): string;
  haystack(slot: number): string;
  keys: Record<DirectorySortKey, ArrayLike<number>>;
  platformIds: ArrayLike<number>;
  platformLists: readonly string[];
  slotByRowid: Int32Array;
  /** Slots per trigram, each list ascending and once each. */
  postings: ReadonlyMap<string, ArrayLike<number>>;
  idsFollowSlots: boolean;
}

/**
 * Where snapshots are made once and read by every process that can (the workers of one serve).
 * Without one, each process keeps its snapshot in memory of its own.
 */
export interface DirectorySnapshotShelf {
  /**
   * The snapshot of `version` another process has published (waiting while one is being made), or
   * null: this process then makes it, and calls `publish` or `abandon` once done.
   */
  take(version: string): Promise<Uint8Array | null>;
  /**
   * Memory of `bytes` for the snapshot just made, filled by `write`, then offered to the others
   * (when this process was the one to make it; otherwise memory of its own).
   */
  publish(bytes: number, write: (into: Uint8Array) => void): Uint8Array;
  /** The snapshot being made will not be published (the rows changed while they were read). */
  abandon(): void;
}

const MAGIC = 0x74_6c_64_31; // "tld1"
/** Header: Int32 words, then the version's UTF-16 code units. */
const HEADER_INTS = 16;
const H_MAGIC = 0;
const H_BYTES = 1;
const H_COUNT = 2;
const H_GRAMS = 3;
const H_POSTINGS = 4;
const H_HAYSTACK_CHARS = 5;
const H_ID_CHARS = 6;
const H_SLOT_MAP = 7;
const H_PLATFORM_CHARS = 8;
const H_VERSION_CHARS = 9;
const H_IDS_FOLLOW_SLOTS = 10;

/** A trigram (three UTF-16 code units) as one number: the table is searched by it. */
function gramCode(gram: string): number {
  return gram.charCodeAt(0) * 2 ** 32 + gram.charCodeAt(1) * 2 ** 16 + gram.charCodeAt(2);
}

/** UTF-16 code units as a string, unpaired surrogates kept (a decoder would replace them). */
function text(units: Uint16Array): string {
  let out = "";
  for (let at = 0; at < units.length; at += 4096) out += String.fromCharCode(...units.subarray(at, at + 4096));
  return out;
}

interface Layout {
  keys: number;
  gramCodes: number;
  rowids: number;
  haystackStarts: number;
  idStarts: number;
  slotMap: number;
  gramStarts: number;
  postings: number;
  platformIds: number;
  haystackChars: number;
  idChars: number;
  platformChars: number;
  versionChars: number;
  bytes: number;
}

/** Byte offsets of each section, widest elements first so each stays aligned. */
function layout(h: Int32Array | number[]): Layout {
  const count = h[H_COUNT]!;
  const grams = h[H_GRAMS]!;
  let at = HEADER_INTS * 4;
  const take = (bytes: number) => {
    const start = at;
    at += bytes;
    return start;
  };
  const l = {
    keys: take(DIRECTORY_SORT_KEYS.length * count * 8),
    gramCodes: take(grams * 8),
    rowids: take(count * 4),
    haystackStarts: take((count + 1) * 4),
    idStarts: take((count + 1) * 4),
    slotMap: take(h[H_SLOT_MAP]! * 4),
    gramStarts: take((grams + 1) * 4),
    postings: take(h[H_POSTINGS]! * 4),
    platformIds: take(count * 2),
    haystackChars: take(h[H_HAYSTACK_CHARS]! * 2),
    idChars: take(h[H_ID_CHARS]! * 2),
    platformChars: take(h[H_PLATFORM_CHARS]! * 2),
    versionChars: take(h[H_VERSION_CHARS]! * 2),
    bytes: 0,
  };
  l.bytes = at;
  return l;
}

export class DirectorySnapshot {
  readonly version: string;
  readonly count: number;
  readonly rowids: Int32Array;
  readonly keys: Record<DirectorySortKey, Float64Array>;
  readonly platformIds: Uint16Array;
  readonly platformLists: readonly string[];
  readonly slotByRowid: Int32Array;
  readonly idsFollowSlots: boolean;
  private readonly haystackStarts: Int32Array;
  private readonly haystackChars: Uint16Array;
  private readonly idStarts: Int32Array;
  private readonly idChars: Uint16Array;
  private readonly gramCodes: Float64Array;
  private readonly gramStarts: Int32Array;
  private readonly postings: Int32Array;

  private constructor(bytes: Uint8Array) {
    const { buffer, byteOffset } = bytes;
    const h = new Int32Array(buffer, byteOffset, HEADER_INTS);
    const l = layout(h);
    const count = h[H_COUNT]!;
    const grams = h[H_GRAMS]!;
    const f64 = (at: number, n: number) => new Float64Array(buffer, byteOffset + at, n);
    const i32 = (at: number, n: number) => new Int32Array(buffer, byteOffset + at, n);
    const u16 = (at: number, n: number) => new Uint16Array(buffer, byteOffset + at, n);
    this.count = count;
    this.keys = Object.fromEntries(DIRECTORY_SORT_KEYS.map((key, k) => [key, f64(l.keys + k * count * 8, count)])) as Record<DirectorySortKey, Float64Array>;
    this.gramCodes = f64(l.gramCodes, grams);
    this.rowids = i32(l.rowids, count);
    this.haystackStarts = i32(l.haystackStarts, count + 1);
    this.idStarts = i32(l.idStarts, count + 1);
    this.slotByRowid = i32(l.slotMap, h[H_SLOT_MAP]!);
    this.gramStarts = i32(l.gramStarts, grams + 1);
    this.postings = i32(l.postings, h[H_POSTINGS]!);
    this.platformIds = u16(l.platformIds, count);
    this.haystackChars = u16(l.haystackChars, h[H_HAYSTACK_CHARS]!);
    this.idChars = u16(l.idChars, h[H_ID_CHARS]!);
    this.platformLists = JSON.parse(text(u16(l.platformChars, h[H_PLATFORM_CHARS]!))) as string[];
    this.version = text(u16(l.versionChars, h[H_VERSION_CHARS]!));
    this.idsFollowSlots = h[H_IDS_FOLLOW_SLOTS] === 1;
  }

  /** The snapshot in `bytes`, or null when they hold none (or not the whole of one). */
  static read(bytes: Uint8Array): DirectorySnapshot | null {
    if (bytes.byteLength < HEADER_INTS * 4 || bytes.byteOffset % 8 !== 0) return null;
    const h = new Int32Array(bytes.buffer, bytes.byteOffset, HEADER_INTS);
    if (h[H_MAGIC] !== MAGIC || h[H_BYTES]! > bytes.byteLength || layout(h).bytes !== h[H_BYTES]) return null;
    return new DirectorySnapshot(bytes);
  }

  /** An index of no creators. */
  static empty(): DirectorySnapshot {
    const content: DirectorySnapshotContent = {
      version: "",
      count: 0,
      rowids: [],
      id: () => "",
      haystack: () => "",
      keys: { newest: [], trust: [], vouches: [], deals: [] },
      platformIds: [],
      platformLists: [],
      slotByRowid: new Int32Array(0),
      postings: new Map(),
      idsFollowSlots: true,
    };
    const writer = DirectorySnapshot.writer(content);
    const bytes = new Uint8Array(writer.bytes);
    writer.write(bytes);
    return DirectorySnapshot.read(bytes)!;
  }

  /** How many bytes `content` takes, and how to write it into memory of that size (8-byte aligned). */
  static writer(content: DirectorySnapshotContent): { bytes: number; write(into: Uint8Array): void } {
    const { count } = content;
    let haystackChars = 0;
    let idChars = 0;
    for (let slot = 0; slot < count; slot++) {
      haystackChars += content.haystack(slot).length;
      idChars += content.id(slot).length;
    }
    const grams = [...content.postings.keys()].map((gram) => ({ gram, code: gramCode(gram) })).sort((a, b) => a.code - b.code);
    let postings = 0;
    for (const { gram } of grams) postings += content.postings.get(gram)!.length;
    const platforms = JSON.stringify(content.platformLists);
    const h = new Array<number>(HEADER_INTS).fill(0);
    h[H_MAGIC] = MAGIC;
    h[H_COUNT] = count;
    h[H_GRAMS] = grams.length;
    h[H_POSTINGS] = postings;
    h[H_HAYSTACK_CHARS] = haystackChars;
    h[H_ID_CHARS] = idChars;
    h[H_SLOT_MAP] = content.slotByRowid.length;
    h[H_PLATFORM_CHARS] = platforms.length;
    h[H_VERSION_CHARS] = content.version.length;
    h[H_IDS_FOLLOW_SLOTS] = content.idsFollowSlots ? 1 : 0;
    const l = layout(h);
    h[H_BYTES] = l.bytes;
    return {
      bytes: l.bytes,
      write(into) {
        const { buffer, byteOffset } = into;
        const i32 = (at: number, n: number) => new Int32Array(buffer, byteOffset + at, n);
        const u16 = (at: number, n: number) => new Uint16Array(buffer, byteOffset + at, n);
        const putText = (at: number, text: string) => {
          const out = u16(at, text.length);
          for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
        };
        DIRECTORY_SORT_KEYS.forEach((key, k) => new Float64Array(buffer, byteOffset + l.keys + k * count * 8, count).set(content.keys[key]));
        new Float64Array(buffer, byteOffset + l.gramCodes, grams.length).set(grams.map((g) => g.code));
        i32(l.rowids, count).set(content.rowids);
        i32(l.slotMap, content.slotByRowid.length).set(content.slotByRowid);
        new Uint16Array(buffer, byteOffset + l.platformIds, count).set(content.platformIds);
        const haystackStarts = i32(l.haystackStarts, count + 1);
        const idStarts = i32(l.idStarts, count + 1);
        const haystackOut = u16(l.haystackChars, haystackChars);
        const idOut = u16(l.idChars, idChars);
        let hAt = 0;
        let iAt = 0;
        for (let slot = 0; slot < count; slot++) {
          haystackStarts[slot] = hAt;
          const haystack = content.haystack(slot);
          for (let i = 0; i < haystack.length; i++) haystackOut[hAt++] = haystack.charCodeAt(i);
          idStarts[slot] = iAt;
          const id = content.id(slot);
          for (let i = 0; i < id.length; i++) idOut[iAt++] = id.charCodeAt(i);
        }
        haystackStarts[count] = hAt;
        idStarts[count] = iAt;
        const gramStarts = i32(l.gramStarts, grams.length + 1);
        const postingsOut = i32(l.postings, postings);
        let pAt = 0;
        grams.forEach(({ gram }, g) => {
          gramStarts[g] = pAt;
          const slots = content.postings.get(gram)!;
          postingsOut.set(slots, pAt);
          pAt += slots.length;
        });
        gramStarts[grams.length] = pAt;
        putText(l.platformChars, platforms);
        putText(l.versionChars, content.version);
        // The header last: until the magic is in, readers see no snapshot.
        i32(0, HEADER_INTS).set(h);
      },
    };
  }

  /** The haystack of `slot`. */
  haystack(slot: number): string {
    return text(this.haystackChars.subarray(this.haystackStarts[slot]!, this.haystackStarts[slot + 1]!));
  }

  /** Whether the haystack of `slot` holds `word`: the haystack is never made a string. */
  includes(slot: number, word: string): boolean {
    const chars = this.haystackChars;
    const end = this.haystackStarts[slot + 1]! - word.length;
    const first = word.charCodeAt(0);
    next: for (let at = this.haystackStarts[slot]!; at <= end; at++) {
      if (chars[at] !== first) continue;
      for (let i = 1; i < word.length; i++) if (chars[at + i] !== word.charCodeAt(i)) continue next;
      return true;
    }
    return word.length === 0;
  }

  /** The creator id of `slot`. */
  id(slot: number): string {
    return text(this.idChars.subarray(this.idStarts[slot]!, this.idStarts[slot + 1]!));
  }

  /** The slots whose haystack held `gram` when the snapshot was made, ascending. */
  postingsOf(gram: string): Int32Array | undefined {
    const code = gramCode(gram);
    const codes = this.gramCodes;
    let low = 0;
    let high = codes.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (codes[mid]! < code) low = mid + 1;
      else high = mid;
    }
    if (low === codes.length || codes[low] !== code) return undefined;
    return this.postings.subarray(this.gramStarts[low]!, this.gramStarts[low + 1]!);
  }
}
