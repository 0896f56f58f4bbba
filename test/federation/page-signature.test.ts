// A feed page's own signature (`page_sig`), which a follower checks instead of one signature an
// item: what it covers, and that anything it does not vouch for falls back to each item's own.
import { expect, test } from "bun:test";
import { pageSignaturesValid } from "../../src/modules/federation/crypto-threads";
import { canonicalJson, kidOf, newKeyPair, pageSignedText, signText } from "../../src/modules/federation/signing";

const source = newKeyPair();
const kid = kidOf(source.publicKey);
const keys = new Map([[kid, source.publicKey]]);

function item(seq: number) {
  const unsigned = { seq, type: "added", at: "2026-11-20T10:00:00.000Z", origin: "inst", entry: { id: `e${seq}`, severity: "ban" }, kid };
  return { ...unsigned, sig: signText(source.privateKey, canonicalJson(unsigned)) };
}

function signedPage(items: Array<Record<string, unknown>>, by = source.privateKey) {
  const texts = items.map(({ sig: _, ...rest }) => canonicalJson(rest));
  const page_sig = { kid, sig: signText(by, pageSignedText(texts, items.map((i) => i.sig as string))) };
  return { items, page_sig, next_cursor: "c", has_more: false };
}

test("a page whose signature verifies vouches for every item on it, its own signature included", () => {
  const items = [item(1), item(2), item(3)];
  expect(pageSignaturesValid(keys, JSON.stringify(signedPage(items)))).toEqual([true, true, true]);
  // The key signed the page as it is, an item's own signature spoiled by the source itself included:
  // the page's signature is what vouches, and an item's own is only checked without it.
  const spoiled = [item(1), { ...item(2), sig: "A".repeat(86) }, item(3)];
  expect(pageSignaturesValid(keys, JSON.stringify(signedPage(spoiled)))).toEqual([true, true, true]);
  expect(pageSignaturesValid(keys, JSON.stringify({ ...signedPage(spoiled), page_sig: undefined }))).toEqual([true, false, true]);
});

test("a page changed after signing, signed by another key, or naming an unpinned key: each item is checked on its own", () => {
  const items = [item(1), item(2), item(3)];
  const page = signedPage(items);
  (page.items[1] as { entry: { severity: string } }).entry.severity = "warn";
  expect(pageSignaturesValid(keys, JSON.stringify(page))).toEqual([true, false, true]);
  const other = newKeyPair();
  expect(pageSignaturesValid(keys, JSON.stringify(signedPage([item(1), item(2)], other.privateKey)))).toEqual([true, true]);
  const forged = signedPage([item(1), { ...item(2), entry: { id: "e2", severity: "warn" } }], other.privateKey);
  expect(pageSignaturesValid(keys, JSON.stringify(forged))).toEqual([true, false]);
  const fresh = [item(1), item(2), item(3)];
  const unpinned = { ...signedPage(fresh), page_sig: { kid: "0000000000000000", sig: signedPage(fresh).page_sig.sig } };
  expect(pageSignaturesValid(keys, JSON.stringify(unpinned))).toEqual([true, true, true]);
  expect(pageSignaturesValid(keys, JSON.stringify({ ...unpinned, items: [item(1), { ...item(2), sig: "A".repeat(86) }] }))).toEqual([true, false]);
  // Reordered items do not match the signed lines.
  const reordered = signedPage([item(1), item(2)]);
  reordered.items.reverse();
  expect(pageSignaturesValid(keys, JSON.stringify({ ...reordered, items: [{ ...reordered.items[0]!, sig: "A".repeat(86) }, reordered.items[1]!] }))).toEqual([false, true]);
});

test("malformed pages and page signatures are refused, not thrown", () => {
  expect(pageSignaturesValid(keys, "not json")).toEqual([]);
  expect(pageSignaturesValid(keys, JSON.stringify({ items: "no" }))).toEqual([]);
  for (const page_sig of [null, "x", { kid }, { kid, sig: 5 }, { kid: 5, sig: "x" }]) {
    expect(pageSignaturesValid(keys, JSON.stringify({ items: [item(1), 7], page_sig }))).toEqual([true, false]);
  }
});
