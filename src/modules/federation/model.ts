// Schemas of federation (docs/federation.md), declared once: the well-known identity document, the
// signed feed, followed sources and exemptions. They validate requests, describe responses in
// /openapi.json and type the services.
import { t } from "elysia";
import { PROVIDERS, SEVERITIES, SOURCE_POLICIES } from "../../domain";
import { DateTime, JsonInteger, literals } from "../../http/model";
import { Provider, Scope, Severity, Vertical } from "../blacklist/model";

export const Endorsement = t.Object(
  {
    kid: t.String({ description: "The endorsing (previous) key's id." }),
    sig: t.String({ description: "base64url Ed25519 signature by that key over the UTF-8 bytes of `<new kid>.<new public_key>`." }),
  },
  { $id: "Endorsement", description: "The previous key's word for a new one." },
);

export const InstanceKey = t.Object(
  {
    kid: t.String({ examples: ["3f2a9c41d07b6e55"] }),
    alg: t.Literal("Ed25519"),
    public_key: t.String({ description: "base64url of the raw 32-byte public key." }),
    created_at: DateTime("When the key was made."),
    retired_at: t.Nullable(DateTime("When a newer key replaced it; it still verifies what it signed.")),
    endorsement: t.Nullable(Endorsement),
  },
  { $id: "InstanceKey", description: "One of the instance's signing keys." },
);

export const WellKnown = t.Object(
  {
    instance: t.Object({
      id: t.String({ description: "The instance's stable id." }),
      name: t.String(),
      base_url: t.String(),
    }),
    keys: t.Array(InstanceKey),
    feed: t.String({ description: "The signed feed's URL." }),
    software: t.Object({ name: t.String(), version: t.String() }),
  },
  { $id: "TrustlistWellKnown", description: "Who this instance is and the keys its feed is signed with." },
);

export const FeedEntry = t.Object(
  {
    id: t.String(),
    provider: Provider,
    provider_user_id: t.String(),
    username: t.Nullable(t.String()),
    severity: Severity,
    scope: Scope,
    vertical: Vertical,
    reason_code: t.String(),
    summary: t.Nullable(t.String()),
    issued_at: DateTime("When the entry was issued."),
    expires_at: t.Nullable(DateTime("When it lapses.")),
    appealable: t.Boolean(),
    high_risk: t.Boolean(),
    watchlist: t.Boolean({ description: "An unconfirmed report: followers hold it as a watchlist row, never a ban." }),
    supersedes: t.Nullable(t.String()),
  },
  { $id: "FeedEntry", description: "An entry as the signed feed carries it (the whole entry, for every change)." },
);

export const FeedItem = t.Object(
  {
    seq: JsonInteger({ description: "Commit order." }),
    type: literals(["added", "overturned", "expired"] as const),
    at: DateTime("When the change committed."),
    origin: t.String({ description: "The publishing instance's id." }),
    entry: FeedEntry,
    kid: t.String({ description: "The key that signed it." }),
    sig: t.String({ description: "base64url Ed25519 over the RFC 8785 canonical JSON of the item without `sig`." }),
  },
  { $id: "FeedItem", description: "One signed change of an entry that originated on this instance." },
);

export const FeedPageSignature = t.Object(
  {
    kid: t.String({ description: "The key that signed the page." }),
    sig: t.String({
      description:
        "base64url Ed25519 over the UTF-8 text of one line per item, in order: the base64url SHA-256 of the item's signed text (its canonical JSON without `sig`), a dot, and the item's `sig`; lines joined by a newline.",
    }),
  },
  { $id: "FeedPageSignature", description: "One signature over a page's items and their own signatures, which a follower may check instead of each item's." },
);

export const FeedPage = t.Object(
  { items: t.Array(FeedItem), page_sig: t.Optional(FeedPageSignature), next_cursor: t.String(), has_more: t.Boolean() },
  { $id: "FeedPage", description: "Signed changes in commit order; pass `next_cursor` back for the next ones." },
);

export const FeedQuery = t.Object({
  cursor: t.Optional(t.String({ maxLength: 512 })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, default: 100, description: "Page size, 1-1000." })),
});

export const SourcePolicy = literals(SOURCE_POLICIES, {
  description: "`apply`: items become entries here; `review`: each opens a moderation case; `watch`: items answer as watchlist hits.",
  examples: ["apply"],
});

const NAME = t.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$", examples: ["next-door"] });

