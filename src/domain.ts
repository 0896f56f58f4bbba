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
/** Staff roles, each allowed what the one before it is and more (docs/moderation.md). */
export const STAFF_ROLES = ["triage", "moderator", "admin"] as const;
/** What a member of an API account is to it; both manage its keys and webhooks in the console. */
export const ACCOUNT_MEMBER_ROLES = ["owner", "developer"] as const;
/**
 * Who an audit event says acted: a staff member, an API key, the operator's CLI, a followed source,
 * a job, or a signed-in creator acting for themselves (filing an appeal or a report).
 */
export const AUDIT_ACTOR_KINDS = ["staff", "key", "cli", "source", "job", "creator"] as const;
export const CASE_STATUSES = ["open", "escalated", "closed"] as const;
/** How a case closed: a decision (an entry), a watchlist row, dismissed, or every report muted. */
export const CASE_OUTCOMES = ["decided", "watchlisted", "dismissed", "muted"] as const;
/**
 * Who filed a report: a signed-in creator, a platform member a bot relays for, a bot's key itself,
 * or a followed instance under the `review` policy.
 */
export const REPORTER_KINDS = ["creator", "member", "key", "source"] as const;
export const REPORT_STATUSES = ["open", "closed"] as const;
/** A closed report's outcome; `muted` is staff-only (its reporter reads it as open). */
export const REPORT_OUTCOMES = ["upheld", "watchlisted", "dismissed", "muted"] as const;
/** File types evidence may have, recognised by their leading bytes. */
export const EVIDENCE_TYPES = ["image/png", "image/jpeg", "image/webp", "image/gif", "application/pdf", "text/plain"] as const;
export const APPEAL_STATUSES = ["open", "decided"] as const;
export const APPEAL_OUTCOMES = ["upheld", "downgraded", "removed"] as const;
/** Who filed an appeal: a bot's key for the account it talks to, or a signed-in creator. */
export const APPELLANT_KINDS = ["key", "creator"] as const;
/** What a followed source's items become here: entries, moderation cases, or watchlist rows. */
export const SOURCE_POLICIES = ["apply", "review", "watch"] as const;

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
export type StaffRole = (typeof STAFF_ROLES)[number];
export type AccountMemberRole = (typeof ACCOUNT_MEMBER_ROLES)[number];
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];
export type CaseStatus = (typeof CASE_STATUSES)[number];
export type CaseOutcome = (typeof CASE_OUTCOMES)[number];
export type ReporterKind = (typeof REPORTER_KINDS)[number];
export type ReportStatus = (typeof REPORT_STATUSES)[number];
export type ReportOutcome = (typeof REPORT_OUTCOMES)[number];
export type EvidenceType = (typeof EVIDENCE_TYPES)[number];
export type AppealStatus = (typeof APPEAL_STATUSES)[number];
export type AppealOutcome = (typeof APPEAL_OUTCOMES)[number];
export type AppellantKind = (typeof APPELLANT_KINDS)[number];
export type SourcePolicy = (typeof SOURCE_POLICIES)[number];
