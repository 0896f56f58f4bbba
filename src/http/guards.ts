// Guards a controller mounts with `.use(...)`: an API key of at least some scope, or a per-IP
// bucket for keyless routes. Both run before schema validation, so a request without a key is a
// 401 whatever its parameters, and a malformed keyed request still counts against the quota (the
// quota counts every keyed request that passes authentication).
import { Elysia } from "elysia";
import { type ApiTier, type KeyScope, STAFF_ROLES, type StaffRole } from "../domain";
import type { Runtime } from "../runtime";
import type { Actor } from "../modules/audit/model";
import { openRequestSlot } from "../db/idempotency";
import { admitKeyed, type Caller } from "./auth";
import { admitSession, type SessionLookup, sessionCookieName, sessionOf, sessionsAreSecure, type Viewer } from "./session-cookie";
import { guardParser, readRouteBody } from "./body";
import { MAX_FORWARDED_FOR } from "./client-address";
import { clientIp } from "./conventions";
import { ApiError } from "./errors";
import type { BucketRule } from "./limits";

type Admitted = { caller?: Caller };

const PRO_OR_HIGHER: ReadonlySet<ApiTier> = new Set(["pro", "max", "enterprise"]);

/** Plans that unlock the paid routes (batch checks, webhook management): Pro and above. */
export function isProOrHigher(tier: ApiTier): boolean {
  return PRO_OR_HIGHER.has(tier);
}

/** How the keyed guard admits a caller and reads a body; `requireKey` and `keyOrSession` mount them. */
function keyedStages(runtime: Runtime, scope: KeyScope) {
  const admitNow = (request: Request, route: string, headers: Record<string, string | number>) =>
    admitKeyed(runtime, request.headers.get("authorization"), scope, `${request.method} ${route}`, headers);
  // SQLite answers the key lookup and the daily count at once; PostgreSQL loads them into the
  // caches first (one query each on a miss), then admission runs as on SQLite.
  const admit = (request: Request, route: string, headers: Record<string, string | number>): Caller | Promise<Caller> => {
    if (runtime.keys.answersAtOnce) return admitNow(request, route, headers);
    return loadCaller(runtime, request.headers.get("authorization")).then(() => admitNow(request, route, headers));
  };
  // Routes with a body: admit before the body is read, so bad JSON without a key is a 401 and bad
  // JSON with a key is counted like any other malformed request. The body is then read and parsed
  // within its bounds (body.ts), never by Elysia. Keyed writes (the methods with a body stage)
  // also pass the Idempotency-Key gate here, which fingerprints the body.
  const parse = async (ctx: { request: Request; route: string; set: { headers: Record<string, string | number> } }) => {
    const admitted = admit(ctx.request, ctx.route, ctx.set.headers);
    // Before any await: the request slot it opens must be the one the handler's writes see.
    const slot = openRequestSlot();
    const caller = ((ctx as Admitted).caller = admitted instanceof Promise ? await admitted : admitted);
    const idempotent = runtime.idempotency.enter(ctx.request, slot);
    const { body, fingerprint } = await readRouteBody(ctx.request, ctx.route, runtime.config.maxBodyBytes);
    if (idempotent) await runtime.idempotency.begin(ctx.request, caller.accountId, idempotent, fingerprint);
    return body;
  };
  return { admit, admitNow, parse };
}

export function requireKey(runtime: Runtime, scope: KeyScope = "read") {
  const { admit, admitNow, parse } = keyedStages(runtime, scope);
  return (
    new Elysia()
      .onParse({ as: "scoped" }, guardParser(parse))
      // The answer as sent (after schema normalisation, errors included) is what a retry gets.
      // SQLite stores it before `settle` returns; PostgreSQL's store is awaited (an async hook, so
      // Elysia waits for it) before the answer goes out.
      .mapResponse(
        { as: "scoped" },
        runtime.keys.answersAtOnce
          ? ({ request, set, responseValue }) => {
              if (request.method !== "GET") void runtime.idempotency.settle(request, typeof set.status === "number" ? set.status : 200, responseValue);
            }
          : async ({ request, set, responseValue }) => {
              if (request.method !== "GET") await runtime.idempotency.settle(request, typeof set.status === "number" ? set.status : 200, responseValue);
            },
      )
      // Synchronous where the database answers at once: no promise on SQLite's hot path. Elysia
      // awaits a derive only when the function itself is async, so PostgreSQL's is declared so
      // (a returned promise was otherwise passed on as it was, and `caller` was undefined). Each
      // hook names the context fields it reads: Elysia builds only those for the route.
      .derive(
        { as: "scoped" },
        runtime.keys.answersAtOnce
          ? (ctx) => ({ caller: (ctx as Admitted).caller ?? admitNow(ctx.request, ctx.route, ctx.set.headers) })
          : async (ctx) => ({ caller: (ctx as Admitted).caller ?? (await admit(ctx.request, ctx.route, ctx.set.headers)) }),
      )
  );
}

