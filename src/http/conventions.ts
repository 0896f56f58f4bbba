// The conventions every route shares, whichever module answers: request ids, the error envelope
// for every failure, 404 and 405 for unknown routes, 400 for a path or query no handler can read,
// 413 for large bodies, CORS on the public surface, rate-limit headers on keyless routes, access
// logs and request metrics.
import { Elysia, type ValidationError } from "elysia";
import type { Runtime } from "../runtime";
import { isUnstorableText } from "../db/errors";
import { ServiceError } from "../errors";
import { clientBucketKey } from "./client-address";
import { GUARD_PARSERS, rawBodyLimitOfPath, readJsonBody } from "./body";
import { ApiError, envelope, fromServiceError, fromValidationError, ReplayedAnswer } from "./errors";
import { PUBLIC_IP_RULE } from "./limits";
import { urlTextProblem } from "./url-text";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
let requestCounter = 0;
const requestIdPrefix = Math.random().toString(36).slice(2, 8);

function newRequestId(): string {
  return `req_${requestIdPrefix}${(++requestCounter).toString(36)}`;
}

/** The request's id: the caller's `X-Request-Id` when it is a plain token, else a new one. */
export function requestIdOf(request: Request): string {
  const incoming = request.headers.get("x-request-id");
  return incoming && REQUEST_ID.test(incoming) ? incoming : newRequestId();
}

/**
 * The answer to an error thrown by a guard, a service or the database: its own status for an
 * ApiError or a ServiceError, 422 for text no database can hold, else 500 `internal`, logged with
 * the request id the caller sees.
 */
export function failureOf(runtime: Runtime, error: unknown, requestId: string): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ServiceError) return fromServiceError(error);
  if (isUnstorableText(error)) return new ApiError(422, "unprocessable", "Text with a NUL character (U+0000) cannot be stored or looked up.");
  runtime.log.error("unhandled error", {
    request_id: requestId,
    error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    stack: error instanceof Error ? error.stack?.split("\n").slice(0, 6).join(" | ") : undefined,
  });
  return new ApiError(500, "internal", "Internal error. Quote the request id when reporting it.");
}

/** What one answered request leaves behind: its metrics and, when enabled, its access line. */
export interface AnsweredRequest {
  method: string;
  /** The path without the query. */
  path: string;
  /** The route pattern that answered, or null for none. */
  route: string | null;
  status: number;
  startedAt: number;
  requestId: string;
  keyId?: string;
}

/** Answers a request a fast path leaves to the app (the Elysia app's `fetch`): blacklist/check-fast-path.ts, badge/fast-path.ts. */
export type AppFallback = (request: Request) => Response | Promise<Response>;

/** Records an answered request; every route's answer passes here once (`finish` below, and the check's and badge's fast paths). */
export function recordAnswer(runtime: Runtime, answer: AnsweredRequest) {
  const durationMs = performance.now() - answer.startedAt;
  runtime.metrics.observe(answer.method, answer.route ?? "unmatched", answer.status, durationMs);
  if (runtime.log.accessEnabled) {
    runtime.log.access({
      request_id: answer.requestId,
      method: answer.method,
      path: answer.path,
      route: answer.route,
      status: answer.status,
      duration_ms: Math.round(durationMs * 1000) / 1000,
      key_id: answer.keyId,
    });
  }
}

/** The path of a request URL without the query, without building a URL object. */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}

/** Routes anyone may call from a browser on another origin. */
export function isPublicPath(path: string): boolean {
  return (
    path.startsWith("/v1/public/") ||
    path === "/v1/stats/public" ||
    path.startsWith("/badge/") ||
    path === "/referrals/leaderboard" ||
    path.startsWith("/widget") ||
    path === "/v1/courses" ||
    path.startsWith("/v1/courses/") ||
    path === "/.well-known/trustlist.json"
  );
}

/** A signed-in creator's own routes: a session cookie, never an API key (http/session-cookie.ts). */
export function isSessionPath(path: string): boolean {
  return path === "/v1/me" || path.startsWith("/v1/me/");
}

/** Routes that take an API key: the rest of /v1 and /metrics. Their guard sets the quota headers. */
export function isKeyedPath(path: string, isPublic = isPublicPath(path)): boolean {
  return (!isPublic && path.startsWith("/v1/") && !isSessionPath(path)) || path === "/metrics";
}

/** What every answer of a route anyone may call from another origin carries (isPublicPath). */
export const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After",
};

