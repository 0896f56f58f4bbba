// What the signed feed and the instance's identity are made of: RFC 8785 canonical JSON, Ed25519
// keys as the well-known document writes them (base64url of the raw 32 bytes), fingerprints, and
// signing and verifying with node:crypto. Key objects are cached by their text: a feed page signs
// or verifies up to 1,000 items with one key.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, hash, type KeyObject, sign, verify } from "node:crypto";

/**
 * The canonical JSON of a value (RFC 8785, the JSON Canonicalization Scheme): no whitespace,
 * object members sorted by their names' UTF-16 code units, strings and numbers serialised as
 * ECMAScript's JSON.stringify does (which is what the scheme specifies). Undefined members are
 * left out, as JSON.stringify leaves them; a number that is not finite is refused.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error("canonical JSON has no form for a number that is not finite");
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`;
  if (typeof value === "object") {
    const record = value as Record<string, unknown>;
    let text = "{";
    for (const [key, name] of memberOrder(Object.keys(record))) {
      const member = record[key];
      if (member === undefined) continue;
      text += `${text.length > 1 ? "," : ""}${name}${canonicalJson(member)}`;
    }
    return `${text}}`;
  }
  throw new Error(`canonical JSON has no form for a ${typeof value}`);
}

/**
 * An object's member names sorted, each with its serialised `"name":`, kept by the list of names:
 * a feed's items all have the same few shapes, so a page is sorted once, not once per item.
 */
const memberOrders = new Map<string, Array<[string, string]>>();

function memberOrder(keys: string[]): Array<[string, string]> {
  const shape = JSON.stringify(keys);
  let order = memberOrders.get(shape);
  if (!order) {
    order = [...keys].sort().map((key) => [key, `${JSON.stringify(key)}:`]);
    if (memberOrders.size >= 256) memberOrders.clear();
    memberOrders.set(shape, order);
  }
  return order;
}

export interface KeyPair {
  /** base64url of the raw 32-byte public key. */
  publicKey: string;
  /** base64url of the PKCS#8 DER private key. */
  privateKey: string;
}

export function newKeyPair(): KeyPair {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  return {
    publicKey: publicKey.export({ format: "jwk" }).x!,
    privateKey: privateKey.export({ format: "der", type: "pkcs8" }).toString("base64url"),
  };
}

/** A key's fingerprint: the lowercase hex SHA-256 of its raw public key. */
export function fingerprint(publicKey: string): string {
  return createHash("sha256").update(Buffer.from(publicKey, "base64url")).digest("hex");
}

/** A key's id: the first 16 hex digits of its fingerprint. */
export function kidOf(publicKey: string): string {
  return fingerprint(publicKey).slice(0, 16);
}

const privateKeys = new Map<string, KeyObject>();
const publicKeys = new Map<string, KeyObject | null>();

function privateKeyObject(privateKey: string): KeyObject {
  let key = privateKeys.get(privateKey);
  if (!key) {
    key = createPrivateKey({ key: Buffer.from(privateKey, "base64url"), format: "der", type: "pkcs8" });
    privateKeys.set(privateKey, key);
  }
  return key;
}

function publicKeyObject(publicKey: string): KeyObject | null {
  if (publicKeys.has(publicKey)) return publicKeys.get(publicKey)!;
  let key: KeyObject | null = null;
  try {
    if (Buffer.from(publicKey, "base64url").length === 32) key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: publicKey }, format: "jwk" });
  } catch {
    key = null;
  }
  if (publicKeys.size > 1000) publicKeys.clear();
  publicKeys.set(publicKey, key);
  return key;
}

/** The base64url Ed25519 signature of the UTF-8 bytes of `text`. */
export function signText(privateKey: string, text: string): string {
  return sign(null, Buffer.from(text, "utf8"), privateKeyObject(privateKey)).toString("base64url");
}

/** Whether `signature` is `publicKey`'s over the UTF-8 bytes of `text`; false for any malformed part. */
export function verifyText(publicKey: string, text: string, signature: string): boolean {
  const key = publicKeyObject(publicKey);
  if (!key || typeof signature !== "string") return false;
  const bytes = Buffer.from(signature, "base64url");
  if (bytes.length !== 64) return false;
  try {
    return verify(null, Buffer.from(text, "utf8"), key, bytes);
  } catch {
    return false;
  }
}

/**
 * What a feed page's `page_sig` signs: one line per item, in order, `<base64url SHA-256 of the
 * item's signed text>.<the item's sig>`, the lines joined by "\n". It covers each item as its own
 * signature does, and that signature too: a follower that checks it checks one signature a page
 * instead of one an item (docs/federation.md, "Publishing: the signed feed").
 */
export function pageSignedText(texts: string[], sigs: string[]): string {
  return texts.map((text, i) => `${hash("sha256", text, "base64url")}.${sigs[i]}`).join("\n");
}

/** What an endorsement signs: `<new kid>.<new public key>`. */
export function endorsementText(kid: string, publicKey: string): string {
  return `${kid}.${publicKey}`;
}
