// Schemas of the keyless routes.
import { t } from "elysia";
import { PROVIDERS } from "../../domain";
import { JsonInteger, DateTime, literals } from "../../http/model";
import { HandleParams, TrustBand } from "../creators/model";
import { DIRECTORY_SORTS, LEADERBOARD_PERIODS, MAX_DIRECTORY_ROWS, MAX_QUERY_LENGTH } from "./service";

export { HandleParams };

export const SearchQuery = t.Object({
  // No length rules here: empty or over-long `q` is the service's 400, not a schema 422.
  q: t.String({ description: `A username, handle or platform id (1-${MAX_QUERY_LENGTH} characters; a leading @ is ignored).`, examples: ["shadowbuilds"] }),
});

export const PublicCheckHit = t.Object({
  platform: t.String({ description: "Platform of the matched account (`trustlist` for a creator profile with no public account).", examples: ["discord"] }),
  username: t.Nullable(t.String({ examples: ["shadow"] })),
  id: t.Nullable(t.String({ examples: ["80351110224678912"] })),
  banned: t.Boolean({ description: "An active, confirmed `ban` names this account." }),
  high_risk: t.Boolean(),
  watchlist: t.Boolean({ description: "An unconfirmed external report; with `banned` false it is not a ban by this service." }),
  severity: t.Nullable(t.String({ examples: ["ban"] })),
  reason_code: t.Nullable(t.String({ examples: ["scam_trade"] })),
  summary: t.Nullable(t.String()),
  source: t.Optional(
    t.Nullable(
      t.String({
        description:
          "Where the answer comes from: `blacklist` (this instance's own list), `creator` (a creator profile), `external` (an unconfirmed report), or, for an entry applied from a followed instance, the name this instance gave it.",
        examples: ["blacklist"],
      }),
    ),
  ),
  appealable: t.Optional(t.Boolean({ description: "On a confirmed hit: whether the listed person may appeal the entry (docs/moderation.md, \"Appeals\")." })),
}, { $id: "PublicCheckHit", description: "One matched platform account." });

export const PublicCheckResult = t.Object(
  {
    query: t.String({ examples: ["shadowbuilds"] }),
    found: t.Boolean(),
    platforms: t.Array(PublicCheckHit, { description: "One hit per matched platform account." }),
    suggestions: t.Array(t.String(), { description: "Up to 5 similar known names when nothing matched." }),
    checked_at: DateTime("When the answer was computed (UTC)."),
  },
  {
    $id: "PublicCheckResult",
    description: "Unified search across every platform.",
    examples: [
      {
        query: "shadow",
        found: true,
        platforms: [
          {
            platform: "discord",
            username: "shadow",
            id: "80351110224678912",
            banned: true,
            high_risk: false,
            watchlist: false,
            severity: "ban",
            reason_code: "scam_trade",
            summary: "Took payment for a map and never delivered.",
            source: "blacklist",
          },
          {
            platform: "roblox",
            username: "shadow",
            id: "1234567",
            banned: false,
            high_risk: false,
            watchlist: true,
            severity: null,
            reason_code: null,
            summary: null,
            source: "external",
          },
        ],
        suggestions: [],
        checked_at: "2026-11-21T10:00:00.000Z",
      },
    ],
  },
);

export const PublicTrust = t.Object(
  {
    handle: t.String({ examples: ["shadowbuilds"] }),
    found: t.Boolean(),
    band: t.Optional(TrustBand),
    tier: t.Optional(t.String({ description: "Display label of the band.", examples: ["Good"] })),
    tier_color: t.Optional(t.String({ description: "Hex colour of the band.", examples: ["#97ca00"] })),
    trust_score: t.Optional(JsonInteger({ minimum: 0, maximum: 250, description: "Only for signed-in (session) callers." })),
    blacklisted: t.Optional(t.Boolean()),
    checked_at: t.Optional(DateTime("When the answer was computed (UTC).")),
  },
  { $id: "PublicTrust", description: "Trust tier of one handle. When `found` is false only `handle` and `found` are returned." },
);

export const ResolveQuery = t.Object({
  provider: t.Optional(literals(PROVIDERS, { description: "Platform of the account; any when absent.", examples: ["discord"], "x-invalid-status": 400 })),
  id: t.Optional(t.String({ maxLength: 128, description: "Native user id.", examples: ["80351110224678912"] })),
  username: t.Optional(t.String({ maxLength: 128, description: "Username on the platform (instead of `id`).", examples: ["shadow"] })),
});