/** The key of the caller's per-IP buckets: its address, or its /64 for IPv6 (client-address.ts). */
export function clientIp(runtime: Runtime, request: Request, server: { requestIP(r: Request): { address: string } | null } | null): string {
  return clientBucketKey(request, server, runtime.config.trustProxy);
}

type Headers = Record<string, string | number>;

/** Rate-limit headers for a keyless caller, from the shared public IP bucket, without charging it. */
export function peekIpHeaders(runtime: Runtime, ip: string, headers: Headers) {
  const state = runtime.ipBuckets.peek(`ip:public:${ip}`, PUBLIC_IP_RULE);
  headers["x-ratelimit-limit"] = PUBLIC_IP_RULE.capacity;
  headers["x-ratelimit-remaining"] = state.remaining;
  headers["x-ratelimit-reset"] = state.resetAt;
}

interface FinishContext {
  request: Request;
  set: { headers: Record<string, unknown> };
  route?: string;
  path?: string;
  startedAt?: number;
  caller?: { keyId: string };
}

/** What the hooks put on the context for `finish`: when the request began, and the guard's caller. */
type Timed = { startedAt?: number; caller?: { keyId: string } };

interface RouteMatcher {
  method: string;
  pattern: RegExp;
}

/**
 * The 400 for a request whose path or query no handler can read (url-text.ts), or null. The badge
 * is exempt: it is always an image, and text that cannot be a handle gets the neutral badge.
 */
function unreadableUrl(request: Request): ApiError | null {
  const url = request.url;
  const problem = urlTextProblem(url);
  if (problem === null || pathOf(url).startsWith("/badge/")) return null;
  return new ApiError(400, "invalid_request", problem);
}

