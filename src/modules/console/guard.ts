// Who is at the console, and the checks every console request passes, built once here so no page
// can forget one: the session cookie (the one sign-in links set), the per-address bucket the
// session routes share, and for every request that changes something a same-origin `Origin` and
// the session's CSRF token. The token is an HMAC of the session's value under a secret kept in the
// database, so it survives restarts, differs per session, and is never stored.
import type { Database } from "../../db/database";
import { createMetaStore, newSecret } from "../../db/meta-store";
import { STAFF_ROLES, type StaffRole } from "../../domain";
import { ApiError } from "../../http/errors";
import { requireSameOrigin, sessionCookieOf } from "../../http/guards";
import { sessionOf } from "../../http/session-cookie";
import type { Runtime } from "../../runtime";
import type { Viewer } from "../sessions/service";

/** The form field every console form carries its token in. */
export const CSRF_FIELD = "csrf";

/** The signed-in person, what they may do, and the token their forms carry. */
export interface Visitor {
  viewer: Viewer;
  /** Their staff role, or null. */
  role: StaffRole | null;
  /** The token of this session's forms. */
  csrf: string;
}

/** True when `role` is `least` or above it (triage < moderator < admin). */
export function hasRole(role: StaffRole | null, least: StaffRole): boolean {
  return role !== null && STAFF_ROLES.indexOf(role) >= STAFF_ROLES.indexOf(least);
}

/** 403 unless the visitor's role is at least `least`. */
export function requireRole(visitor: Visitor, least: StaffRole): void {
  if (hasRole(visitor.role, least)) return;
  throw new ApiError(403, "forbidden", visitor.role === null ? "This page is for staff." : `This needs the ${least} role or higher; you are ${visitor.role}.`);
}

/** What the console needs of the sessions and staff modules. */
export interface ConsoleLookups {
  viewer(session: string): Promise<Viewer | null>;
  roleOf(creatorId: string): Promise<StaffRole | null>;
}

export class ConsoleGuard {
  private secret: Promise<string> | null = null;
  private readonly cookie: string;

  constructor(
    private readonly runtime: Runtime,
    private readonly lookups: ConsoleLookups,
  ) {
    this.cookie = sessionCookieOf(runtime);
  }

  /** The signed-in visitor, or null without a (valid) session. 401 for a doubled cookie. */
  async visitor(request: Request): Promise<Visitor | null> {
    const session = sessionOf(request, this.cookie);
    if (session === null) return null;
    const viewer = await this.lookups.viewer(session);
    if (!viewer) return null;
    return { viewer, role: await this.lookups.roleOf(viewer.creatorId), csrf: await this.tokenOf(session) };
  }

  /**
   * The checks of a request that changes something, before anything is read or changed: it comes
   * from this service's own origin, and carries this session's token. 403 otherwise.
   */
  checkWrite(request: Request, visitor: Visitor, form: URLSearchParams): void {
    requireSameOrigin(this.runtime, request);
    const sent = form.get(CSRF_FIELD);
    if (sent === null || sent === "") throw new ApiError(403, "forbidden", "The form carried no CSRF token: reload the page and send it again.");
    if (!sameText(sent, visitor.csrf)) throw new ApiError(403, "forbidden", "The form's CSRF token is not this session's: reload the page and send it again.");
  }

  private async tokenOf(session: string): Promise<string> {
    this.secret ??= secretOf(this.runtime.store);
    return new Bun.CryptoHasher("sha256", await this.secret).update(`console-csrf:${session}`).digest("base64url");
  }
}

function secretOf(database: Database): Promise<string> {
  return createMetaStore(database).valueOrMake("console_csrf_secret", newSecret);
}

/** Compares in constant time. */
function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}
