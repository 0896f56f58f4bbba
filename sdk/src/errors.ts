// One error class for every failure a call can end in, so a caller writes one `catch`: an answer
// with the API's envelope `{error: {code, message, request_id}}`, or no answer at all (status 0).
// The code list mirrors the server's (src/http/errors.ts) because this package ships alone.

/** The codes the API answers with (docs/api.md, "Conventions"), plus `network_error` and `timeout` for calls that got no answer. */
export type TrustlistErrorCode =
  | "invalid_request"
  | "invalid_cursor"
  | "unauthorized"
  | "subscription_required"
  | "plan_upgrade_required"
  | "not_entitled"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "conflict"
  | "gone"
  | "payload_too_large"
  | "unprocessable"
  | "idempotency_key_reused"
  | "rate_limited"
  | "quota_exceeded"
  | "busy"
  | "internal"
  | "network_error"
  | "timeout"
  | (string & {});

export class TrustlistError extends Error {
  override readonly name = "TrustlistError";
  /** The HTTP status, or 0 when no answer came (network failure, timeout). */
  readonly status: number;
  readonly code: TrustlistErrorCode;
  /** The request id to quote to the operator (the envelope's `request_id`, else `X-Request-Id`). */
  readonly requestId: string | null;
  /** Seconds the server asked to wait (`Retry-After`), on 429 and 503. */
  readonly retryAfter: number | null;

  constructor(init: { status: number; code: TrustlistErrorCode; message: string; requestId?: string | null; retryAfter?: number | null; cause?: unknown }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId ?? null;
    this.retryAfter = init.retryAfter ?? null;
  }

  /** The error for an answer outside 2xx; `body` is the parsed body (the envelope, when the server sent one). */
  static fromResponse(response: Response, body: unknown): TrustlistError {
    const envelope = (body as { error?: { code?: unknown; message?: unknown; request_id?: unknown } } | null)?.error;
    const text = (value: unknown) => (typeof value === "string" && value ? value : null);
    return new TrustlistError({
      status: response.status,
      code: text(envelope?.code) ?? (response.status >= 500 ? "internal" : `http_${response.status}`),
      message: text(envelope?.message) ?? `HTTP ${response.status} ${response.statusText}`.trim(),
      requestId: text(envelope?.request_id) ?? response.headers.get("x-request-id"),
      retryAfter: retryAfterSeconds(response.headers),
    });
  }
}

/** `Retry-After` in seconds, from delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | null {
  const value = headers.get("retry-after")?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}