/** An API key as the audit log names who acted. */
export function keyActor(caller: Caller): Actor {
  return { kind: "key", id: caller.keyId };
}

/** Where the caches answer only what was loaded (PostgreSQL): the caller's key, then its account's count. */
async function loadCaller(runtime: Runtime, authorization: string | null): Promise<void> {
  await runtime.keys.load(authorization);
  const caller = authorization === null ? null : runtime.keys.fromHeader(authorization);
  if (caller) await runtime.quota.load(caller.accountId);
}

/**
 * Takes a token from the caller's IP bucket named `name` and sets the rate-limit headers; answers
 * the bucket's state, so a caller that refuses in its own format (the HTML pages) shares the rule.
 */
export function chargeIp(
  runtime: Runtime,
  name: string,
  rule: BucketRule,
  ctx: { request: Request; server: Parameters<typeof clientIp>[2]; set: { headers: Record<string, string | number> } },
) {
  const ip = clientIp(runtime, ctx.request, ctx.server);
  const state = runtime.ipBuckets.take(`ip:${name}:${ip}`, rule);
  ctx.set.headers["x-ratelimit-limit"] = rule.capacity;
  ctx.set.headers["x-ratelimit-remaining"] = state.remaining;
  ctx.set.headers["x-ratelimit-reset"] = state.resetAt;
  return { ip, ...state };
}

/**
 * Charges the caller's IP bucket named `name`: 429 `rate_limited` when it is empty, 400 for a padded
 * X-Forwarded-For. Answers the caller's address.
 */
function chargeIpOrRefuse(
  runtime: Runtime,
  name: string,
  rule: BucketRule,
  ctx: { request: Request; server: Parameters<typeof clientIp>[2]; set: { headers: Record<string, string | number> } },
): string {
  const state = chargeIp(runtime, name, rule, ctx);
  if (!state.allowed) {
    throw new ApiError(429, "rate_limited", `Too many requests from this address; retry in ${state.retryAfter} s.`, {
      "retry-after": String(state.retryAfter),
    });
  }
  // Only the header's last entries were read, so its length cost nothing, but one this long was
  // padded by its sender. Refused after the charge, so a flood of them still meets the 429.
  if (runtime.config.trustProxy > 0 && (ctx.request.headers.get("x-forwarded-for")?.length ?? 0) > MAX_FORWARDED_FOR) {
    throw new ApiError(400, "invalid_request", `X-Forwarded-For is longer than ${MAX_FORWARDED_FOR} characters.`);
  }
  return state.ip;
}

/** Charges the caller's IP bucket named `name`; 429 `rate_limited` when it is empty. */
export function limitByIp(runtime: Runtime, name: string, rule: BucketRule) {
  // The fields chargeIp reads, never the whole context (see `finish` in conventions.ts).
  return new Elysia().derive({ as: "scoped" }, ({ request, server, set }) => ({ clientIp: chargeIpOrRefuse(runtime, name, rule, { request, server, set }) }));
}

type SignedIn = { viewer?: Viewer };
type Charged = { ipCharged?: boolean };

/** Methods that change something: a browser sends `Origin` on every one of them. */
function isWrite(method: string): boolean {
  return method !== "GET" && method !== "HEAD" && method !== "OPTIONS";
}

