// The vouches a creator received, one page at a time, as a visitor sees them; their own file as one
// of the public module's concepts (service.ts is the facade).
import { iso } from "../../clock";
import { type CreatorsService, creatorNotFound } from "../creators/service";
import type { NetworkStore } from "../network/store";
import type { VouchesPage as VouchesPageSchema } from "./model";

export type VouchesPage = typeof VouchesPageSchema.static;

export class PublicVouches {
  constructor(
    private readonly creators: CreatorsService,
    private readonly network: NetworkStore,
  ) {}

  async vouches(rawHandle: string, options: { limit?: number; offset?: number }): Promise<VouchesPage> {
    const creator = await this.creators.find(rawHandle);
    if (!creator) throw creatorNotFound(rawHandle);
    const limit = options.limit ?? 20;
    const offset = options.offset ?? 0;
    return {
      count: creator.vouchCount,
      limit,
      offset,
      vouches: (await this.network.vouchesReceived(creator.id, limit, offset)).map((v) => ({
        id: v.id,
        from_username: v.handle,
        from_display_name: v.displayName,
        from_verification_level: v.verificationLevel,
        from_avatar_url: v.avatarR2Key ? `/avatars/${encodeURIComponent(v.avatarR2Key)}` : null,
        message: v.message,
        created_at: iso(v.createdAt),
      })),
    };
  }
}
