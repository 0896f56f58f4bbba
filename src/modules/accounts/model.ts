import { t } from "elysia";
import { ACCOUNT_STATUSES, API_TIERS, KEY_SCOPES, RATE_TIERS } from "../../domain";
import { JsonInteger, DateTime, literals } from "../../http/model";

export const ApiTier = literals(API_TIERS, { description: "The account's plan.", examples: ["pro"] });
export const RateTier = literals(RATE_TIERS, { description: "The key's burst tier.", examples: ["free"] });
export const KeyScope = literals(KEY_SCOPES, { description: "`read`, `write` (partner path) or `admin`.", examples: ["read"] });
export const AccountStatus = literals(ACCOUNT_STATUSES, { examples: ["active"] });

export const Account = t.Object({
  id: t.String({ examples: ["acct_01jd5x8q3m7k2c9v4n6p8r0s1t"] }),
  name: t.String({ examples: ["acme-guild"] }),
  tier: ApiTier,
  daily_quota: JsonInteger({ description: "Effective daily quota shared by all keys.", examples: [1000] }),
  daily_quota_override: t.Nullable(JsonInteger({ description: "Operator override; null means the plan's quota." })),
  status: AccountStatus,
  federation: t.Boolean({ description: "Whether the account's read keys may follow this instance's signed feed." }),
  created_at: DateTime("When the account was created."),
}, { $id: "Account", description: "An API account." });

export const AccountList = t.Object({ data: t.Array(Account) }, { $id: "AccountList", description: "Every account." });

export const NewAccountBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 64, examples: ["acme-guild"] }),
    tier: ApiTier,
    daily_quota: t.Optional(t.Nullable(JsonInteger({ minimum: 0, maximum: 1_000_000_000 }))),
  },
  { $id: "NewAccountBody", additionalProperties: t.Never() },
);

export const AccountPatchBody = t.Object(
  {
    tier: t.Optional(ApiTier),
    daily_quota: t.Optional(t.Nullable(JsonInteger({ minimum: 0, maximum: 1_000_000_000, description: "Null restores the plan's quota." }))),
    status: t.Optional(AccountStatus),
    federation: t.Optional(t.Boolean({ description: "Open (true) or close (false) the signed feed to the account's read keys." })),
  },
  { $id: "AccountPatchBody", additionalProperties: t.Never() },
);

export const ApiKey = t.Object({
  id: t.String({ examples: ["key_01jd5x8q3m7k2c9v4n6p8r0s1t"] }),
  account_id: t.String(),
  name: t.Nullable(t.String()),
  prefix: t.String({ description: "First characters of the secret, to tell keys apart.", examples: ["tl_live_Ab3d"] }),
  scope: KeyScope,
  rate_tier: RateTier,
  burst: t.Nullable(JsonInteger({ description: "Operator burst override in requests per second." })),
  created_at: DateTime("When the key was created."),
  revoked_at: t.Nullable(DateTime("When the key was revoked.")),
}, { $id: "ApiKey", description: "An API key, without its secret." });

export const IssuedKey = t.Composite([
  ApiKey,
  t.Object({ key: t.String({ description: "The secret. Shown only in this response.", examples: ["tl_live_3kP9xQ2mV8nR4tY7wZ1aB5cD6eF0gH2j"] }) }),
], { $id: "IssuedKey", description: "A key with its secret, shown only when issued or rotated." });

export const KeyList = t.Object({ data: t.Array(ApiKey) }, { $id: "KeyList", description: "Keys, without secrets." });

export const NewKeyBody = t.Object(
  {
    name: t.Optional(t.Nullable(t.String({ maxLength: 64 }))),
    scope: t.Optional(KeyScope),
    rate_tier: t.Optional(RateTier),
    burst: t.Optional(t.Nullable(JsonInteger({ minimum: 1, maximum: 1_000_000, description: "Requests per second; the bucket holds 4x." }))),
  },
  { $id: "NewKeyBody", additionalProperties: t.Never() },
);

export const IdParams = t.Object({ id: t.String({ maxLength: 64 }) });
export const KeysQuery = t.Object({ account: t.Optional(t.String({ description: "Account id or name." })) });

export const UsageStats = t.Object({
  key_id: t.String(),
  rate_limit_tier: RateTier,
  api_tier: ApiTier,
  total_requests: JsonInteger({ description: "All metered calls of this key still retained (about 3 months)." }),
  requests_this_month: JsonInteger({ description: "Calls in the current UTC month." }),
  rate_limit: t.Object({
    limit: JsonInteger({ description: "Daily quota of the account." }),
    used: JsonInteger({ description: "Calls today by all of the account's keys." }),
    remaining: JsonInteger(),
    reset: JsonInteger({ description: "Next midnight UTC, epoch seconds." }),
    window_seconds: JsonInteger({ examples: [86400] }),
  }),
  by_endpoint: t.Array(t.Object({ endpoint: t.String({ examples: ["GET /v1/blacklist/check"] }), count: JsonInteger() }), {
    description: "Descending by count.",
  }),
}, { $id: "UsageStats", description: "Usage of the calling key and its account's daily quota." });
