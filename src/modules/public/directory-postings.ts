// The directory index's trigram postings: which slots (creators, in index order) hold each trigram
// of their haystack. A build packs every slot's postings into one typed array per trigram
// (`packPostings`); creators changed or added since get theirs appended to plain lists beside it
// (`appendPostings`); a query's candidates are the slots of its rarest trigram, narrowed by the
// next rarest ones' postings (`narrow`) before each haystack is checked in full.
import { yieldToRequests } from "../../yield";

/** Slots whose haystacks one slice of the postings' build reads (each of its two passes). */
const POSTINGS_SLICE = 5_000;
/**
 * The characters nearly every haystack is made of (lower-cased handles, names and usernames), 6
 * bits each, so at most 64 (the first, 0, stands for any other character): a trigram of three of
 * them is a number below 2^18, counted in flat arrays while the index is built; the others go
 * through a map.
 */
const GRAM_CHARACTERS = "\u0000 abcdefghijklmnopqrstuvwxyz0123456789_.-'@!&+,/:;()#$%*=?[]^";
const CHARACTER_CODES = new Uint8Array(128);
for (let code = 1; code < GRAM_CHARACTERS.length; code++) CHARACTER_CODES[GRAM_CHARACTERS.charCodeAt(code)] = code;
const COMMON_GRAMS = 1 << 18;

/**
 * Every slot's postings, ascending, in one typed array: a first pass over the haystacks counts
 * each trigram's slots, a second places them. Filling a map of growing arrays keyed by trigram
 * strings instead took 1 s of a 1.1 s build at 100k creators, and packing those arrays at the end
 * held the request thread for 30 ms. Trigrams of common characters (nearly all) are counted by
 * number in flat arrays; the others go through a map. The event loop runs between slices.
 */
export async function packPostings(haystacks: string[]): Promise<Map<string, Int32Array>> {
  const slots = haystacks.length;
  // By trigram number: its slots counted, then where the next of them goes.
  const next = new Int32Array(COMMON_GRAMS);
  // By trigram number: slot + 1 of the haystack that last had it (a trigram twice in one haystack is one posting).
  const lastSlot = new Int32Array(COMMON_GRAMS);
  // Other trigrams, as strings (the first pass collects them).
  const others = new Map<string, number[]>();
  const pass = async (first: boolean, visit: (gram: number, slot: number) => void) => {
    lastSlot.fill(0);
    for (let from = 0; from < slots; from += POSTINGS_SLICE) {
      for (let slot = from; slot < Math.min(slots, from + POSTINGS_SLICE); slot++) {
        const text = haystacks[slot]!;
        for (let i = 0; i + 3 <= text.length; i++) {
          const gram = commonGram(text, i);
          if (gram >= 0) {
            if (lastSlot[gram] === slot + 1) continue;
            lastSlot[gram] = slot + 1;
            visit(gram, slot);
          } else if (first) {
            const other = text.slice(i, i + 3);
            const list = others.get(other);
            if (!list) others.set(other, [slot]);
            else if (list[list.length - 1] !== slot) list.push(slot);
          }
        }
      }
      await yieldToRequests();
    }
  };
  await pass(true, (gram) => {
    next[gram]!++;
  });
  let total = 0;
  for (let gram = 0; gram < COMMON_GRAMS; gram++) {
    const count = next[gram]!;
    next[gram] = total;
    total += count;
  }
  const postings = new Int32Array(total);
  await pass(false, (gram, slot) => {
    postings[next[gram]!++] = slot;
  });
  // `next[gram]` is now where the following trigram's slots start.
  const packed = new Map<string, Int32Array>();
  for (let gram = 0, start = 0; gram < COMMON_GRAMS; gram++) {
    const end = next[gram]!;
    if (end > start) packed.set(GRAM_CHARACTERS[gram >> 12]! + GRAM_CHARACTERS[(gram >> 6) & 63]! + GRAM_CHARACTERS[gram & 63]!, postings.subarray(start, end));
    start = end;
  }
  for (const [gram, list] of others) packed.set(gram, Int32Array.from(list));
  return packed;
}

/** The trigram of `text` at `i` as a number when its three code units are in GRAM_CHARACTERS, else -1. */
function commonGram(text: string, i: number): number {
  const a = text.charCodeAt(i);
  const b = text.charCodeAt(i + 1);
  const c = text.charCodeAt(i + 2);
  if ((a | b | c) >= 128) return -1;
  const x = CHARACTER_CODES[a]!;
  const y = CHARACTER_CODES[b]!;
  const z = CHARACTER_CODES[c]!;
  return x === 0 || y === 0 || z === 0 ? -1 : (x << 12) | (y << 6) | z;
}

/** Postings for every trigram of `text` (the haystack of `slot`), appended to `recent`. */
export function appendPostings(recent: Map<string, number[]>, slot: number, text: string): void {
  // Trigrams of UTF-16 code units, the same cut the query gets; a trigram seen twice in one
  // haystack finds this slot already at the end of its list.
  for (let i = 0; i + 3 <= text.length; i++) {
    const gram = text.slice(i, i + 3);
    const list = recent.get(gram);
    if (!list) recent.set(gram, [slot]);
    else if (list[list.length - 1] !== slot) list.push(slot);
  }
}

/** One trigram's postings: packed by the build, and appended since. */
export interface GramPostings {
  packed: Int32Array | undefined;
  recent: number[] | undefined;
  count: number;
}

/** The rarest trigram's slots, ascending and once each. */
export function slotsOf(rarest: GramPostings): number[] {
  let candidates: number[] = [];
  if (rarest.packed) for (let i = 0; i < rarest.packed.length; i++) candidates.push(rarest.packed[i]!);
  if (rarest.recent && rarest.recent.length > 0) {
    for (const slot of rarest.recent) candidates.push(slot);
    candidates.sort((a, b) => a - b);
    let kept = 0;
    for (let i = 0; i < candidates.length; i++) if (i === 0 || candidates[i] !== candidates[kept - 1]) candidates[kept++] = candidates[i]!;
    candidates.length = kept;
  }
  return candidates;
}

/**
 * The `candidates` (ascending) that `gram` also names. Its appended slots are marked in `seen`
 * with `stamp` (a fresh one) and looked up; its packed ones are merged, galloping.
 */
export function narrow(candidates: number[], gram: GramPostings, seen: Int32Array, stamp: number): number[] {
  const { packed, recent } = gram;
  // Slots appended since the build are few: marked, then looked up by stamp.
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
  return narrowed;
}
