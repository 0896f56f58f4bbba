// The suggestions' similarity: scored by trigram codes for plain names (src/modules/public/trigrams.ts),
// it must give exactly what the sets of trigrams SQLite's tokenizer cuts give, for every kind of text.
import { expect, test } from "bun:test";
import { similarity, similarityTo, trigrams } from "../../src/modules/public/trigrams";

let seed = 11;
const random = (below: number) => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed % below;
};
const ALPHABETS = ["abc", "abcdefghij_.0123456789", "aé€日本", "a😀b🎮c", "ab\u0000\uffff"];
const text = (alphabet: string, length: number) => {
  const chars = [...alphabet];
  return Array.from({ length }, () => chars[random(chars.length)]).join("");
};

test("a name's similarity to the query is the Jaccard of their trigram sets, whatever the text", () => {
  let scored = 0;
  for (let round = 0; round < 400; round++) {
    const alphabet = ALPHABETS[round % ALPHABETS.length]!;
    const query = text(alphabet, 3 + random(20));
    const similarityOf = similarityTo(query);
    for (let i = 0; i < 30; i++) {
      // Short, repeating, long (past the coded length) and other alphabets' names.
      const name = i % 7 === 0 ? text(ALPHABETS[random(ALPHABETS.length)]!, random(300)) : text(alphabet, random(25));
      expect(similarityOf(name), `${query} / ${name}`).toBe(similarity(trigrams(query), trigrams(name)));
      scored++;
    }
  }
  expect(scored).toBe(12_000);
});

test("repeated trigrams count once, and a name scores the same however often it is asked", () => {
  const similarityOf = similarityTo("aaaaab");
  // Query {aaa, aab}; name {aaa}: 1 shared of 2.
  expect(similarityOf("aaaaaaa")).toBe(0.5);
  expect(similarityOf("aaaaab")).toBe(1);
  expect(similarityOf("xy")).toBe(0);
  expect(similarityOf("aaaaaaa")).toBe(0.5);
  // A query beyond the coded length is still scored.
  const long = "ab".repeat(200);
  expect(similarityTo(long)("abab")).toBe(similarity(trigrams(long), trigrams("abab")));
});
