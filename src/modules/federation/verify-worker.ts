// The thread that verifies a feed page's signatures (signatures.ts) while the sync thread applies
// the page before it: {id, keys: [kid, public key][], items} in; {id, valid: boolean[]} out, one
// flag per item: its `sig` verifies over its canonical JSON with the key its `kid` names.
import { signaturesValid } from "./signatures";

declare const self: Worker;

self.onmessage = (event: MessageEvent<{ id: number; keys: Array<[string, string]>; items: unknown[] }>) => {
  const { id, keys, items } = event.data;
  self.postMessage({ id, valid: signaturesValid(new Map(keys), items) });
};
