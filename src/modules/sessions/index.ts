// Sign-in controllers (docs/api.md, "Sign-in, courses and tripwires"): the one-time link a partner's bot asks for, the link
// itself (`/auth/magic`), sign-out, and the signed-in creator's own reads under `/v1/me`.
import { Elysia, t } from "elysia";
import { sessionCookie, sessionOf, sessionsAreSecure } from "../../http/session-cookie";
import { cookieWriteParser, limitByIp, requireKey, requireSession, sessionCookieOf } from "../../http/guards";
import { PUBLIC_IP_RULE } from "../../http/limits";
import { errors, KEYED_ERRORS } from "../../http/model";
import type { Runtime } from "../../runtime";
import { LoginLink, LoginLinkBody, MagicQuery, Me, SignedOut, VouchesGivenPage, VouchesGivenQuery } from "./model";
import { SESSION_TTL_MS, type SessionsService } from "./service";

/** OpenAPI: the session cookie, not a key. */
export const SESSION_ONLY = { security: [{ session: [] }] };

/**
 * Link previewers fetch a URL the moment it is posted (Discord unfurls links in a DM): one must not
 * use up the link before its owner clicks it.
 */
const PREVIEWER = /discordbot|slackbot|twitterbot|facebookexternalhit|telegrambot|whatsapp|linkedinbot|skypeuripreview|embedly/i;

const PREVIEW_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>trustlist sign-in</title><meta name="robots" content="noindex"></head><body>Open this link in your browser to sign in.</body></html>`;

export function partnerLoginLinkRoutes(runtime: Runtime, sessions: SessionsService) {
  return new Elysia({ prefix: "/v1/partner", tags: ["Partner"] })
    .use(requireKey(runtime, "write"))
    .post(
      "/login-links",
      async ({ body, set }) => {
        set.status = 201;
        return sessions.loginLink(body.handle);
      },
      {
        body: LoginLinkBody,
        parse: "json",
        response: { 201: LoginLink, ...errors(400, ...KEYED_ERRORS, 403, 404, 422) },
        detail: {
          operationId: "createLoginLink",
          summary: "One-time sign-in link for a creator",
          description:
            "For a bot to DM to the creator: opening `url` once, within 15 minutes, signs them in (a `session` cookie). The link is a secret: send it to that creator only.",
        },
      },
    );
}

export function authRoutes(runtime: Runtime, sessions: SessionsService) {
  const secure = sessionsAreSecure(runtime.config.baseUrl);
  const cookie = sessionCookieOf(runtime);
  return new Elysia({ prefix: "/auth", tags: ["Sign-in"] })
    .use(limitByIp(runtime, "session", PUBLIC_IP_RULE))
    // Signing out is a write: only this service's own pages may do it (another page of the site
    // could otherwise sign a person out, or clear the cookie before planting its own).
    .onParse({ as: "local" }, cookieWriteParser(runtime, () => undefined))
    .get(
      "/magic",
      async ({ query, request, set, redirect }) => {
        if (PREVIEWER.test(request.headers.get("user-agent") ?? "")) {
          return new Response(PREVIEW_PAGE, { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } });
        }
        const { session } = await sessions.signIn(query.token);
        set.headers["set-cookie"] = sessionCookie(session, SESSION_TTL_MS, secure);
        set.headers["cache-control"] = "no-store";
        return redirect("/", 302);
      },
      {
        query: MagicQuery,
        response: {
          200: t.String({ contentMediaType: "text/html", description: "A link previewer (its User-Agent names one) gets a short HTML page, and the link stays unused." }),
          302: t.String({ contentMediaType: "text/html", description: "Signed in: `Set-Cookie: session=…` and `Location: /`; no body." }),
          ...errors(401, 429),
        },
        detail: {
          security: [],
          operationId: "signInWithLink",
          summary: "Use a sign-in link",
          description:
            "Uses the link once (it works for 15 minutes), sets the `session` cookie (HttpOnly, SameSite=Lax, Secure on https; 30 days) and redirects (302) to `/`. A link that is unknown, used or expired is 401.",
        },
      },
    )
    .post(
      "/logout",
      async ({ request, set }) => {
        const signedOut = await sessions.signOut(sessionOf(request, cookie));
        set.headers["set-cookie"] = sessionCookie("", 0, secure);
        return { signed_out: signedOut };
      },
      {
        response: { 200: SignedOut, ...errors(401, 403, 429) },
        detail: {
          ...SESSION_ONLY,
          operationId: "signOut",
          summary: "Sign out",
          description:
            "Ends the session on the server and clears the cookie. Also 200 when no session was open (`signed_out: false`). Only from this service's own pages: a request without a same-origin `Origin` header is 403 and clears nothing; one carrying the session cookie twice is 401.",
        },
      },
    );
}

export function meRoutes(runtime: Runtime, sessions: SessionsService) {
  return new Elysia({ prefix: "/v1/me", tags: ["Sign-in"] })
    .use(requireSession(runtime, sessions, PUBLIC_IP_RULE))
    .get("", ({ viewer }) => sessions.me(viewer), {
      response: { 200: Me, ...errors(401, 429) },
      detail: { ...SESSION_ONLY, operationId: "getMe", summary: "Who is signed in", description: "401 without a session; an API key does not open it." },
    })
    .get("/vouches/given", ({ viewer, query }) => sessions.vouchesGiven(viewer, query), {
      query: VouchesGivenQuery,
      response: { 200: VouchesGivenPage, ...errors(400, 401, 422, 429) },
      detail: {
        ...SESSION_ONLY,
        operationId: "listVouchesGiven",
        summary: "Creators you vouched for",
        description: "Newest first; `count` is the total. Page with `limit` and `offset`, or follow `next_cursor` (stable while vouches are added).",
      },
    });
}
