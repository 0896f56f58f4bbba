// Reading creators: the stored row by handle or id, the public profile, the trust breakdown and
// public connections; its own file as the creators module's read side (service.ts is the facade).
import { iso } from "../../clock";
import { notFound } from "../../errors";
import { normalizeHandle } from "../../values";
import type * as Model from "./model";
import { accountAgeDays, type TrustScores } from "./score";
import type { CreatorRow, CreatorsStore, CreatorsSyncStore } from "./store";
import { type TrustTrend, verificationLabel } from "./trust";

export type CreatorProfile = typeof Model.CreatorProfile.static;
export type TrustBreakdown = typeof Model.TrustBreakdown.static;
export type PublicConnection = typeof Model.Connection.static;
export type ReviewsSummary = typeof Model.ReviewsSummary.static;

export function reviewsSummary(count: number, sum: number): ReviewsSummary {
  return { count, average: count > 0 ? Math.round((sum / count) * 100) / 100 : null };
}

export class CreatorReads {
  constructor(
    private readonly store: CreatorsStore,
    private readonly syncStore: () => CreatorsSyncStore,
    private readonly scores: TrustScores,
    private readonly baseUrl: string,
  ) {}

  /** The stored creator row, answered synchronously on SQLite (pages, public check, import). */
  findNow(rawHandle: string): CreatorRow | null {
    const handle = normalizeHandle(rawHandle);
    return handle === null ? null : this.syncStore().byHandle(handle);
  }

  async find(rawHandle: string): Promise<CreatorRow | null> {
    const handle = normalizeHandle(rawHandle);
    return handle === null ? null : this.store.byHandle(handle);
  }

  async findById(id: string): Promise<CreatorRow | null> {
    return this.store.byId(id);
  }

  private async require(rawHandle: string): Promise<CreatorRow> {
    const row = await this.find(rawHandle);
    if (!row) throw creatorNotFound(rawHandle);
    return row;
  }

  profileUrl(handle: string): string {
    return `${this.baseUrl}/u/${handle}`;
  }

  toProfile(row: CreatorRow): CreatorProfile {
    return {
      handle: row.handle,
      display_name: row.displayName,
      verification_level: row.verificationLevel,
      verification_label: verificationLabel(row.verificationLevel),
      karma: row.karma,
      trust_score: row.trustScore,
      trust_band: row.trustBand,
      reviews: reviewsSummary(row.reviewCount, row.reviewSum),
      completed_deals: row.dealCount,
      linked_accounts: row.linkedAccounts,
      blacklisted: !!row.blacklisted,
      joined_at: iso(row.joinedAt),
      profile_url: this.profileUrl(row.handle),
    };
  }

  async profile(rawHandle: string): Promise<CreatorProfile> {
    return this.toProfile(await this.require(rawHandle));
  }

  async trust(rawHandle: string): Promise<TrustBreakdown> {
    const row = await this.require(rawHandle);
    return {
      handle: row.handle,
      trust_score: row.trustScore,
      band: row.trustBand,
      trend: await this.trend(row),
      blacklisted: !!row.blacklisted,
      basis: {
        verification_level: row.verificationLevel,
        verification_label: verificationLabel(row.verificationLevel),
        // As of the computation, so the basis is exactly what produced the score.
        account_age_days: accountAgeDays(row.joinedAt, row.trustComputedAt),
        linked_accounts: row.linkedAccounts,
        completed_deals: row.dealCount,
        reviews: reviewsSummary(row.reviewCount, row.reviewSum),
      },
      computed_at: iso(row.trustComputedAt),
    };
  }

  trend(row: CreatorRow): Promise<TrustTrend> {
    return this.scores.trend(row);
  }

  /** Public connections, oldest first. */
  async connections(rawHandle: string): Promise<PublicConnection[]> {
    const row = await this.require(rawHandle);
    return (await this.store.connectionsOf(row.id))
      .filter((c) => c.public)
      .map((c) => ({
        provider: c.provider,
        provider_username: c.providerUsername,
        provider_url: c.providerUrl,
        verified_at: iso(c.verifiedAt),
      }));
  }
}

/** 404 for a handle no creator has; the handle is shown as given, shortened. */
export function creatorNotFound(rawHandle: string, role?: string) {
  return notFound(`No creator '${rawHandle.replace(/^@/, "").slice(0, 40)}'${role ? ` (${role})` : ""}.`);
}
