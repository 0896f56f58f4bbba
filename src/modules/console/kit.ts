// What every console controller shares, built once per app (index.ts): the guard, the frame, and
// the two shapes a console route takes. `view` answers a GET page; `action` answers a form's POST
// after the same-origin and CSRF checks. Both charge the session routes' per-address bucket, sign
// the visitor in from the session cookie (a sign-in page, 401, without one) and turn a refusal
// (a service's error, a role's 403) into a page with its status, never a JSON envelope.
import { Elysia } from "elysia";
import type { StaffRole } from "../../domain";
import { ServiceError } from "../../errors";
import { guardParser, readBodyText, readRouteBody } from "../../http/body";
import { ApiError, fromServiceError } from "../../http/errors";
import { chargeIp, sessionCookieOf } from "../../http/guards";
import { PUBLIC_IP_RULE } from "../../http/limits";
import { sessionsAreSecure } from "../../http/session-cookie";
import type { Runtime } from "../../runtime";
import type { Services } from "../../services";
import type { IssuedKey } from "../accounts/service";
import type { Actor } from "../audit/model";
import { CONTENT_SECURITY_POLICY } from "../pages";
import { type Html, html } from "../pages/html";
import { buildConsoleAssets } from "./assets";
import { accountPath } from "./developer";
import { formOf } from "./form";
import { ConsoleGuard, requireRole, type Visitor } from "./guard";
import { consolePage, type NavExtra, type Notice, type PageOptions, secretOnce } from "./layout";

export type ResponseSet = { headers: Record<string, string | number>; status?: number | string };

/** What a page handler answers: a page (with its status), or where to go. */
export type Answer = { page: PageOptions; status?: number } | { redirect: string };

export interface Context {
  request: Request;
  server: Parameters<typeof chargeIp>[3]["server"];
  set: ResponseSet;
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  body: unknown;
}

/** What a notice code in `?done=` says after a redirect: fixed texts, so a link cannot put words on the page. */
const DONE: Record<string, string> = {
  "appeal-filed": "Your appeal was filed. Staff will read it; the decision shows here.",
  "tripwire-armed": "The tripwire is armed.",
  "tripwire-deleted": "The tripwire was deleted.",
  "preferences-saved": "Where alerts go was saved.",
  "entry-overturned": "The entry was overturned.",
  "appeal-decided": "The appeal was decided.",
  "staff-granted": "The role was granted.",
  "staff-revoked": "The role was revoked.",
  "key-revoked": "The key was revoked: it answers 401 from now on.",
  "webhook-test": "A test delivery was queued: it shows below once attempted (reload).",
  "webhook-enabled": "The endpoint is enabled: pending deliveries resume.",
  "webhook-disabled": "The endpoint is paused.",
  "webhook-deleted": "The endpoint and its deliveries were deleted.",
  "member-added": "The member was added.",
  "member-removed": "The member was removed.",
  "case-commented": "Your comment was added.",
  "case-assigned": "The assignee was changed.",
  "case-escalated": "The case was escalated.",
  "case-dismissed": "The case was dismissed.",
  "case-watchlisted": "The subject was put on the watchlist and the case closed.",
  "case-decided": "The entry was added and the case closed.",
  "reporter-muted": "The reporter is muted: their later reports close at once.",
  "source-added": "The source is followed: its keys are pinned and its first sync has started.",
  "source-synced": "The source was synced.",
  "source-updated": "The policy was changed; it applies to what is already held.",
  "source-removed": "The source is no longer followed.",
  "exemption-added": "The account is exempt from every followed source's items.",
  "exemption-removed": "The exemption was removed.",
};

export function doneNotice(query: Record<string, string | undefined>): Notice | null {
  const text = query.done ? DONE[query.done] : undefined;
  return text ? { kind: "ok", text } : null;
}

function htmlResponse(set: ResponseSet, body: Html, status: number): Response {
  return new Response(body.text, { status, headers: { ...consoleHeaders(set), "content-type": "text/html; charset=utf-8" } });
}

/** The headers of every console answer: private, never cached, never framed. */
function consoleHeaders(set: ResponseSet): Record<string, string> {
  return {
    ...(set.headers as Record<string, string>),
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
  };
}

export function redirectTo(set: ResponseSet, location: string, extra: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { ...consoleHeaders(set), location, ...extra } });
}

/** A failure as the status and message a page shows. */
function failureOf(error: unknown): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error instanceof ServiceError) return fromServiceError(error);
  return null;
}


export type ConsoleKit = ReturnType<typeof consoleKit>;

/** True for an HTML form's body (`application/x-www-form-urlencoded`), what every console form sends. */
function isFormBody(request: Request): boolean {
  const type = request.headers.get("content-type") ?? "";
  return type.split(";")[0]!.trim().toLowerCase() === "application/x-www-form-urlencoded";
}

