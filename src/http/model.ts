// Schema helpers and shapes every controller shares.
import { Type, type IntegerOptions } from "@sinclair/typebox";
import { t } from "elysia";

/**
 * A string enum as a union of literals. (Elysia fills a missing required `t.UnionEnum` query
 * value with its first member, which would turn "missing" into a silent default.)
 */
export function literals<const T extends readonly [string, ...string[]]>(values: T, options: Record<string, unknown> = {}) {
  return t.Unsafe<T[number]>(t.Union(values.map((v) => t.Literal(v)), options));
}

/**
 * An integer in a JSON body or answer. (Elysia's `t.Integer` also accepts numeric strings, which
 * suits query strings but would let `"5"` pass for 5 in a body, where a wrong type is a 422; and
 * being a transform, in a response schema it makes Elysia encode every answer through the whole
 * schema before checking it, a fifth of the cost of a 100-item directory page.)
 */
export const JsonInteger = (options: IntegerOptions = {}) => Type.Integer(options);

export const DateTime = (description: string, example = "2026-11-21T10:00:00.000Z") =>
  t.String({ format: "date-time", description, examples: [example] });

export const ErrorEnvelope = t.Object(
  {
    error: t.Object({
      code: t.String({ description: "Machine-readable code.", examples: ["unauthorized"] }),
      message: t.String({ description: "What went wrong, for a person.", examples: ["Missing API key."] }),
      request_id: t.String({ description: "Equals the X-Request-Id response header.", examples: ["req_k2j4h1"] }),
    }),
  },
  { $id: "ErrorEnvelope", description: "Every error has this shape." },
);

/** Response map entries for the listed error statuses, for OpenAPI. */
export function errors<const S extends readonly number[]>(...statuses: S) {
  return Object.fromEntries(statuses.map((s) => [s, ErrorEnvelope])) as { [K in S[number]]: typeof ErrorEnvelope };
}

/** Errors every keyed route can answer. */
export const KEYED_ERRORS = [401, 402, 429] as const;

/** OpenAPI security of routes that take an API key or a signed-in session (http/guards.ts `keyOrSession`, `requireStaff`). */
export const KEY_OR_SESSION: { security: Record<string, string[]>[] } = { security: [{ apiKey: [] }, { session: [] }] };