/**
 * Refuses (403 `forbidden`) a request that a browser did not send from this service's own origin:
 * the configured base URL's, or without one the origin the request was addressed to. The session
 * cookie goes with every request to this host whichever page makes it; SameSite=Lax keeps other
 * sites out, but not a page on a sibling subdomain, which is the same site. Browsers send `Origin`
 * on every POST, PUT, PATCH and DELETE, so a missing one is refused too; `Sec-Fetch-Site` is not
 * taken instead, as every browser that sends it also sends `Origin` on these methods.
 */
export function requireSameOrigin(runtime: Runtime, request: Request): void {
  const origin = request.headers.get("origin");
  if (origin === null) {
    throw new ApiError(403, "forbidden", "This request changes a signed-in session's data and carries no Origin header: send it from this service's own pages.");
  }
  const own = runtime.config.baseUrlConfigured ? new URL(runtime.config.baseUrl).origin : new URL(request.url).origin;
  if (originOf(origin) !== own) {
    throw new ApiError(403, "forbidden", `Requests that act on a signed-in session must come from ${own}, not from another origin.`);
  }
}

/** An `Origin` header in URL's serialisation (lower case, default port left out), or null for `null` and junk. */
function originOf(header: string): string | null {
  try {
    return new URL(header).origin;
  } catch {
    return null;
  }
}

/** The session cookie's name on this server (`__Host-session` on https, else `session`). */
export function sessionCookieOf(runtime: Runtime): string {
  return sessionCookieName(sessionsAreSecure(runtime.config.baseUrl));
}

/**
 * The parse hook of routes a browser reaches with the session cookie (`/auth/logout`, and every
 * `requireSession` route): `admit` runs first (the session check, so a request without one is a
 * 401), then a write must come from this service's own origin (`requireSameOrigin`), and only
 * then is the body read, by the one bounded parser (body.ts). Mount it with
 * `.onParse({ as: "scoped" }, ...)` on the instance that holds the routes: Elysia does not pass a
 * plugin's scoped hook on past the instance that uses it.
 */
export function cookieWriteParser<A>(runtime: Runtime, admit: (request: Request) => A | Promise<A>, onAdmitted: (ctx: object, admitted: A) => void = () => {}) {
  return guardParser(async (ctx: { request: Request; route?: string }) => {
    onAdmitted(ctx, await admit(ctx.request));
    requireSameOrigin(runtime, ctx.request);
    return (await readRouteBody(ctx.request, ctx.route, runtime.config.maxBodyBytes)).body;
  });
}

/**
 * A signed-in creator's routes: the session cookie, never an API key, and a per-IP bucket. The
 * session is checked before the body is parsed, so a request without one is a 401 whatever it
 * sends; a write from another origin is then 403 (`cookieWrites`).
 */
export function requireSession(runtime: Runtime, sessions: SessionLookup, rule: BucketRule) {
  const stages = sessionStages(runtime, sessions, rule);
  return new Elysia().onParse({ as: "scoped" }, guardParser(stages.parse)).derive({ as: "scoped" }, async (ctx) => ({ viewer: await stages.viewer(ctx) }));
}

type SessionContext = Charged & SignedIn & { request: Request; route?: string; server: Parameters<typeof clientIp>[2]; set: { headers: Record<string, string | number> } };

/** How the session guard admits a creator and reads a body; `requireSession` and `keyOrSession` mount them. */
function sessionStages(runtime: Runtime, sessions: SessionLookup, rule: BucketRule) {
  const cookie = sessionCookieOf(runtime);
  const admit = (request: Request) => admitSession(sessions, request, cookie);
  // The bucket is charged here, not by a nested `limitByIp`: a scoped hook of a plugin used inside
  // this one stops at this instance and never reached the routes that mount `requireSession`.
  // A write is charged in the parse stage, before its session and body are read; a read in derive.
  const charge = (ctx: SessionContext) => {
    if (ctx.ipCharged) return;
    ctx.ipCharged = true;
    chargeIpOrRefuse(runtime, "session", rule, { request: ctx.request, server: ctx.server, set: ctx.set });
  };
  const parseWrite = cookieWriteParser(runtime, admit, (ctx, viewer) => ((ctx as SignedIn).viewer = viewer));
  return {
    parse: (ctx: object) => {
      charge(ctx as SessionContext);
      return parseWrite(ctx as SessionContext);
    },
    // Where the parse stage did not run (a read), or ran some other parser: the same checks, in the same order.
    viewer: async (ctx: object): Promise<Viewer> => {
      const context = ctx as SessionContext;
      charge(context);
      if (context.viewer) return context.viewer;
      const viewer = await admit(context.request);
      if (isWrite(context.request.method)) requireSameOrigin(runtime, context.request);
      return viewer;
    },
  };
}

