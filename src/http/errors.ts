// The one error shape of the API, `{error: {code, message, request_id}}`, and the mapping from
// every failure (ours, Elysia's validation, parse and routing errors, the unexpected) onto it.
import { ValueErrorType } from "@sinclair/typebox/errors";
import type { ValidationError } from "elysia";
import type { ServiceError, ServiceErrorKind } from "../errors";

export type ErrorCode =
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
  | "internal";

/** A failure that services and guards throw; the error handler turns it into the envelope. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** An answer kept under an Idempotency-Key, thrown before the handler so it is sent again as it was. */
export class ReplayedAnswer extends Error {
  constructor(
    readonly status: number,
    readonly contentType: string,
    readonly body: string,
  ) {
    super("replayed answer");
    this.name = "ReplayedAnswer";
  }
}

const invalidRequest = (message: string) => new ApiError(400, "invalid_request", message);
const unprocessable = (message: string) => new ApiError(422, "unprocessable", message);

const SERVICE_ERROR_STATUS: Record<ServiceErrorKind, [number, ErrorCode]> = {
  invalid: [400, "invalid_request"],
  invalid_cursor: [400, "invalid_cursor"],
  not_found: [404, "not_found"],
  conflict: [409, "conflict"],
  unprocessable: [422, "unprocessable"],
  limit: [409, "conflict"],
  busy: [503, "busy"],
  unauthorized: [401, "unauthorized"],
  gone: [410, "gone"],
  forbidden: [403, "forbidden"],
  rate_limited: [429, "rate_limited"],
  not_appealable: [409, "not_appealable"],
  unsupported_media_type: [415, "unsupported_media_type"],
  too_large: [413, "payload_too_large"],
};

/** Seconds a client is told to wait after `busy`: the write already waited 5 s for the lock. */
const BUSY_RETRY_AFTER_S = 1;

export function fromServiceError(error: ServiceError): ApiError {
  const [status, code] = SERVICE_ERROR_STATUS[error.kind];
  const headers =
    error.kind === "busy"
      ? { "retry-after": String(BUSY_RETRY_AFTER_S) }
      : error.retryAfterSeconds !== undefined
        ? { "retry-after": String(error.retryAfterSeconds) }
        : undefined;
  return new ApiError(status, code, error.message, headers);
}

export function envelope(code: ErrorCode, message: string, requestId: string) {
  return { error: { code, message, request_id: requestId } };
}

/** Longest field name an error message repeats. */
const MAX_NAMED_FIELD = 100;

/**
 * Elysia's schema failures. A value that is missing (or an array left empty) is the caller's
 * malformed request: 400, as the seed lists for missing provider, id, accounts and items. A value
 * of the wrong type, range or enum is 422. A schema can move its own failure to 400 with
 * `"x-invalid-status": 400` (the single check's unknown provider).
 */
export function fromValidationError(error: ValidationError, url?: string): ApiError {
  // Only the first failure is named, and it is the one Elysia already found: `error.all` would walk
  // the whole value again for up to 64 more, each carrying a copy of its part of the body.
  const first = error.valueError as
    | { type?: number; path?: string; value?: unknown; message?: string; schema?: Record<string, unknown> }
    | undefined;
  // Elysia reports a coerced query value (a number, a boolean) as a bare "property" without its
  // name; the name is the query parameter that carried that value.
  const coerced = error.type === "property";
  const where = error.type === "query" || coerced ? "query parameter" : error.type === "params" ? "path parameter" : "body field";
  if (!first) return new ApiError(422, "unprocessable", `Invalid ${where}.`);
  let field = (first.path ?? "").replace(/^\//, "").replaceAll("/", ".");
  if (coerced && !field && url) {
    for (const [name, value] of new URL(url).searchParams) if (value === String(first.value)) field = name;
  }
  // A body's field names are the caller's text: one a megabyte long is named by its start.
  if (field.length > MAX_NAMED_FIELD) field = `${field.slice(0, MAX_NAMED_FIELD)}…`;
  const missing = first.value === undefined || first.type === ValueErrorType.ObjectRequiredProperty;
  if (missing) return invalidRequest(field ? `Missing required ${where} '${field}'.` : "Request body is required.");
  if (first.type === ValueErrorType.ArrayMinItems) return invalidRequest(`'${field}' must not be empty.`);
  if (first.type === ValueErrorType.Never || first.type === ValueErrorType.ObjectAdditionalProperties) {
    // A numeric last segment is an array position, not a field name: the value had the wrong shape.
    const owner = field.replace(/(\.\d+)+$/, "");
    if (owner !== field && owner) return unprocessable(`Invalid ${where} '${owner}': unexpected value.`);
    return unprocessable(`Unknown ${where} '${field}'.`);
  }
  const status = first.schema?.["x-invalid-status"] === 400 ? 400 : 422;
  const detail = describe(first);
  return new ApiError(status, status === 400 ? "invalid_request" : "unprocessable", `Invalid ${where} '${field}': ${detail}.`);
}

function describe(error: { type?: number; message?: string; schema?: Record<string, unknown> }): string {
  const schema = error.schema ?? {};
  const options = enumValues(schema);
  if (options) return `expected one of ${options.join(", ")}`;
  if (error.type === ValueErrorType.ArrayMaxItems) return `at most ${schema.maxItems} items allowed`;
  if (error.type === ValueErrorType.NumberMinimum || error.type === ValueErrorType.IntegerMinimum)
    return `must be at least ${schema.minimum}`;
  if (error.type === ValueErrorType.NumberMaximum || error.type === ValueErrorType.IntegerMaximum)
    return `must be at most ${schema.maximum}`;
  if (error.type === ValueErrorType.StringMaxLength) return `at most ${schema.maxLength} characters`;
  if (error.type === ValueErrorType.StringMinLength) return `at least ${schema.minLength} characters`;
  return (error.message ?? "invalid value").replace(/\.$/, "").toLowerCase();
}

function enumValues(schema: Record<string, unknown>): string[] | null {
  if (Array.isArray(schema.enum)) return schema.enum.map(String);
  const anyOf = schema.anyOf as Array<Record<string, unknown>> | undefined;
  if (Array.isArray(anyOf) && anyOf.every((s) => "const" in s)) return anyOf.map((s) => String(s.const));
  return null;
}