export function conventions(runtime: Runtime) {
  let matchers: RouteMatcher[] | null = null;
  const routeTable = { routes: [] as { method: string; path: string; parse?: readonly { fn: unknown }[] }[] };
  /** Routes whose guard reads the body itself, once the caller is admitted (guards.ts). */
  let parsedByGuard: Set<string> | null = null;

  /** Methods registered for a concrete path, for 405 and its Allow header. */
  const methodsFor = (path: string): string[] => {
    matchers ??= routeTable.routes.map((route) => ({
      method: route.method,
      pattern: new RegExp(
        "^" + route.path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+").replace(/\*/g, ".*") + "$",
      ),
    }));
    const methods = new Set<string>();
    for (const m of matchers) if (m.pattern.test(path)) methods.add(m.method);
    return [...methods];
  };

  /**
   * Metrics and the access line, once per request: from the after-handle hook on success and
   * from the error handler otherwise. Synchronous on purpose: an after-response hook is
   * scheduled separately for every request, which the hot path cannot afford.
   *
   * The hooks hand it the fields it reads, never their whole context: Elysia infers from a hook's
   * source which parts of the context to build, and a context passed whole to a function makes it
   * build all of them (headers object, cookies, body) for every request of every route.
   */
  const finish = (ctx: FinishContext, status: number) =>
    recordAnswer(runtime, {
      method: ctx.request.method,
      path: ctx.path ?? pathOf(ctx.request.url),
      route: ctx.route || null,
      status,
      startedAt: ctx.startedAt ?? performance.now(),
      requestId: String(ctx.set.headers["x-request-id"]),
      keyId: ctx.caller?.keyId,
    });

  const plugin = new Elysia({ name: "conventions" })
    .onRequest((ctx) => {
      const { request, set, server } = ctx;
      const startedAt = ((ctx as { startedAt?: number }).startedAt = performance.now());
      // Before anything reads a cache: another process's revoke, suspend or blacklist add applies now.
      runtime.store.changes.checkAtRequest();
      set.headers["x-request-id"] = requestIdOf(request);
      const path = pathOf(request.url);
      const isPublic = isPublicPath(path);
      // Before the preflight answer below: a keyless route's preflight carries its limit headers too.
      if (!isKeyedPath(path, isPublic)) peekIpHeaders(runtime, clientIp(runtime, request, server), set.headers);
      if (isPublic) {
        Object.assign(set.headers, CORS_HEADERS);
        if (request.method === "OPTIONS") {
          finish({ request, set, startedAt, path }, 204);
          return new Response(null, {
            status: 204,
            headers: {
              ...CORS_HEADERS,
              "access-control-allow-methods": "GET, HEAD, OPTIONS",
              "access-control-allow-headers": "Authorization, Content-Type, X-Request-Id",
              "access-control-max-age": "86400",
              "x-request-id": set.headers["x-request-id"] as string,
            },
          });
        }
      }
      if (request.method === "GET" || request.method === "HEAD") return;
      const length = Number(request.headers.get("content-length") ?? 0);
      if (length <= runtime.config.maxBodyBytes) return;
      // A file route (an evidence upload) takes more than a JSON body; its guard reads it within
      // that bound. Asked only of a body over the JSON bound, so other writes never look it up.
      const max = rawBodyLimitOfPath(request.method, path) ?? runtime.config.maxBodyBytes;
      if (length > max) {
        throw new ApiError(413, "payload_too_large", `Request body is larger than ${max} bytes.`);
      }
    })
    // Every body is read by the one bounded parser (body.ts), never by Elysia's: a guard's parse
    // hook reads it once the caller is admitted, and this one, which runs first, leaves those
    // routes to their guard and reads the body of every other route.
    .onParse({ as: "global" }, ({ request, route }) => {
      parsedByGuard ??= new Set(
        routeTable.routes.filter((r) => r.parse?.some((hook) => GUARD_PARSERS.has(hook.fn as Function))).map((r) => `${r.method} ${r.path}`),
      );
      if (parsedByGuard.has(`${request.method} ${route}`)) return;
      return readJsonBody(request, runtime.config.maxBodyBytes);
    })
    .onError({ as: "global" }, (ctx) => {
      const { code, error, set, request, server, route } = ctx;
      const finished = (status: number) => finish({ request, set, route, startedAt: (ctx as Timed).startedAt, caller: (ctx as Timed).caller }, status);
      const requestId = String(set.headers["x-request-id"] ?? newRequestId());
      set.headers["x-request-id"] = requestId;
      if (set.headers["x-ratelimit-remaining"] === undefined) {
        peekIpHeaders(runtime, clientIp(runtime, request, server), set.headers);
      }
      const replay = error instanceof ReplayedAnswer ? error : (error as Error).cause instanceof ReplayedAnswer ? ((error as Error).cause as ReplayedAnswer) : null;
      if (replay) {
        set.status = replay.status;
        set.headers["content-type"] = replay.contentType;
        set.headers["idempotent-replayed"] = "true";
        finished(replay.status);
        return replay.body;
      }
      let failure: ApiError;
      if (error instanceof ApiError || error instanceof ServiceError) failure = failureOf(runtime, error, requestId);
      // A path or query value that failed its schema because it could not be decoded, or holds a
      // control character, gets the same answer as one that passed it (the hook below).
      else if (code === "VALIDATION") failure = unreadableUrl(request) ?? fromValidationError(error as ValidationError, request.url);
      // A guard's refusal inside the parse stage arrives wrapped in Elysia's parse error.
      else if (code === "PARSE" && (error as Error).cause instanceof ApiError) failure = (error as Error).cause as ApiError;
      else if (code === "PARSE") failure = new ApiError(400, "invalid_request", "Request body is not valid JSON.");
      else if (code === "NOT_FOUND") {
        const path = pathOf(request.url);
        const allowed = methodsFor(path);
        failure =
          allowed.length > 0
            ? new ApiError(405, "method_not_allowed", `${request.method} is not allowed here; use ${allowed.join(", ")}.`, {
                allow: allowed.join(", "),
              })
            : new ApiError(404, "not_found", `No route ${request.method} ${path}.`);
      } else if (code === "INVALID_COOKIE_SIGNATURE") failure = new ApiError(401, "unauthorized", "Invalid session cookie.");
      else failure = failureOf(runtime, error, requestId);
      set.status = failure.status;
      if (failure.headers) Object.assign(set.headers, failure.headers);
      finished(failure.status);
      return envelope(failure.code, failure.message, requestId);
    })
    // Text no route can take is refused before any handler reads a parameter (url-text.ts). After
    // the guards, as a malformed parameter is: without a key it is still a 401, with one it counts
    // against the quota, and a keyless caller's bucket is charged.
    .onBeforeHandle({ as: "global" }, ({ request }) => {
      const unreadable = unreadableUrl(request);
      if (unreadable) throw unreadable;
    })
    .onAfterHandle({ as: "global" }, (ctx) => {
      const { request, set, route, path } = ctx;
      finish({ request, set, route, path, startedAt: (ctx as Timed).startedAt, caller: (ctx as Timed).caller }, typeof set.status === "number" ? set.status : 200);
    });

  return { plugin, routeTable };
}
