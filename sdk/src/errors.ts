// Every failure a call can end in is a TrustlistError, so one `catch` covers them all; the
// subclasses let a caller tell the cases apart with `instanceof` instead of comparing codes
// (rate limited, quota spent, not found, refused key, bad input, no answer, too slow). An answer
// with the API's envelope `{error: {code, message, request_id}}` carries its code; a call that got
// no answer has status 0. The code list mirrors the server's (src/http/errors.ts) because this
// package ships alone.

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
  | "not_appealable"
  | "gone"
  | "payload_too_large"
  | "unsupported_media_type"
  | "unprocessable"
  | "idempotency_key_reused"
  | "rate_limited"
  | "quota_exceeded"
  | "busy"
  | "internal"
  | "network_error"
  | "timeout"
  | (string & {});

/** What an answer said about itself: its status, request id, rate-limit headers and how it was reached. */
export interface ResponseMeta {
  /** The HTTP status (0 when no answer came). */
  status: number;
  /** `X-Request-Id`: quote it to the server's operator. */
  requestId: string | null;
  /** The `X-RateLimit-*` headers: the daily quota on keyed routes, the IP bucket on keyless ones. */
  rateLimit: { limit: number; remaining: number; reset: Date } | null;
  /** `Retry-After` in seconds, when the answer named one. */
  retryAfter: number | null;
  /** The server answered a repeated write from its record (`Idempotent-Replayed: true`). */
  replayed: boolean;
  /** Attempts the call took, the first included. */
  attempts: number;
  /** Every header of the answer. */
  headers: Headers;
}

interface ErrorInit {
  status: number;
  code: TrustlistErrorCode;
  message: string;
  requestId?: string | null;
  retryAfter?: number | null;
  meta?: ResponseMeta | null;
  cause?: unknown;
}

export class TrustlistError extends Error {
  override readonly name: string = "TrustlistError";
  /** The HTTP status, or 0 when no answer came (network failure, timeout). */
  readonly status: number;
  readonly code: TrustlistErrorCode;
  /** The request id to quote to the operator (the envelope's `request_id`, else `X-Request-Id`). */
  readonly requestId: string | null;
  /** Seconds the server asked to wait (`Retry-After`), on 429 and 503. */
  readonly retryAfter: number | null;
  /** The answer's metadata; null when no answer came. */
  readonly meta: ResponseMeta | null;

  constructor(init: ErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId ?? null;
    this.retryAfter = init.retryAfter ?? null;
    this.meta = init.meta ?? null;
  }

  /** The error of the subclass its code and status call for. */
  static from(init: ErrorInit): TrustlistError {
    const Class = SUBCLASS_BY_CODE[init.code] ?? SUBCLASS_BY_STATUS[init.status] ?? TrustlistError;
    return new Class(init);
  }

  /** The error for an answer outside 2xx; `body` is the parsed body (the envelope, when the server sent one). */
  static fromResponse(response: Response, body: unknown, meta?: ResponseMeta): TrustlistError {
    const envelope = (body as { error?: { code?: unknown; message?: unknown; request_id?: unknown } } | null)?.error;
    const text = (value: unknown) => (typeof value === "string" && value ? value : null);
    return TrustlistError.from({
      status: response.status,
      code: text(envelope?.code) ?? (response.status >= 500 ? "internal" : `http_${response.status}`),
      message: text(envelope?.message) ?? `HTTP ${response.status} ${response.statusText}`.trim(),
      requestId: text(envelope?.request_id) ?? response.headers.get("x-request-id"),
      retryAfter: retryAfterSeconds(response.headers),
      meta,
    });
  }
}

/** 429 `rate_limited`: the key's burst is spent; `retryAfter` says when to come back (seconds). */
export class RateLimitedError extends TrustlistError {
  override readonly name: string = "RateLimitedError";
}
/** 429 `quota_exceeded`: the account's daily quota is spent until midnight UTC (`retryAfter`). */
export class QuotaExceededError extends TrustlistError {
  override readonly name: string = "QuotaExceededError";
}
/** 404: no such entry, creator, endpoint… (or not yours). */
export class NotFoundError extends TrustlistError {
  override readonly name: string = "NotFoundError";
}
/** 401: no key, an unknown key or a revoked one. */
export class UnauthorizedError extends TrustlistError {
  override readonly name: string = "UnauthorizedError";
}
/** 402/403: the key's scope or the account's plan does not allow this. */
export class ForbiddenError extends TrustlistError {
  override readonly name: string = "ForbiddenError";
}
/** 409: the request conflicts with the current state (already overturned, already open…). */
export class ConflictError extends TrustlistError {
  override readonly name: string = "ConflictError";
}
/** 400/422: a malformed request or a value out of its range or enum; `message` names the field. */
export class ValidationError extends TrustlistError {
  override readonly name: string = "ValidationError";
}
/** No answer: the connection failed or broke, on every attempt (status 0). */
export class NetworkError extends TrustlistError {
  override readonly name: string = "NetworkError";
}
/** No answer in time: the last attempt outlasted `timeoutMs`, or the call its `deadlineMs` (status 0). */
export class TimeoutError extends TrustlistError {
  override readonly name: string = "TimeoutError";
}

const SUBCLASS_BY_CODE: Record<string, typeof TrustlistError> = {
  rate_limited: RateLimitedError,
  quota_exceeded: QuotaExceededError,
  not_found: NotFoundError,
  unauthorized: UnauthorizedError,
  invalid_request: ValidationError,
  invalid_cursor: ValidationError,
  unprocessable: ValidationError,
  network_error: NetworkError,
  timeout: TimeoutError,
};
const SUBCLASS_BY_STATUS: Record<number, typeof TrustlistError> = {
  400: ValidationError,
  401: UnauthorizedError,
  402: ForbiddenError,
  403: ForbiddenError,
  404: NotFoundError,
  409: ConflictError,
  422: ValidationError,
};

/** `Retry-After` in seconds, from delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | null {
  const value = headers.get("retry-after")?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** What `response` says about itself; `attempts` is how many the call took. */
export function metaOf(response: Response, attempts: number): ResponseMeta {
  const header = (name: string) => {
    const value = Number(response.headers.get(name) ?? NaN);
    return Number.isFinite(value) ? value : null;
  };
  const [limit, remaining, reset] = [header("x-ratelimit-limit"), header("x-ratelimit-remaining"), header("x-ratelimit-reset")];
  return {
    status: response.status,
    requestId: response.headers.get("x-request-id"),
    rateLimit: limit !== null && remaining !== null && reset !== null ? { limit, remaining, reset: new Date(reset * 1000) } : null,
    retryAfter: retryAfterSeconds(response.headers),
    replayed: response.headers.get("idempotent-replayed") === "true",
    attempts,
    headers: response.headers,
  };
}
