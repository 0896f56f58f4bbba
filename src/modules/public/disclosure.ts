// What a keyless answer may reveal about platform accounts (docs/api.md, "Privacy of keyless
// answers"): an account's platform, id or username only when the query itself names it (its id,
// or the username an entry or a public link gives it), or when it is a creator's public linked
// account. Every account a keyless route shows comes from this file: it alone asks the owning stores
// for connections (creators) and entry subjects (blacklist), builds search hits and resolves a
// linked account, so a new route or search path cannot show a private link by forgetting a filter.
// The public profile pages (/u/{handle}) list a creator's linked accounts from here too.
// An entry that names a creator (its `creator` field, or one of the creator's private accounts)
// shows through the creator's profile hit and `blacklisted` only, never through its subject.
// (The directory shows `creators.search_text` and `platforms`, which the creators service builds
// from public links only; the suggestion pool's rule is in migration 0007.)
import { PROVIDERS, type Provider } from "../../domain";
import { type BlacklistService, isProvider, normalizeAccountId } from "../blacklist/service";
import type { BlacklistStore } from "../blacklist/store";
import type { CreatorRow } from "../creators/service";
import type { Viewer } from "../sessions/service";
import type { ConnectionRow, CreatorsStore } from "../creators/store";
import type { PublicCheckHit as PublicCheckHitSchema } from "./model";

/**
 * The keyless trust tier gives the exact Trust Score to a signed-in caller only (docs/api.md, "Trust Score");
 * anyone else sees the band and its label. Every keyless answer that could carry it asks here.
 */
export function showsTrustScore(viewer: Viewer | null): boolean {
  return viewer !== null;
}

/** Most hits one search answers; a common username could otherwise name hundreds of accounts. */
const MAX_HITS = 25;

export type PublicCheckHit = typeof PublicCheckHitSchema.static;

/** What a hit's `source` says when the answer is this instance's own; any other value names a followed instance. */
export const OWN_ANSWER_SOURCES: readonly string[] = ["blacklist", "creator", "external"];

/** The followed instance a hit's entry was applied from, or null for this instance's own answer. */
export function followedSourceOf(hit: PublicCheckHit): string | null {
  return hit.source && !OWN_ANSWER_SOURCES.includes(hit.source) ? hit.source : null;
}

interface Account {
  provider: Provider;
  id: string;
  username: string | null;
}

/** A creator's public linked account as its profile page shows it. */
export interface PublicLinkedAccount {
  provider: Provider;
  provider_user_id: string;
  provider_username: string | null;
  provider_url: string | null;
  verified_at: number | null;
}

/** The stores that own the accounts a keyless answer may show. */
export interface AccountStores {
  creators: CreatorsStore;
  blacklist: BlacklistStore;
}

export class PublicAccounts {
  private readonly creators: CreatorsStore;
  private readonly entries: BlacklistStore;

  constructor(
    stores: AccountStores,
    private readonly blacklist: BlacklistService,
  ) {
    this.creators = stores.creators;
    this.entries = stores.blacklist;
  }