export const ResolveResult = t.Object(
  {
    found: t.Boolean(),
    handle: t.Optional(t.String()),
    trust_score: t.Optional(JsonInteger({ minimum: 0, maximum: 250 })),
    band: t.Optional(TrustBand),
    blacklisted: t.Optional(t.Boolean()),
    profile_url: t.Optional(t.String({ format: "uri" })),
  },
  { $id: "ResolveResult", description: "The creator a public linked account belongs to; only `found: false` when none." },
);

export const DirectoryQuery = t.Object({
  q: t.Optional(t.String({ maxLength: MAX_QUERY_LENGTH, description: "Matched without case against handle, display name and public usernames: as typed anywhere, else every word of 3+ characters in any order; under 3 characters, a handle prefix.", examples: ["shadow"] })),
  sort: t.Optional(literals(DIRECTORY_SORTS, { description: "newest (default), trust, vouches or deals.", examples: ["trust"] })),
  page: t.Optional(
    t.Integer({ minimum: 1, maximum: MAX_DIRECTORY_ROWS, default: 1, description: `1-based page; \`page\` x \`limit\` may be at most ${MAX_DIRECTORY_ROWS}.` }),
  ),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 24, description: "Page size, 1-100." })),
  platform: t.Optional(literals(PROVIDERS, { description: "Only creators with a public account on this platform.", examples: ["roblox"] })),
});

export const DirectoryItem = t.Object({
  id: t.String({ examples: ["crt_01jd5x8q3m7k2c9v4n6p8r0s1t"] }),
  handle: t.String(),
  display_name: t.Nullable(t.String()),
  verification_level: JsonInteger(),
  karma: JsonInteger(),
  avatar_r2_key: t.Nullable(t.String()),
  created_at: DateTime("When the creator was added."),
  trust_score: JsonInteger({ minimum: 0, maximum: 250 }),
  vouch_count: JsonInteger(),
  deal_count: JsonInteger({ description: "Completed deals." }),
  platforms: t.Array(t.String(), { description: "Platforms of public linked accounts." }),
  blacklisted: t.Boolean({ description: "An active `ban` names the creator or one of its accounts (which one is never shown)." }),
  match: t.String({ description: "The haystack `q` is matched against." }),
}, { $id: "DirectoryItem", description: "A creator as the directory lists it." });

export const DirectoryPage = t.Object({
  items: t.Array(DirectoryItem),
  page: JsonInteger(),
  limit: JsonInteger(),
  page_size: JsonInteger({ description: "Rows on this page." }),
  total: JsonInteger({ description: "Rows matching, over all pages." }),
  total_pages: JsonInteger(),
  has_more: t.Boolean(),
  sort: literals(DIRECTORY_SORTS),
}, { $id: "DirectoryPage", description: "A page of the creator directory." });

export const VouchesQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20 })),
  offset: t.Optional(t.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
});

export const VouchesPage = t.Object({
  count: JsonInteger({ description: "Vouches received in total, not just this page." }),
  limit: JsonInteger(),
  offset: JsonInteger(),
  vouches: t.Array(
    t.Object({
      id: t.String(),
      from_username: t.String({ description: "Handle of the creator who vouched." }),
      from_display_name: t.Nullable(t.String()),
      from_verification_level: JsonInteger(),
      from_avatar_url: t.Nullable(t.String({ description: "Relative path of the voucher's avatar." })),
      message: t.Nullable(t.String()),
      created_at: DateTime("When the vouch was given."),
    }),
    { description: "Newest first." },
  ),
}, { $id: "VouchesPage", description: "A page of the vouches a creator received, newest first." });

export const PublicStats = t.Object({
  creators_verified: JsonInteger({ description: "Creators at verification level 1 or higher." }),
  servers_protected: JsonInteger({ description: "Community servers registered with this instance." }),
  entries_listed: JsonInteger({ description: "Active, confirmed blacklist entries." }),
  deals_completed: JsonInteger(),
  cached: t.Boolean({ description: "True when served from the cache the 5-minute job refreshes." }),
}, { $id: "PublicStats", description: "Public counters of this instance." });

export const LeaderboardQuery = t.Object({ period: t.Optional(literals(LEADERBOARD_PERIODS, { description: "all (default) or this UTC month." })) });

export const ReferralLeaderboard = t.Object({
  period: literals(LEADERBOARD_PERIODS),
  leaders: t.Array(
    t.Object({
      rank: JsonInteger({ description: "Equal counts share a rank." }),
      handle: t.String(),
      count: JsonInteger({ description: "Creators referred in the period." }),
      badge: t.Nullable(t.Object({ tier: t.String({ examples: ["bronze"] }), name: t.String({ examples: ["Recruiter"] }) })),
    }),
    { description: "Top 25. Earnings are never included." },
  ),
}, { $id: "ReferralLeaderboard", description: "The top referrers of the period." });
