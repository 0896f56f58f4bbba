// Failures a service reports without knowing about HTTP. The HTTP layer maps each kind to a status
// and envelope code; the CLI prints the message and exits non-zero.
export type ServiceErrorKind =
  | "invalid"
  | "invalid_cursor"
  | "not_found"
  | "conflict"
  | "unprocessable"
  | "limit"
  | "busy"
  | "unauthorized"
  | "gone"
  | "forbidden"
  | "rate_limited"
  | "not_appealable"
  | "unsupported_media_type"
  | "too_large";

export class ServiceError extends Error {
  constructor(
    readonly kind: ServiceErrorKind,
    message: string,
    /** For `rate_limited`: seconds until the caller may try again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "ServiceError";
  }
}

export const invalid = (message: string) => new ServiceError("invalid", message);
export const unprocessable = (message: string) => new ServiceError("unprocessable", message);
export const notFound = (message: string) => new ServiceError("not_found", message);
export const conflict = (message: string) => new ServiceError("conflict", message);
/** Not signed in, or a sign-in link that is unknown, used or expired. */
export const unauthorized = (message: string) => new ServiceError("unauthorized", message);
/** A feature this server has turned off (course submissions by default). */
export const gone = (message: string) => new ServiceError("gone", message);
/** Something the caller's role or scope does not allow. */
export const forbidden = (message: string) => new ServiceError("forbidden", message);
/** Too many of something in a window; `retryAfterSeconds` says when the next is allowed. */
export const rateLimited = (message: string, retryAfterSeconds: number) => new ServiceError("rate_limited", message, Math.max(1, Math.ceil(retryAfterSeconds)));
