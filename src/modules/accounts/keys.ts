// What an API key is and what a plan allows: the key's form, how it is made and hashed (only the
// hash is stored), and each plan's daily quota. The accounts service issues keys with these and the
// request path (http/auth.ts, http/limits.ts) checks them.
import type { ApiTier } from "../../domain";

/** The form of every key: `tl_live_` and 32 base62 characters. */
export const KEY_PATTERN = /^tl_live_[A-Za-z0-9]{32}$/;

/** SHA-256 of the whole key, hex: what the database keeps and looks keys up by. */
export function hashKey(key: string): string {
  return new Bun.CryptoHasher("sha256").update(key).digest("hex");
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A new secret `tl_live_` + 32 base62 characters, drawn without modulo bias. */
export function generateKey(): string {
  let out = "tl_live_";
  while (out.length < 40) {
    for (const byte of crypto.getRandomValues(new Uint8Array(48))) {
      if (byte < 248 && out.length < 40) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** Calls a day each plan allows an account (all its keys together), unless the operator overrides it. */
export const PLAN_DAILY_QUOTA: Record<ApiTier, number> = {
  free: 100,
  pro: 1_000,
  max: 5_000,
  enterprise: 100_000,
};
