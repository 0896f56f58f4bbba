// What a keyless answer may reveal about platform accounts (SPEC section 4, "Privacy of keyless
// answers"): an account's platform, id or username only when the query itself names it (its id,
// or the username an entry or a public link gives it), or when it is a creator's public linked
// account. Every account a keyless route shows comes from this file: it holds the public module's
// only reads of connections and of entry subjects, and it alone builds search hits and resolves a
// linked account, so a new route or search path cannot show a private link by forgetting a filter.
// The public profile pages (/u/{handle}) list a creator's linked accounts from here too.
// An entry that names a creator (its `creator` field, or one of the creator's private accounts)
// shows through the creator's profile hit and `blacklisted` only, never through its subject.
// (The directory shows `creators.search_text` and `platforms`, which the creators service builds
// from public links only; the suggestion pool's rule is in migration 0007.)
import type { Database, Statement } from "bun:sqlite";
import { PROVIDERS, type Provider } from "../../db/schema";
import { type BlacklistService, isProvider, normalizeAccountId } from "../blacklist/service";
import type { CreatorRow } from "../creators/service";
import type { Viewer } from "../sessions/service";
import type { PublicCheckHit as PublicCheckHitSchema } from "./model";

/**
 * The keyless trust tier gives the exact Trust Score to a signed-in caller only (SPEC section 5);
 * anyone else sees the band and its label. Every keyless answer that could carry it asks here.
 */
export function showsTrustScore(viewer: Viewer | null): boolean {
  return viewer !== null;
}

/** Most hits one search answers; a common username could otherwise name hundreds of accounts. */
const MAX_HITS = 25;

export type PublicCheckHit = typeof PublicCheckHitSchema.static;

interface Account {
  provider: Provider;
  id: string;
  username: string | null;
}

type PublicLink = { provider: Provider; provider_user_id: string; provider_username: string | null; creator_id: string };

/** A creator's public linked account as its profile page shows it. */
export interface PublicLinkedAccount {
  provider: Provider;
  provider_user_id: string;
  provider_username: string | null;
  provider_url: string | null;
  verified_at: number | null;
}

export class PublicAccounts {
  private readonly publicLinksOf: Statement<PublicLink, [string]>;
  private readonly privateLinksOf: Statement<{ provider: Provider; provider_user_id: string }, [string]>;
  private readonly linkedAccountsOf: Statement<PublicLinkedAccount, [string]>;
  private readonly publicLinksByUsername: Statement<PublicLink, [string, number]>;
  private readonly publicLinkByAccount: Statement<PublicLink, [string, string]>;
  private readonly subjectsByUsername: Statement<Account, [string, number, number]>;
  private readonly subjectById: Statement<{ username: string | null }, [string, string, number]>;

  constructor(
    db: Database,
    private readonly blacklist: BlacklistService,
  ) {
    const linkColumns = "provider, provider_user_id, provider_username, creator_id";
    this.publicLinksOf = db.prepare(`SELECT ${linkColumns} FROM connections WHERE creator_id = ? AND public ORDER BY created_at, id`);
    this.privateLinksOf = db.prepare("SELECT provider, provider_user_id FROM connections WHERE creator_id = ? AND NOT public");
    this.linkedAccountsOf = db.prepare(
      "SELECT provider, provider_user_id, provider_username, provider_url, verified_at FROM connections WHERE creator_id = ? AND public ORDER BY created_at, id",
    );
    this.publicLinksByUsername = db.prepare(
      `SELECT ${linkColumns} FROM connections INDEXED BY connections_username_idx
       WHERE lower(provider_username) = ? AND public ORDER BY id LIMIT ?`,
    );
    this.publicLinkByAccount = db.prepare(`SELECT ${linkColumns} FROM connections WHERE provider = ? AND provider_user_id = ? AND public`);
    this.subjectsByUsername = db.prepare(
      `SELECT DISTINCT provider, provider_user_id AS id, username FROM blacklist_entries INDEXED BY blacklist_username_idx
       WHERE lower(username) = ?1 AND status = 'active' AND (expires_at IS NULL OR expires_at > ?2) LIMIT ?3`,
    );
    this.subjectById = db.prepare(
      `SELECT username FROM blacklist_entries WHERE provider = ?1 AND provider_user_id = ?2 AND status = 'active'
         AND (expires_at IS NULL OR expires_at > ?3)
       ORDER BY username IS NULL, issued_at DESC LIMIT 1`,
    );
  }

