// Schemas of the creator routes, declared once: validation, /openapi.json and handler types. The
// import format's `creator` and `connection` lines reuse the field sets.
import { t } from "elysia";
import { PROVIDERS } from "../../domain";
import { JsonInteger, DateTime, literals } from "../../http/model";
import { TRUST_BANDS } from "./trust";

export const HandleParams = t.Object({
  handle: t.String({ maxLength: 64, description: "Creator handle, without case; a leading `@` is ignored.", examples: ["shadowbuilds"] }),
});

export const TrustBand = literals(TRUST_BANDS, {
  description: "Coarse band of the score; `banned` when blacklisted.",
  examples: ["good"],
});

export const ReviewsSummary = t.Object({
  count: JsonInteger({ description: "Reviews received.", examples: [4] }),
  average: t.Nullable(t.Number({ description: "Mean rating 1-5, two decimals; null without reviews.", examples: [4.5] })),
}, { $id: "ReviewsSummary", description: "Reviews a creator received." });

const VerificationLevel = JsonInteger({
  minimum: 0,
  maximum: 4,
  description: "0 Unverified, 1 Basic (email), 2 Standard (+ phone), 3 Enhanced, 4 Expert.",
  examples: [2],
});

export const CreatorProfile = t.Object(
  {
    handle: t.String({ examples: ["shadowbuilds"] }),
    display_name: t.Nullable(t.String({ examples: ["Shadow Builds"] })),
    verification_level: VerificationLevel,
    verification_label: t.String({ examples: ["Standard"] }),
    karma: JsonInteger({ examples: [120] }),
    trust_score: JsonInteger({ minimum: 0, maximum: 250, examples: [164] }),
    trust_band: TrustBand,
    reviews: ReviewsSummary,
    completed_deals: JsonInteger({ examples: [7] }),
    linked_accounts: JsonInteger({ description: "Public linked platform accounts.", examples: [3] }),
    blacklisted: t.Boolean({ description: "An active `ban` names the creator or one of its accounts." }),
    joined_at: DateTime("When the creator joined."),
    profile_url: t.String({ format: "uri", examples: ["https://trust.example.com/u/shadowbuilds"] }),
  },
  { $id: "CreatorProfile", description: "Public creator profile." },
);

export const TrustBreakdown = t.Object(
  {
    handle: t.String({ examples: ["shadowbuilds"] }),
    trust_score: JsonInteger({ minimum: 0, maximum: 250, examples: [164] }),
    band: TrustBand,
    trend: t.Object({
      direction: literals(["up", "down", "flat"] as const),
      delta: JsonInteger({ description: "Score now minus `from`; 0 without history.", examples: [6] }),
      from: t.Nullable(JsonInteger({ description: "Score at the start of the window (or the oldest known); null without history.", examples: [158] })),
      window_days: JsonInteger({ examples: [30] }),
    }),
    blacklisted: t.Boolean(),
    basis: t.Object(
      {
        verification_level: VerificationLevel,
        verification_label: t.String({ examples: ["Standard"] }),
        account_age_days: JsonInteger({ description: "Age when the score was computed.", examples: [412] }),
        linked_accounts: JsonInteger({ examples: [3] }),
        completed_deals: JsonInteger({ examples: [7] }),
        reviews: ReviewsSummary,
      },
      { description: "The public inputs of the score. Penalties are never exposed." },
    ),
    computed_at: DateTime("When the score was last computed."),
  },
  { $id: "TrustBreakdown", description: "The Trust Score with its public basis and 30-day trend." },
);

export const Connection = t.Object({
  provider: t.Optional(t.String({ examples: ["roblox"] })),
  provider_username: t.Optional(t.Nullable(t.String({ examples: ["ShadowBuilds"] }))),
  provider_url: t.Optional(t.Nullable(t.String({ format: "uri", examples: ["https://www.roblox.com/users/1234567/profile"] }))),
  verified_at: t.Optional(t.Nullable(DateTime("When the link was verified; null if never."))),
}, { $id: "Connection", description: "A public linked platform account." });

export const ConnectionList = t.Object({ connections: t.Array(Connection, { description: "Public linked accounts, oldest first." }) }, { $id: "ConnectionList", description: "A creator's public linked accounts." });

/** Profile fields a partner may set; also the `creator` import line. */
export const CreatorFields = {
  display_name: t.Optional(t.Nullable(t.String({ maxLength: 64, examples: ["Shadow Builds"] }))),
  verification_level: t.Optional(VerificationLevel),
  karma: t.Optional(JsonInteger({ minimum: -1_000_000, maximum: 1_000_000, examples: [120] })),
  joined_at: t.Optional(DateTime("Defaults to now on creation.")),
  avatar_r2_key: t.Optional(t.Nullable(t.String({ maxLength: 256, examples: ["avatars/crt_01/a.png"] }))),
};

export const CreatorBody = t.Object(CreatorFields, { $id: "CreatorBody", additionalProperties: t.Never() });

/** A linked platform account as a partner writes it; also the `connection` import line. */
export const ConnectionFields = {
  provider: literals(PROVIDERS, { description: "Platform of the account.", examples: ["discord"] }),
  provider_user_id: t.String({ minLength: 1, maxLength: 128, description: "Native user id.", examples: ["80351110224678912"] }),
  provider_username: t.Optional(t.Nullable(t.String({ maxLength: 128, examples: ["shadow"] }))),
  provider_url: t.Optional(t.Nullable(t.String({ maxLength: 512, examples: ["https://github.com/shadow"] }))),
  verified_at: t.Optional(t.Nullable(DateTime("When the link was verified."))),
  public: t.Optional(t.Boolean({ default: true, description: "Private links count for `blacklisted` but are never shown or searched." })),
};

export const ConnectionBody = t.Object(ConnectionFields, { $id: "ConnectionBody", additionalProperties: t.Never() });

export const ConnectionParams = t.Object({
  handle: HandleParams.properties.handle,
  provider: literals(PROVIDERS, { description: "Platform of the account.", examples: ["discord"] }),
  provider_user_id: t.String({ maxLength: 128, description: "Native user id.", examples: ["80351110224678912"] }),
});

export const WrittenConnection = t.Object({
  provider: t.String(),
  provider_user_id: t.String(),
  provider_username: t.Nullable(t.String()),
  provider_url: t.Nullable(t.String()),
  verified_at: t.Nullable(DateTime("When the link was verified.")),
  public: t.Boolean(),
}, { $id: "WrittenConnection", description: "The linked account as stored." });