  /**
   * The search hits for `query` (trimmed, without `@`): the public links of the creator it names,
   * then every public link and active entry subject whose username or id it is, one hit per
   * account; then the creator's profile when no account shows what it is (it has no public account
   * to show, or it is blacklisted through one that is private). When the query is a creator's
   * handle, that creator's private accounts never show, even when an entry gives one of them the
   * handle as its username: the answer would otherwise tie the private account to the creator.
   */
  async hits(query: string, creator: CreatorRow | null, now: number): Promise<PublicCheckHit[]> {
    const lower = query.toLowerCase();
    const accounts = new Map<string, Account>();
    const asIds = accountsNamedBy(query);
    // Read together: on PostgreSQL one round trip's wait instead of four.
    const [links, byUsername, subjects, publicLinks] = await Promise.all([
      creator ? this.creators.connectionsOf(creator.id) : [],
      this.creators.publicConnectionsByUsername(lower, MAX_HITS),
      this.entries.subjectsByUsername(lower, now, MAX_HITS),
      this.publicLinksOf(asIds),
    ]);
    const hidden = new Set(links.filter((c) => !c.public).map((c) => accountKey(c.provider, c.providerUserId)));
    const add = (provider: Provider, id: string, username: string | null) => {
      if (accounts.size >= MAX_HITS) return;
      const key = accountKey(provider, id);
      if (hidden.has(key)) return;
      const known = accounts.get(key);
      if (!known) accounts.set(key, { provider, id, username });
      else if (known.username === null && username !== null) known.username = username;
    };
    for (const c of links) if (c.public) add(c.provider, c.providerUserId, c.providerUsername);
    for (const c of byUsername) add(c.provider, c.providerUserId, c.providerUsername);
    for (const s of subjects) add(s.provider, s.providerUserId, s.username);
    for (const { provider, id } of asIds) {
      const link = publicLinks.get(accountKey(provider, id));
      if (link) add(provider, id, link.providerUsername);
      if (this.blacklist.subjects.mightContain(provider, id)) {
        const subject = await this.entries.subjectName(provider, id, now);
        if (subject) add(provider, id, subject.username);
      }
    }

    const hits = await Promise.all(Array.from(accounts.values(), (account) => this.hit(account, now)));
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

  private async hit(account: Account, now: number): Promise<PublicCheckHit> {
    const { hit, highRisk, watchlist } = await this.blacklist.verdictOf(account.provider, account.id, "all", now);
    const answer: PublicCheckHit = {
      platform: account.provider,
      username: account.username,
      id: account.id,
      banned: hit?.severity === "ban",
      high_risk: highRisk,
      watchlist,
      severity: hit?.severity ?? null,
      reason_code: hit?.reasonCode ?? null,
      summary: hit?.summary ?? null,
      // An entry applied from a followed instance names it instead of this instance's own list.
      source: hit ? (hit.source ?? "blacklist") : watchlist ? "external" : "creator",
    };
    // Whether the entry may be appealed is part of its public view; the pages and the check widget
    // tell the listed person how.
    if (hit) answer.appealable = !!hit.appealable;
    return answer;
  }

  /** The public links of `accounts`, by provider and id; a private one is as good as unknown here. */
  private async publicLinksOf(accounts: Array<{ provider: Provider; id: string }>): Promise<Map<string, ConnectionRow>> {
    const links = await this.creators.connectionsByAccounts(accounts);
    return new Map(links.filter((link) => link.public).map((link) => [accountKey(link.provider, link.providerUserId), link]));
  }

  /** A creator's public linked accounts, oldest first: what its public profile page lists. */
  async linkedAccounts(creatorId: string): Promise<PublicLinkedAccount[]> {
    return (await this.creators.connectionsOf(creatorId))
      .filter((c) => c.public)
      .map((c) => ({
        provider: c.provider,
        provider_user_id: c.providerUserId,
        provider_username: c.providerUsername,
        provider_url: c.providerUrl,
        verified_at: c.verifiedAt,
      }));
  }

  /** The id of the creator a public link belongs to, by provider and id or by username. */
  async creatorIdOf(provider: string | undefined, id: string | undefined, username: string | undefined): Promise<string | null> {
    if (provider !== undefined && !isProvider(provider)) return null;
    if (id) {
      const asIds = accountsNamedBy(id, provider);
      const links = await this.publicLinksOf(asIds);
      for (const account of asIds) {
        const link = links.get(accountKey(account.provider, account.id));
        if (link) return link.creatorId;
      }
      return null;
    }
    if (!username) return null;
    const links = await this.creators.publicConnectionsByUsername(username, 50);
    return links.find((c) => !provider || c.provider === provider)?.creatorId ?? null;
  }
}

/** The platform accounts `text` can be an id of (on `provider` only, when given), in PROVIDERS order. */
function accountsNamedBy(text: string, provider?: Provider): Array<{ provider: Provider; id: string }> {
  return (provider ? [provider] : PROVIDERS).flatMap((p) => {
    const id = normalizeAccountId(p, text);
    return id === null ? [] : [{ provider: p, id }];
  });
}

/** One platform account as a map key. */
function accountKey(provider: string, id: string): string {
  return `${provider}\u0000${id}`;
}
