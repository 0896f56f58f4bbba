// What a badge says for a requested handle, and the rendered SVGs kept for reuse. The cache is keyed
// by theme and normalised handle, so `Alice`, `@alice` and `alice.svg` share one entry, and text that
// cannot be a handle never reaches it (nor the database): it gets one fixed Not Verified badge.
import type { CreatorsService } from "../creators/service";
import { TIER_COLORS, tierLabel } from "../creators/trust";
import { normalizeHandle } from "../../values";
import { shieldsEndpoint } from "./endpoint";
import type { ShieldsEndpoint } from "./model";
import { type BadgeTheme, renderBadge } from "./render";

const NEUTRAL = "#9f9f9f";
const NOT_VERIFIED = "Not Verified";
/**
 * Badges kept: a rendered badge is about 1.5 KB (label and title are bounded by the renderer), so
 * the cache holds at most about 8 MB whatever is requested.
 */
export const BADGE_CACHE_LIMIT = 5_000;

interface CachedBadge {
  label: string;
  message: string;
  svg: string;
}

/** The handle a badge path names (a leading @ and a trailing .svg or .json are ignored), or null. */
export function badgeHandle(requested: string): string | null {
  return normalizeHandle(requested.trim().replace(/\.(?:svg|json)$/i, ""));
}

/** What a badge says, whichever format it is drawn in. */
interface BadgeContent {
  label: string;
  message: string;
  color: string;
}

const IMPOSSIBLE: BadgeContent = { label: "trustlist", message: NOT_VERIFIED, color: NEUTRAL };

export class BadgeService {
  /**
   * Two generations, the recently used ones: a badge found in the older one moves to the newer,
   * and when the newer holds half the limit the older is dropped whole. A Map kept in use order
   * instead (delete, set, evict its first key) cost about 4 µs a badge once full: every eviction's
   * `keys().next()` walked past the slots of the entries deleted before it.
   */
  private recent = new Map<string, CachedBadge>();
  private older = new Map<string, CachedBadge>();
  private readonly impossible: Record<BadgeTheme, string> = {
    dark: renderBadge({ ...IMPOSSIBLE, theme: "dark", title: `${NOT_VERIFIED} on trustlist` }),
    light: renderBadge({ ...IMPOSSIBLE, theme: "light", title: `${NOT_VERIFIED} on trustlist` }),
  };

  constructor(
    private readonly creators: CreatorsService,
    private readonly maxEntries = BADGE_CACHE_LIMIT,
  ) {}

  /** The SVG for a requested handle: the creator's band, else a neutral Not Verified badge. */
  async svgFor(requested: string, theme: BadgeTheme): Promise<string> {
    const handle = badgeHandle(requested);
    if (handle === null) return this.impossible[theme];
    const { label, message, color } = await this.contentOf(handle);
    const key = `${theme}:${handle}`;
    const recent = this.recent.get(key);
    const cached = recent ?? this.older.get(key);
    // A badge changes when the creator's band or name does: the entry is checked, not invalidated.
    const svg =
      cached !== undefined && cached.label === label && cached.message === message
        ? cached.svg
        : renderBadge({ label, message, color, theme, title: `${label}: ${message} on trustlist` });
    // Kept in the newer generation unless it is there already, unchanged.
    if (recent?.svg !== svg) this.remember(key, { label, message, svg });
    return svg;
  }

  private remember(key: string, badge: CachedBadge): void {
    if (this.recent.size >= Math.max(1, Math.floor(this.maxEntries / 2))) {
      this.older = this.recent;
      this.recent = new Map();
    }
    this.recent.set(key, badge);
  }

  /** The same badge in shields.io's endpoint format; nothing is rendered, so nothing is cached. */
  async endpointFor(requested: string): Promise<typeof ShieldsEndpoint.static> {
    const handle = badgeHandle(requested);
    return shieldsEndpoint(handle === null ? IMPOSSIBLE : await this.contentOf(handle));
  }

  private async contentOf(handle: string): Promise<BadgeContent> {
    const creator = await this.creators.find(handle);
    return creator
      ? { label: creator.displayName ?? `@${creator.handle}`, message: tierLabel(creator.trustBand), color: TIER_COLORS[creator.trustBand] }
      : { label: `@${handle}`, message: NOT_VERIFIED, color: NEUTRAL };
  }

  get cacheSize(): number {
    return this.recent.size + this.older.size;
  }
}