export function consoleKit(runtime: Runtime, services: Services) {
  const assets = buildConsoleAssets();
  const guard = new ConsoleGuard(runtime, { viewer: (s) => services.sessions.viewer(s), roleOf: (id) => services.staff.roleOf(id) });
  const cookie = sessionCookieOf(runtime);
  const secure = sessionsAreSecure(runtime.config.baseUrl);

  const members = services.members;
  const nav = async (visitor: Visitor): Promise<NavExtra> => ({ member: (await members.accountsOf(visitor.viewer.creatorId)).length > 0 });

  /** The visitor's membership of the account in the path; 403 for anyone else. */
  const memberOf = async (visitor: Visitor, accountId: string) => {
    const membership = await members.membershipOf(visitor.viewer.creatorId, accountId);
    if (!membership) throw new ApiError(403, "forbidden", "You are not a member of this account: its keys, usage and webhooks are its members' only.");
    return membership;
  };
  /** The account's key `keyId`; another account's key answers like a missing one. */
  const keyOf = async (accountId: string, keyId: string) => {
    const key = await services.accounts.getKey(keyId);
    if (key.account_id !== accountId) throw new ApiError(404, "not_found", `No key ${keyId.slice(0, 64)}.`);
    return key;
  };
  /** The page that shows a new secret, once. */
  const secretPage = (accountId: string, accountName: string, title: string, what: string, secret: string): Answer => ({
    page: {
      title,
      notice: { kind: "ok", text: title },
      body: html`${secretOnce(what, secret)}<p><a href="${accountPath(accountId)}">Back to ${accountName}</a></p>`,
    },
  });
  const keyIssued = (accountId: string, accountName: string, key: IssuedKey, verb: string) =>
    secretPage(accountId, accountName, `Key ${key.prefix}… ${verb}`, `The ${key.scope} key ${key.name ?? key.prefix}`, key.key);

  const render = async (set: ResponseSet, visitor: Visitor | null, options: PageOptions, status = 200) =>
    htmlResponse(set, consolePage(assets.paths, visitor, visitor ? await nav(visitor) : { member: false }, options), status);

  /** The checks every console request passes before its handler: the bucket and the session. */
  const admit = async (ctx: Context): Promise<Visitor | Response> => {
    const state = chargeIp(runtime, "session", PUBLIC_IP_RULE, ctx);
    if (!state.allowed) {
      ctx.set.headers["retry-after"] = String(state.retryAfter);
      return render(ctx.set, null, { title: "Too many requests", body: html`<h1>Too many requests</h1><p>Wait ${state.retryAfter} s and try again.</p>` }, 429);
    }
    const visitor = await guard.visitor(ctx.request);
    if (visitor) return visitor;
    return render(
      ctx.set,
      null,
      {
        title: "Sign in",
        body: html`<h1>Sign in to the console</h1>
<p>The console opens with a sign-in link. Ask the bot of your community for one, or the operator (<code>trustlist login-link HANDLE</code>); it works once, for 15 minutes.</p>`,
      },
      401,
    );
  };

  const errorPage = (set: ResponseSet, visitor: Visitor | null, failure: ApiError, back?: string) => {
    for (const [name, value] of Object.entries(failure.headers ?? {})) set.headers[name] = value;
    const title = failure.status === 403 ? "Not allowed" : failure.status === 404 ? "Not found" : "That did not work";
    return render(
      set,
      visitor,
      { title, body: html`<h1>${title}</h1>${back ? html`<p><a href="${back}">Back</a></p>` : null}`, notice: { kind: "bad", text: failure.message } },
      failure.status,
    );
  };

  /** A GET page: admitted, then `handler`; a refusal is a page with its status. */
  const view =
    (handler: (visitor: Visitor, ctx: Context) => Promise<Answer>) =>
    async (ctx: Context): Promise<Response> => {
      const visitor = await admitOrFail(ctx);
      if (visitor instanceof Response) return visitor;
      try {
        return answer(ctx.set, visitor, await handler(visitor, ctx));
      } catch (error) {
        const failure = failureOf(error);
        if (!failure) throw error;
        return errorPage(ctx.set, visitor, failure);
      }
    };

  /** A form's POST: admitted, same origin and token checked, then `handler`; a refusal is a page. */
  const action =
    (back: (ctx: Context) => string, handler: (visitor: Visitor, form: URLSearchParams, ctx: Context) => Promise<Answer>) =>
    async (ctx: Context): Promise<Response> => {
      const visitor = await admitOrFail(ctx);
      if (visitor instanceof Response) return visitor;
      try {
        const form = formOf(ctx.body);
        guard.checkWrite(ctx.request, visitor, form);
        return answer(ctx.set, visitor, await handler(visitor, form, ctx));
      } catch (error) {
        const failure = failureOf(error);
        if (!failure) throw error;
        return errorPage(ctx.set, visitor, failure, back(ctx));
      }
    };

  const admitOrFail = async (ctx: Context): Promise<Visitor | Response> => {
    try {
      return await admit(ctx);
    } catch (error) {
      const failure = failureOf(error);
      if (!failure) throw error;
      return errorPage(ctx.set, null, failure);
    }
  };

  const answer = (set: ResponseSet, visitor: Visitor, result: Answer): Promise<Response> | Response =>
    "redirect" in result ? redirectTo(set, result.redirect) : render(set, visitor, result.page, result.status ?? 200);

  const staffActor = (visitor: Visitor): Actor => ({ kind: "staff", id: visitor.viewer.handle });
  const role = (least: StaffRole) => (visitor: Visitor) => requireRole(visitor, least);

  /** A controller under /console: hidden from the API document, its form bodies read by the guard's bounded reader. */
  const controller = () =>
    new Elysia({ prefix: "/console", detail: { hide: true } })
      // Form bodies are read here, within the body bound, and parsed by the handler after the checks;
      // any other body goes to the one JSON reader, which refuses it as it does everywhere else.
      .onParse(
        { as: "local" },
        guardParser(async ({ request, route }: { request: Request; route?: string }) =>
          isFormBody(request) ? readBodyText(request, runtime.config.maxBodyBytes) : (await readRouteBody(request, route, runtime.config.maxBodyBytes)).body,
        ),
      );

  return { assets, guard, cookie, secure, members, memberOf, keyOf, secretPage, keyIssued, view, action, staffActor, role, controller };
}
