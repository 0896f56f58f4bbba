// Prefixed, time-sortable, opaque ids (`bl_…`, `acct_…`): 10 characters of millisecond time in
// Crockford base32, then 16 random ones, so ids sort by creation and never collide in practice.
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

export type IdPrefix = "bl" | "acct" | "key" | "wh" | "evt" | "msg" | "crt" | "vch" | "deal" | "tw" | "req";

export function newId(prefix: IdPrefix, nowMs: number = Date.now()): string {
  let time = "";
  let t = nowMs;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let rand = "";
  for (const b of bytes) rand += ALPHABET[b & 31];
  return `${prefix}_${time}${rand}`;
}