  /**
   * The search hits for `query` (trimmed, without `@`): the public links of the creator it names,
   * then every public link and active entry subject whose username or id it is, one hit per
   * account; then the creator's profile when no account shows what it is (it has no public account
   * to show, or it is blacklisted through one that is private). When the query is a creator's
   * handle, that creator's private accounts never show, even when an entry gives one of them the
   * handle as its username: the answer would otherwise tie the private account to the creator.
   */
  hits(query: string, creator: CreatorRow | null, now: number): PublicCheckHit[] {
    const lower = query.toLowerCase();
    const accounts = new Map<string, Account>();
    const hidden = new Set(creator ? this.privateLinksOf.all(creator.id).map((c) => `${c.provider}\u0000${c.provider_user_id}`) : []);
    const add = (provider: Provider, id: string, username: string | null) => {
      if (accounts.size >= MAX_HITS) return;
      const key = `${provider}\u0000${id}`;
      if (hidden.has(key)) return;
      const known = accounts.get(key);
      if (!known) accounts.set(key, { provider, id, username });
      else if (known.username === null && username !== null) known.username = username;
    };
    if (creator) for (const c of this.publicLinksOf.all(creator.id)) add(c.provider, c.provider_user_id, c.provider_username);
    for (const c of this.publicLinksByUsername.all(lower, MAX_HITS)) add(c.provider, c.provider_user_id, c.provider_username);
    for (const s of this.subjectsByUsername.all(lower, now, MAX_HITS)) add(s.provider, s.id, s.username);
    for (const provider of PROVIDERS) {
      const id = normalizeAccountId(provider, query);
      if (id === null) continue;
      const link = this.publicLinkByAccount.get(provider, id);
      if (link) add(provider, id, link.provider_username);
      if (this.blacklist.subjects.mightContain(provider, id)) {
        const subject = this.subjectById.get(provider, id, now);
        if (subject) add(provider, id, subject.username);
      }
    }

    const hits = [...accounts.values()].map((account) => this.hit(account, now));
    if (creator && (hits.length === 0 || (creator.blacklisted && !hits.some((h) => h.banned)))) {
      hits.push({
        platform: "trustlist",
        username: creator.handle,
        id: null,
        banned: !!creator.blacklisted,
        high_risk: false,
        watchlist: false,
        severity: creator.blacklisted ? "ban" : null,
        reason_code: null,
        summary: null,
        source: "creator",
      });
    }
    return hits;
  }

  private hit(account: Account, now: number): PublicCheckHit {
    const { hit, highRisk, watchlist } = this.blacklist.verdict(account.provider, account.id, "all", now);
    return {
      platform: account.provider,
      username: account.username,
      id: account.id,
      banned: hit?.severity === "ban",
      high_risk: highRisk,
      watchlist,
      severity: hit?.severity ?? null,
      reason_code: hit?.reason_code ?? null,
      summary: hit?.summary ?? null,
      source: hit ? "blacklist" : watchlist ? "external" : "creator",
    };
  }

  /** A creator's public linked accounts, oldest first: what its public profile page lists. */
  linkedAccounts(creatorId: string): PublicLinkedAccount[] {
    return this.linkedAccountsOf.all(creatorId);
  }

  /** The id of the creator a public link belongs to, by provider and id or by username. */
  creatorIdOf(provider: string | undefined, id: string | undefined, username: string | undefined): string | null {
    if (provider !== undefined && !isProvider(provider)) return null;
    if (id) {
      for (const p of provider ? [provider] : PROVIDERS) {
        const normalized = normalizeAccountId(p, id);
        const link = normalized === null ? null : this.publicLinkByAccount.get(p, normalized);
        if (link) return link.creator_id;
      }
      return null;
    }
    if (!username) return null;
    return this.publicLinksByUsername.all(username, 50).find((c) => !provider || c.provider === provider)?.creator_id ?? null;
  }
}
