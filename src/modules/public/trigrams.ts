// Trigrams as SQLite's trigram tokenizer cuts them, and the similarity suggestions rank by.

/** Trigrams of a name, as SQLite's trigram tokenizer cuts them (no padding). */
export function trigrams(text: string): Set<string> {
  const chars = [...text];
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i++) grams.add(chars.slice(i, i + 3).join(""));
  return grams;
}

/** Jaccard similarity of two trigram sets. */
export function similarity(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const g of a) if (b.has(g)) shared++;
  return shared / (a.size + b.size - shared);
}
