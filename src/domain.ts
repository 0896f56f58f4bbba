// The words of the domain that the API, the CLI, the import format and the tables share: plans,
// key scopes, platforms, severities and the states of entries, deals, deliveries and tripwires.

export const API_TIERS = ["free", "pro", "max", "enterprise"] as const;
export const RATE_TIERS = ["free", "verified", "partner"] as const;
export const KEY_SCOPES = ["read", "write", "admin"] as const;
export const ACCOUNT_STATUSES = ["active", "suspended"] as const;
export const SEVERITIES = ["warn", "restrict", "ban"] as const;
export const ENTRY_SCOPES = ["global", "vertical"] as const;
export const VERTICALS = ["roblox", "uefn", "minecraft", "all"] as const;
export const PROVIDERS = [
  "discord",
  "roblox",
  "epic",
  "minecraft",
  "youtube",
  "twitch",
  "twitter",
  "tiktok",
  "github",
] as const;
export const ENTRY_STATUSES = ["active", "overturned", "expired"] as const;
export const CHANGE_TYPES = ["added", "overturned", "expired"] as const;
export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export const DEAL_STATUSES = ["pending", "confirmed", "declined", "completed"] as const;
export const TRIPWIRE_TARGETS = ["handle", "discord"] as const;

export type ApiTier = (typeof API_TIERS)[number];
export type RateTier = (typeof RATE_TIERS)[number];
export type KeyScope = (typeof KEY_SCOPES)[number];
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];
export type Severity = (typeof SEVERITIES)[number];
export type EntryScope = (typeof ENTRY_SCOPES)[number];
export type Vertical = (typeof VERTICALS)[number];
export type Provider = (typeof PROVIDERS)[number];
export type EntryStatus = (typeof ENTRY_STATUSES)[number];
export type ChangeType = (typeof CHANGE_TYPES)[number];
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export type DealStatus = (typeof DEAL_STATUSES)[number];
export type TripwireTarget = (typeof TRIPWIRE_TARGETS)[number];