/**
 * Routes that either a bot's API key or a signed-in creator may call (reports, appeals' reads):
 * with an Authorization header the key guard's rules (scope, quota, Idempotency-Key), else the
 * session guard's (the per-IP bucket, same-origin writes). Hands on `caller` or `viewer`; the
 * other is null.
 */
export function keyOrSession(runtime: Runtime, sessions: SessionLookup, scope: KeyScope, rule: BucketRule) {
  return keyOrSessionGuard(runtime, sessions, scope, rule, async (admitted) => admitted);
}

/**
 * Staff routes: a staff member's session whose role is at least `least`, or an admin-scoped key
 * (it may do what a moderator does through the API). 403 `forbidden` for a signed-in creator
 * without the role. Hands on `actor`, as the audit log names who acted, and `staff` (the signed-in
 * member and role; null for a key).
 */
export function requireStaff(runtime: Runtime, sessions: SessionLookup, roles: StaffRoles, least: StaffRole, rule: BucketRule) {
  return keyOrSessionGuard(runtime, sessions, "admin", rule, async ({ caller, viewer }) => {
    if (caller) return { actor: keyActor(caller), staff: null };
    const role = await roles.roleOf(viewer!.creatorId);
    if (role === null) throw new ApiError(403, "forbidden", "This route is for staff: ask the operator for a role.");
    if (STAFF_ROLES.indexOf(role) < STAFF_ROLES.indexOf(least)) {
      throw new ApiError(403, "forbidden", `This needs the ${least} role or higher; you are ${role}.`);
    }
    return { actor: { kind: "staff", id: viewer!.handle } as Actor, staff: { ...viewer!, role } };
  });
}

/** The staff roles as a guard reads them (the staff module answers). */
export interface StaffRoles {
  roleOf(creatorId: string): Promise<StaffRole | null>;
}

/** The guard of `keyOrSession` and `requireStaff`; `refine` turns who was admitted into what routes get. */
function keyOrSessionGuard<R extends Record<string, unknown>>(
  runtime: Runtime,
  sessions: SessionLookup,
  scope: KeyScope,
  rule: BucketRule,
  refine: (admitted: { caller: Caller | null; viewer: Viewer | null }) => Promise<R>,
) {
  const keyed = keyedStages(runtime, scope);
  const session = sessionStages(runtime, sessions, rule);
  const keyedRequest = (request: Request) => request.headers.has("authorization");
  return new Elysia()
    .onParse(
      { as: "scoped" },
      guardParser((ctx: { request: Request; route: string; set: { headers: Record<string, string | number> } }) =>
        keyedRequest(ctx.request) ? keyed.parse(ctx) : session.parse(ctx),
      ),
    )
    .mapResponse({ as: "scoped" }, async ({ request, set, responseValue }) => {
      if (request.method !== "GET" && keyedRequest(request)) await runtime.idempotency.settle(request, typeof set.status === "number" ? set.status : 200, responseValue);
    })
    .derive({ as: "scoped" }, async (ctx) => {
      if (!keyedRequest(ctx.request)) return refine({ caller: null, viewer: await session.viewer(ctx) });
      return refine({ caller: (ctx as Admitted).caller ?? (await keyed.admit(ctx.request, ctx.route, ctx.set.headers)), viewer: null });
    });
}

/** Routes a session only adds to (course reads, the keyless trust tier): `viewer` is null without one. */
export function optionalSession(runtime: Runtime, sessions: SessionLookup) {
  const cookie = sessionCookieOf(runtime);
  return new Elysia().derive({ as: "scoped" }, async ({ request }): Promise<{ viewer: Viewer | null }> => {
    const session = sessionOf(request, cookie);
    return { viewer: session === null ? null : await sessions.viewer(session) };
  });
}
