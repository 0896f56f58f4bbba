// Verifying a delivery as Standard Webhooks defines it (docs/webhooks.md): `webhook-signature` holds
// one or more `v1,<base64 HMAC-SHA256>` of "<webhook-id>.<webhook-timestamp>.<raw body>", keyed by
// the bytes after `whsec_`; a timestamp further than the tolerance from now is refused, so a
// captured delivery cannot be replayed later. WebCrypto does the HMAC, so this runs in Node, Bun,
// Deno, workers and browsers alike, and compares in constant time.
import type { webhooks } from "./schema.js";

/** Every event a delivery can carry (`webhook.test` included). */
export type WebhookEventType = keyof webhooks & string;
/** The events an endpoint may subscribe to. */
export type SubscribableEvent = Exclude<WebhookEventType, "webhook.test">;
type Delivered<K extends WebhookEventType> = webhooks[K] extends { post: { requestBody: { content: { "application/json": infer B } } } } ? B : never;
/** One delivery's body, `{type, timestamp, data}`, typed by its `type`. */
export type WebhookEvent<K extends WebhookEventType = WebhookEventType> = { [E in K]: Delivered<E> }[K];

/** Headers as `fetch` gives them, or as Node's `IncomingMessage.headers` does. */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Largest distance between `webhook-timestamp` and now, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** Now, in ms (tests). */
  now?: number;
}

/** Why a delivery was refused: `reason` is one of the listed causes; `message` says it in words. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  constructor(
    readonly reason: "missing_headers" | "bad_timestamp" | "stale_timestamp" | "bad_signature" | "bad_secret" | "bad_body",
    message: string,
  ) {
    super(message);
  }
}

const PREFIX = "whsec_";

function header(headers: HeadersLike, name: string): string | null {
  if (headers instanceof Headers) return headers.get(name);
  const value = headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> | null {
  try {
    const binary = atob(text);
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/**
 * The delivery's event, once its signature (under any of `secrets`, so a rotation can overlap)
 * and timestamp check out; a WebhookVerificationError otherwise. Pass the body exactly as received:
 * parsed and re-serialised JSON no longer matches its signature.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array | ArrayBuffer,
  headers: HeadersLike,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): Promise<WebhookEvent> {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError("missing_headers", "The webhook-id, webhook-timestamp and webhook-signature headers are required.");
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError("bad_timestamp", "webhook-timestamp is not Unix seconds.");
  const tolerance = options.toleranceSeconds ?? 300;
  const skew = Math.abs((options.now ?? Date.now()) / 1000 - Number(timestamp));
  if (skew > tolerance) throw new WebhookVerificationError("stale_timestamp", `webhook-timestamp is ${Math.round(skew)} s from now (at most ${tolerance} s allowed).`);

  const body = typeof rawBody === "string" ? new TextEncoder().encode(rawBody) : new Uint8Array(rawBody);
  const signed = new Uint8Array([...new TextEncoder().encode(`${id}.${timestamp}.`), ...body]);
  const candidates = signatures
    .split(" ")
    .filter((s) => s.startsWith("v1,"))
    .map((s) => base64Bytes(s.slice(3)))
    .filter((s): s is Uint8Array<ArrayBuffer> => s !== null);
  for (const secret of typeof secrets === "string" ? [secrets] : secrets) {
    const keyBytes = base64Bytes(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret);
    if (!keyBytes || keyBytes.length === 0) throw new WebhookVerificationError("bad_secret", "The signing secret is not `whsec_` followed by base64.");
    const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
    for (const signature of candidates) {
      if (await crypto.subtle.verify("HMAC", key, signature, signed)) {
        try {
          return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
        } catch {
          throw new WebhookVerificationError("bad_body", "The signed body is not JSON.");
        }
      }
    }
  }
  throw new WebhookVerificationError("bad_signature", "No signature matches the body under the given secret(s).");
}

/** `verify(rawBody, headers)` bound to an endpoint's secret(s). */
export function webhookVerifier(secrets: string | readonly string[], options: VerifyOptions = {}) {
  return {
    verify: (rawBody: string | Uint8Array | ArrayBuffer, headers: HeadersLike) => verifyWebhook(rawBody, headers, secrets, options),
  };
}
