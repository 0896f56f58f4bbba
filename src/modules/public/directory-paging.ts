// The directory index's orders: a page of matching slots in a sort's order, either selected with a
// bounded heap or sorted whole, and the order of every slot by a small whole-number key (a counting
// sort) that a page of many matches walks instead. Every sort is descending on its key, then
// ascending on id.

/** Pages that end past this many rows are sorted whole instead of selected. */
const SELECT_TOP_UP_TO = 1_000;
/** Largest sort key counted into an order of every creator (`countedOrder`); above it, pages use a heap. */
const COUNTED_KEYS = 1 << 20;

/**
 * The first `end` of `slots` in the order `before` gives. Slots follow creation order (and so,
 * mostly, id order): `backwards` walks them from the last (the newest sort), so that nearly every
 * candidate after the first few is turned away by one comparison.
 */
export function firstInOrder(slots: number[], before: (a: number, b: number) => number, end: number, backwards: boolean): number[] {
  if (end >= slots.length || end > SELECT_TOP_UP_TO) return slots.slice().sort(before);
  // A heap of the `end` best so far, the worst of them on top: O(matches x log(end)).
  const heap: number[] = [];
  const worse = (i: number, j: number) => before(heap[i]!, heap[j]!) > 0;
  const swap = (i: number, j: number) => {
    const held = heap[i]!;
    heap[i] = heap[j]!;
    heap[j] = held;
  };
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
  return heap.sort(before);
}

/**
 * Every one of `slots` slots in descending order of `key`, ties by slot: a counting sort (1-2 ms at
 * 100k creators). Null when a key is not a small whole number (the newest sort's times).
 */
export function countedOrder(key: Float64Array<ArrayBufferLike>, slots: number): Int32Array | null {
  let highest = 0;
  for (let slot = 0; slot < slots; slot++) {
    const value = key[slot]!;
    if (!Number.isInteger(value) || value < 0 || value > COUNTED_KEYS) return null;
    if (value > highest) highest = value;
  }
  // By key, highest first: where its slots start in the order.
  const starts = new Int32Array(highest + 2);
  for (let slot = 0; slot < slots; slot++) starts[highest - key[slot]! + 1]!++;
  for (let bucket = 1; bucket < starts.length; bucket++) starts[bucket]! += starts[bucket - 1]!;
  const order = new Int32Array(slots);
  for (let slot = 0; slot < slots; slot++) order[starts[highest - key[slot]!]!++] = slot;
  return order;
}
