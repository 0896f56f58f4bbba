// Trigrams as SQLite's trigram tokenizer cuts them, and the similarity suggestions rank by.

/** A UTF-16 surrogate: the text has characters outside the BMP, two code units each. */
const SURROGATE = /[\uD800-\uDFFF]/;

/** Trigrams of a name, as SQLite's trigram tokenizer cuts them (no padding), by code point. */
export function trigrams(text: string): Set<string> {
  const grams = new Set<string>();
  // Every name a suggestion scores goes through here: without surrogates, code units are code
  // points and the text is sliced as it is, with no array of characters per name.
  if (!SURROGATE.test(text)) {
    for (let i = 0; i + 3 <= text.length; i++) grams.add(text.slice(i, i + 3));
    return grams;
  }
  const chars = [...text];
  for (let i = 0; i + 3 <= chars.length; i++) grams.add(chars[i]! + chars[i + 1]! + chars[i + 2]!);
  return grams;
}

/** Jaccard similarity of two trigram sets. */
export function similarity(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const g of a) if (b.has(g)) shared++;
  return shared / (a.size + b.size - shared);
}
