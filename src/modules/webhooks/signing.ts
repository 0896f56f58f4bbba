// Standard Webhooks signing: `webhook-signature: v1,<base64 HMAC-SHA256>` over
// "<webhook-id>.<webhook-timestamp>.<body>", keyed by the bytes after `whsec_` (base64), so a
// receiver using a stock Standard Webhooks library verifies our deliveries unchanged.
import { createHmac, randomBytes } from "node:crypto";

export const SECRET_PREFIX = "whsec_";
/** Key length of a new secret: 32 random bytes (the spec asks for 24 to 64). */
const SECRET_BYTES = 32;

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString("base64");
}

/** The three headers of one attempt; `timestampSeconds` is the attempt's own time. */
export function signatureHeaders(secret: string, webhookId: string, timestampSeconds: number, body: string): Record<string, string> {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64");
  const signature = createHmac("sha256", key).update(`${webhookId}.${timestampSeconds}.${body}`).digest("base64");
  return {
    "webhook-id": webhookId,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": `v1,${signature}`,
  };
}
