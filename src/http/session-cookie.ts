// The session cookie of a signed-in creator: its name, how a request's cookie is read, how it is
// set, and the check a session-only route makes. An API key never opens a session route.
import { ApiError } from "./errors";
import type { Viewer } from "../modules/sessions/service";

/**
 * The session cookie's name. On https it is `__Host-session`: browsers accept a cookie of that
 * prefix only from this very host (Secure, Path=/, no Domain), so a page on a sibling subdomain
 * cannot plant one beside it ("cookie tossing"). Plain http cannot have the prefix, so it keeps
 * `session`, and a second one of that name is refused (`sessionOf`).
 */
export function sessionCookieName(secure: boolean): string {
  return secure ? "__Host-session" : "session";
}

/** True when sessions are reached over https (the base URL), which makes the cookie Secure and `__Host-`. */
export function sessionsAreSecure(baseUrl: string): boolean {
  return baseUrl.startsWith("https:");
}

/** The signed-in creator a session guard hands to its routes. */
export type { Viewer };

/** What the session guards need: the creator a cookie's value signs in, or null. */
export interface SessionLookup {
  viewer(session: string): Promise<Viewer | null>;
}

/**
 * The session cookie's value in a request, or null. 401 when the request carries the cookie more
 * than once: another page of the site can add one with a narrower path, which the browser sends
 * first, and which of the two is the person's own cannot be told.
 */
export function sessionOf(request: Request, name: string): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  let value: string | null = null;
  let seen = false;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0 || part.slice(0, eq).trim() !== name) continue;
    if (seen) {
      throw new ApiError(
        401,
        "unauthorized",
        `The request carries more than one '${name}' cookie, so it cannot be told which session is yours: clear this site's cookies and sign in again.`,
      );
    }
    seen = true;
    value = part.slice(eq + 1).trim() || null;
  }
  return value;
}

/**
 * The Set-Cookie value of a session: HttpOnly (no script reads it), SameSite=Lax (another site's
 * form posts do not carry it), Secure and `__Host-` when the server is reached over https, the whole site.
 */
export function sessionCookie(value: string, maxAgeMs: number, secure: boolean): string {
  const maxAge = Math.max(0, Math.floor(maxAgeMs / 1000));
  return `${sessionCookieName(secure)}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
}

/** Authenticates a session-only route: 401 without a valid session. An API key never opens one. */
export async function admitSession(sessions: SessionLookup, request: Request, cookieName: string): Promise<Viewer> {
  const session = sessionOf(request, cookieName);
  const viewer = session === null ? null : await sessions.viewer(session);
  if (viewer) return viewer;
  const keyed = request.headers.get("authorization")?.startsWith("Bearer ");
  throw new ApiError(
    401,
    "unauthorized",
    session !== null
      ? "Your session has ended or is not valid: sign in again."
      : keyed
        ? "This route takes a signed-in session (the session cookie), not an API key."
        : "Not signed in: open a sign-in link first.",
  );
}