export const Source = t.Object(
  {
    name: t.String({ examples: ["next-door"] }),
    url: t.String({ examples: ["https://trust.next-door.example"] }),
    instance_id: t.String(),
    policy: SourcePolicy,
    max_severity: t.Nullable(Severity),
    verticals: t.Nullable(t.Array(t.String())),
    reason_codes: t.Nullable(t.Array(t.String())),
    interval_s: JsonInteger(),
    cursor: t.Nullable(t.String()),
    last_synced_at: t.Nullable(DateTime("When the last sync finished.")),
    entries_held: JsonInteger({ description: "Active entries held here from it." }),
    last_error: t.Nullable(t.String()),
    fingerprints: t.Array(t.String(), { description: "Fingerprints of its pinned keys." }),
  },
  { $id: "Source", description: "A followed instance. The key it was added with is never shown." },
);

export const SourceList = t.Object({ data: t.Array(Source) }, { $id: "SourceList" });

const Filters = {
  max_severity: t.Optional(t.Nullable(Severity)),
  verticals: t.Optional(t.Nullable(t.Array(Vertical, { maxItems: 8 }))),
  reason_codes: t.Optional(t.Nullable(t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: 64 }))),
  interval_s: t.Optional(t.Integer({ minimum: 5, maximum: 86_400, description: "Seconds between syncs, at least 5 (default 60)." })),
};

export const NewSourceBody = t.Object(
  {
    name: NAME,
    url: t.String({ minLength: 1, maxLength: 2048, description: "The source's base URL." }),
    key: t.String({ minLength: 1, maxLength: 256, description: "A read key the source's operator opened for following." }),
    policy: t.Optional(SourcePolicy),
    ...Filters,
  },
  { $id: "NewSourceBody", additionalProperties: t.Never() },
);

export const SourcePatchBody = t.Object(
  {
    url: t.Optional(t.String({ minLength: 1, maxLength: 2048 })),
    key: t.Optional(t.String({ minLength: 1, maxLength: 256 })),
    policy: t.Optional(SourcePolicy),
    ...Filters,
  },
  { $id: "SourcePatchBody", additionalProperties: t.Never() },
);

export const SourceParams = t.Object({ name: t.String({ maxLength: 64 }) });
export const SourceRemoveQuery = t.Object({ keep: t.Optional(t.Boolean({ description: "Keep the entries held from it." })) });

export const SyncResult = t.Object(
  {
    name: t.String(),
    applied: JsonInteger({ description: "Items read and applied." }),
    cursor: t.Nullable(t.String()),
    has_more: t.Boolean(),
    error: t.Nullable(t.String()),
    running: t.Boolean({ description: "The sync goes on after this answer (a large first sync); `sources list` shows its progress." }),
  },
  { $id: "SourceSyncResult", description: "What one sync of a source did." },
);

export const SourceRemoved = t.Object(
  {
    name: t.String(),
    removed: t.Literal(true),
    entries_overturned: JsonInteger({ description: "Entries held from it overturned (so far, while `running`)." }),
    running: t.Boolean({ description: "The retraction goes on after this answer (a large source); the source is deleted when it is done." }),
  },
  { $id: "SourceRemoved" },
);

export const Exemption = t.Object(
  {
    id: t.String({ examples: ["exm_01jd5x8q3m7k2c9v4n6p8r0s1t"] }),
    provider: Provider,
    provider_user_id: t.String(),
    source: t.Nullable(t.String({ description: "The source it is about; null for every source." })),
    reason: t.String(),
    created_by: t.String(),
    created_at: DateTime("When it was made."),
    entries_overturned: t.Optional(JsonInteger({ description: "On creation: entries already applied for the account, overturned by it." })),
  },
  { $id: "Exemption", description: "An account no followed source's item applies to." },
);

export const ExemptionList = t.Object({ data: t.Array(Exemption) }, { $id: "ExemptionList" });

export const NewExemptionBody = t.Object(
  {
    provider: literals(PROVIDERS),
    provider_user_id: t.String({ minLength: 1, maxLength: 128 }),
    source: t.Optional(t.Nullable(NAME)),
    reason: t.String({ minLength: 1, maxLength: 500 }),
  },
  { $id: "NewExemptionBody", additionalProperties: t.Never() },
);

export const ExemptionParams = t.Object({ id: t.String({ maxLength: 64 }) });
export const ExemptionRemoved = t.Object({ id: t.String(), removed: t.Literal(true), entries_applied: JsonInteger() }, { $id: "ExemptionRemoved" });

export const SEVERITY_ORDER: Record<(typeof SEVERITIES)[number], number> = { warn: 0, restrict: 1, ban: 2 };
