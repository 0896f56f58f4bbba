// Sign-in without passwords (docs/api.md, "Sign-in, courses and tripwires"): a one-time link (CLI or partner route) becomes a
// session cookie; the cookie's value is a random secret of which only the SHA-256 is stored.
// Also the signed-in creator's own reads (`/v1/me`, the vouches they gave).
import { type Clock, iso } from "../../clock";
import type { CursorCodec } from "../../cursor";
import type { Database } from "../../db/database";
import { ServiceError, unauthorized } from "../../errors";
import { creatorNotFound, type CreatorsService } from "../creators/service";
import type { NetworkService, VouchPosition } from "../network/service";
import { requireHandle } from "../../values";
import { yieldToRequests } from "../../yield";
import type * as Model from "./model";
import { createSessionsStore, type SessionsStore } from "./store";

export type LoginLink = typeof Model.LoginLink.static;
export type Me = typeof Model.Me.static;
export type VouchesGivenPage = typeof Model.VouchesGivenPage.static;

/** A sign-in link works for 15 minutes, once. */
export const LOGIN_LINK_TTL_MS = 15 * 60_000;
/** A session lasts 30 days. */
export const SESSION_TTL_MS = 30 * 86_400_000;
/** Expired sessions and links removed per pruning transaction. */
const PRUNE_SLICE_ROWS = 500;

/** The signed-in creator, as guards hand it to routes. */
export interface Viewer {
  creatorId: string;
  handle: string;
  displayName: string | null;
}

/** 32 random bytes, base64url: the secret of a link or of a session cookie. */
function newToken(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

function hashToken(token: string): string {
  return new Bun.CryptoHasher("sha256").update(token).digest("hex");
}

/** A token as `newToken` makes them; anything else is refused before it costs a hash and a query. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export class SessionsService {
  private readonly store: SessionsStore;

  constructor(
    database: Database,
    private readonly clock: Clock,
    private readonly creators: CreatorsService,
    private readonly network: NetworkService,
    private readonly cursors: CursorCodec,
    private readonly baseUrl: string,
  ) {
    this.store = createSessionsStore(database);
  }

  /** A one-time sign-in link for a creator; unknown handles are 404. */
  async loginLink(rawHandle: string): Promise<LoginLink> {
    const creator = await this.creators.find(requireHandle(rawHandle));
    if (!creator) throw creatorNotFound(rawHandle);
    const now = this.clock.now();
    const token = newToken();
    const expiresAt = now + LOGIN_LINK_TTL_MS;
    await this.store.insertLoginLink(hashToken(token), creator.id, now, expiresAt);
    return { handle: creator.handle, url: `${this.baseUrl}/auth/magic?token=${token}`, expires_at: iso(expiresAt) };
  }

  /** Uses a link once and opens a session: the cookie's value and when it expires. */
  async signIn(token: string | undefined): Promise<{ session: string; expiresAt: number }> {
    if (!token || !TOKEN.test(token)) throw linkRefused();
    const now = this.clock.now();
    const session = newToken();
    const expiresAt = now + SESSION_TTL_MS;
    const opened = await this.store.transaction(async () => {
      const creatorId = await this.store.consumeLoginLink(hashToken(token), now);
      if (creatorId === null) return false;
      await this.store.insertSession(hashToken(session), { creatorId, createdAt: now, expiresAt });
      return true;
    });
    if (!opened) throw linkRefused();
    return { session, expiresAt };
  }

  /** The creator a session cookie's value belongs to; null when unknown or expired. */
  async viewer(session: string): Promise<Viewer | null> {
    if (!TOKEN.test(session)) return null;
    const row = await this.store.sessionByHash(hashToken(session), this.clock.now());
    if (!row) return null;
    const creator = await this.creators.findById(row.creatorId);
    return creator ? { creatorId: creator.id, handle: creator.handle, displayName: creator.displayName } : null;
  }

  /** Ends a session; false when there was none to end. */
  async signOut(session: string | null): Promise<boolean> {
    if (!session || !TOKEN.test(session)) return false;
    return this.store.deleteSession(hashToken(session));
  }

  me(viewer: Viewer): Me {
    return { handle: viewer.handle, display_name: viewer.displayName };
  }

  /** The creators `viewer` vouched for, newest first: by offset, or after a cursor of a previous page. */
  async vouchesGiven(viewer: Viewer, options: { limit?: number; offset?: number; cursor?: string }): Promise<VouchesGivenPage> {
    const limit = options.limit ?? 20;
    let offset = options.offset ?? 0;
    let after: VouchPosition | null = null;
    if (options.cursor !== undefined) {
      const position = this.cursors.decode(options.cursor);
      // A cursor is bound to the creator it was made for: another session cannot page with it.
      if (!position || position.k !== "vg" || position.u !== viewer.creatorId || typeof position.t !== "number" || typeof position.i !== "string" || typeof position.o !== "number") {
        throw new ServiceError("invalid_cursor", "Invalid cursor: pass next_cursor from a previous page.");
      }
      after = { createdAt: position.t, id: position.i };
      offset = position.o;
    }
    const [count, rows] = await Promise.all([
      this.network.countVouchesGiven(viewer.creatorId),
      this.network.vouchesGiven(viewer.creatorId, after, offset, limit + 1),
    ]);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      count,
      limit,
      offset,
      vouches: page.map((v) => ({
        handle: v.handle,
        displayName: v.displayName,
        avatarUrl: v.avatarR2Key ? `/avatars/${encodeURIComponent(v.avatarR2Key)}` : null,
        trustScore: v.trustScore,
        vouchedAt: iso(v.createdAt),
      })),
      next_cursor: rows.length > limit && last ? this.cursors.encode({ k: "vg", u: viewer.creatorId, t: last.createdAt, i: last.id, o: offset + page.length }) : null,
    };
  }

  /** Removes expired sessions and links, a slice at a time; run by cron. */
  async pruneExpired(): Promise<number> {
    let total = 0;
    for (;;) {
      const removed = await this.store.pruneExpired(this.clock.now(), PRUNE_SLICE_ROWS);
      total += removed;
      if (removed < PRUNE_SLICE_ROWS) return total;
      await yieldToRequests();
    }
  }
}

function linkRefused() {
  return unauthorized("This sign-in link is unknown, already used or expired; ask for a new one.");
}
