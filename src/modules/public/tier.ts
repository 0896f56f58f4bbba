// The trust tier of a handle and resolving a public linked account to its creator: the two keyless
// look-ups of one creator; their own file as one of the public module's concepts (service.ts is
// the facade).
import { type Clock, iso } from "../../clock";
import { invalid } from "../../errors";
import { isProvider } from "../blacklist/service";
import type { CreatorsService } from "../creators/service";
import { TIER_COLORS, tierLabel } from "../creators/trust";
import type { Viewer } from "../sessions/service";
import { type PublicAccounts, showsTrustScore } from "./disclosure";
import type { PublicTrust as PublicTrustSchema, ResolveResult as ResolveResultSchema } from "./model";

export type PublicTrust = typeof PublicTrustSchema.static;
export type ResolveResult = typeof ResolveResultSchema.static;

export class PublicTiers {
  constructor(
    private readonly clock: Clock,
    private readonly accounts: PublicAccounts,
    private readonly creators: CreatorsService,
  ) {}

  /** The trust tier of one handle; `trust_score` only for a signed-in (session) caller. */
  async publicTrust(rawHandle: string, viewer: Viewer | null = null): Promise<PublicTrust> {
    const shown = rawHandle.trim().replace(/^@/, "").toLowerCase().slice(0, 64);
    const row = await this.creators.find(rawHandle);
    if (!row) return { handle: shown, found: false };
    const result: PublicTrust = {
      handle: row.handle,
      found: true,
      band: row.trustBand,
      tier: tierLabel(row.trustBand),
      tier_color: TIER_COLORS[row.trustBand],
      blacklisted: !!row.blacklisted,
      checked_at: iso(this.clock.now()),
    };
    if (showsTrustScore(viewer)) result.trust_score = row.trustScore;
    return result;
  }

  /** The creator a public linked account belongs to. */
  async resolve(input: { provider?: string; id?: string; username?: string }): Promise<ResolveResult> {
    const provider = input.provider;
    if (provider !== undefined && !isProvider(provider)) throw invalid(`Unknown provider '${provider.slice(0, 32)}'.`);
    const id = input.id?.trim();
    const username = input.username?.trim().replace(/^@/, "").toLowerCase();
    if (!id && !username) throw invalid("Give id or username (with an optional provider).");
    const creatorId = await this.accounts.creatorIdOf(provider, id, username);
    const creator = creatorId ? await this.creators.findById(creatorId) : null;
    if (!creator) return { found: false };
    return {
      found: true,
      handle: creator.handle,
      trust_score: creator.trustScore,
      band: creator.trustBand,
      blacklisted: !!creator.blacklisted,
      profile_url: this.creators.profileUrl(creator.handle),
    };
  }
}
