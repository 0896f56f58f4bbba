// Schemas of the blacklist routes, declared once: they validate requests, describe responses in
// /openapi.json, and type the handlers. The import format's `entry` line reuses `EntryFields`.
import { t } from "elysia";
import { DateTime, literals, JsonInteger } from "../../http/model";
import { ENTRY_SCOPES, ENTRY_STATUSES, PROVIDERS, SEVERITIES, VERTICALS } from "../../domain";

export const Severity = literals(SEVERITIES, { description: "How serious the entry is.", examples: ["ban"] });
export const Scope = literals(ENTRY_SCOPES, {
  description: "`global` applies on every vertical; `vertical` only on the entry's own.",
  examples: ["global"],
});
export const Vertical = literals(VERTICALS, {
  description: "Game platform community; `all` means every one.",
  examples: ["roblox"],
});
export const Provider = literals(PROVIDERS, {
  description: "Platform of the account.",
  examples: ["discord"],
  // An unknown provider on the single check is the seed's 400, not a 422.
  "x-invalid-status": 400,
});

/** The documents' example entry: a confirmed ban (only an active, confirmed ban makes `banned` true). */
const BAN_HIT_EXAMPLE = {
  id: "bl_01jd5x8q3m7k2c9v4n6p8r0s1t",
  severity: "ban",
  scope: "global",
  vertical: "all",
  reason_code: "scam_trade",
  summary: "Took payment for a map and never delivered.",
};

export const BlacklistEntry = t.Object(
  {
    id: t.String({ description: "Entry id.", examples: ["bl_01jd5x8q3m7k2c9v4n6p8r0s1t"] }),
    severity: Severity,
    scope: Scope,
    vertical: t.String({ description: "Vertical the entry applies to (`all` for global entries).", examples: ["all"] }),
    reason_code: t.String({ description: "Machine reason, for example `scam_trade`.", examples: ["scam_trade"] }),
    summary: t.Nullable(t.String({ description: "Short public summary.", examples: ["Took payment for a map and never delivered."] })),
    issued_at: DateTime("When the entry was issued."),
    expires_at: t.Nullable(DateTime("When the entry lapses; null means permanent.", "2027-11-21T10:00:00.000Z")),
    appealable: t.Boolean({ description: "Whether the subject may appeal." }),
  },
  {
    $id: "BlacklistEntry",
    description: "Public-safe view of an active, confirmed blacklist entry.",
    examples: [
      {
        ...BAN_HIT_EXAMPLE,
        issued_at: "2026-11-21T10:00:00.000Z",
        expires_at: null,
        appealable: true,
      },
    ],
  },
);

export const BlacklistEntryPage = t.Object(
  {
    data: t.Array(BlacklistEntry),
    next_cursor: t.Nullable(t.String({ description: "Opaque cursor of the next page; null on the last page." })),
    has_more: t.Boolean(),
  },
  { $id: "BlacklistEntryPage", description: "A page of active, confirmed entries in issue order." },
);

export const ListQuery = t.Object({
  cursor: t.Optional(t.String({ description: "`next_cursor` of the previous page." })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 50, description: "Page size, 1-100." })),
  vertical: t.Optional(Vertical),
  since: t.Optional(DateTime("Only entries issued strictly after this instant.")),
});

export const CheckQuery = t.Object({
  provider: Provider,
  // No minLength: an empty `id=` is a missing id, the seed's 400 (the service rejects it).
  id: t.String({ maxLength: 128, description: "Native user id on that platform.", examples: ["80351110224678912"] }),
  vertical: t.Optional(Vertical),
});

const HitSummary = t.Object(
  {
    id: t.Optional(t.String()),
    severity: Severity,
    scope: Scope,
    vertical: t.Optional(t.String()),
    reason_code: t.String(),
    summary: t.Nullable(t.String()),
    source: t.Optional(t.String({ description: "The followed instance this entry was applied from, by the name this instance gave it; absent for a local entry." })),
  },
  { $id: "CheckHit", description: "The hit that decided the answer." },
);

export const CheckResult = t.Object(
  {
    provider: t.String({ examples: ["discord"] }),
    id: t.String({ examples: ["80351110224678912"] }),
    banned: t.Boolean({ description: "True only for an active, confirmed entry of severity `ban`." }),
    checked_at: DateTime("When the answer was computed (UTC)."),
    high_risk: t.Optional(t.Boolean({ description: "A matching active entry is flagged high-risk." })),
    watchlist: t.Optional(t.Boolean({ description: "An unconfirmed external report matches; never a ban by itself." })),
    severity: t.Optional(Severity),
    scope: t.Optional(Scope),
    reason_code: t.Optional(t.String()),
    summary: t.Optional(t.Nullable(t.String())),
    appealable: t.Optional(t.Boolean()),
    entry: t.Optional(t.Nullable(HitSummary)),
  },
  {
    $id: "CheckResult",
    description: "Answer for one account. Fields after `checked_at` appear only on a hit.",
    examples: [
      {
        provider: "discord",
        id: "80351110224678912",
        banned: true,
        checked_at: "2026-11-21T10:00:00.000Z",
        severity: "ban",
        scope: "global",
        reason_code: "scam_trade",
        summary: "Took payment for a map and never delivered.",
        appealable: true,
        entry: BAN_HIT_EXAMPLE,
      },
      { provider: "discord", id: "80351110224678913", banned: false, checked_at: "2026-11-21T10:00:00.000Z" },
    ],
  },
);

const BatchAccount = t.Object(
  {
    provider: t.Optional(t.Nullable(t.String({ description: "One of the providers of the single check.", examples: ["roblox"] }))),
    id: t.Optional(t.Nullable(t.String({ description: "Native user id.", examples: ["1234567"] }))),
  },
  {
    $id: "BatchAccount",
    additionalProperties: t.Never(),
    description: "A row lacking provider or id, or naming an unknown provider, answers `error: invalid_account`.",
  },
);

export const CheckBatchBody = t.Object(
  {
    accounts: t.Array(BatchAccount, { minItems: 1, maxItems: 50, description: "1-50 accounts, answered in this order." }),
    vertical: t.Optional(Vertical),
  },
  { $id: "CheckBatchBody", additionalProperties: t.Never() },
);

export const BatchBody = t.Object(
  {
    items: t.Array(BatchAccount, { minItems: 1, maxItems: 50, description: "1-50 accounts, answered in this order." }),
    vertical: t.Optional(Vertical),
  },
  { $id: "BatchBody", additionalProperties: t.Never() },
);

export const BatchCheckResult = t.Object(
  {
    provider: t.Nullable(t.String()),
    id: t.Nullable(t.String()),
    banned: t.Boolean(),
    high_risk: t.Optional(t.Boolean({ description: "Present and true when flagged high-risk." })),
    watchlist: t.Optional(t.Boolean({ description: "Present and true when on a watchlist." })),
    severity: t.Optional(Severity),
    scope: t.Optional(Scope),
    reason_code: t.Optional(t.String()),
    error: t.Optional(t.String({ description: "Why this row could not be checked.", examples: ["invalid_account"] })),
  },
  {
    $id: "BatchCheckResult",
    description: "One row of a batch answer, in input order.",
    examples: [
      { provider: "roblox", id: "1234567", banned: false, severity: "warn", scope: "global", reason_code: "spam" },
      { provider: "discord", id: "80351110224678912", banned: false, watchlist: true },
      { provider: null, id: "42", banned: false, error: "invalid_account" },
    ],
  },
);

export const BatchResponse = t.Object(
  {
    results: t.Array(BatchCheckResult),
    checked_at: DateTime("When the answers were computed (UTC)."),
  },
  { $id: "BatchResponse", description: "One answer per account, in input order." },
);

export const EntryParams = t.Object({ id: t.String({ maxLength: 64, description: "Entry id." }) });

export const ChangesQuery = t.Object({
  cursor: t.Optional(t.String({ description: "`next_cursor` of the previous page." })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, default: 100 })),
});

export const ChangesPage = t.Object(
  {
    data: t.Array(
      t.Object(
        {
          seq: JsonInteger({ description: "Strictly increasing position in the feed.", examples: [42] }),
          type: literals(["added", "overturned", "expired"] as const),
          entry_id: t.String(),
          at: DateTime("When the change happened."),
          entry: t.Optional(BlacklistEntry),
        },
        { $id: "BlacklistChange", description: "One change: an entry added, overturned or expired." },
      ),
    ),
    next_cursor: t.Nullable(
      t.String({ description: "Where to resume. Unlike the list, the feed always returns one: poll it later for new changes." }),
    ),
    has_more: t.Boolean({ description: "More changes are available right now." }),
  },
  { $id: "ChangesPage", description: "A page of the change feed, in `seq` order." },
);

/** Fields of a new entry: the partner write body and the `entry` line of the import format. */
export const EntryFields = {
  provider: literals(PROVIDERS, { description: "Platform of the account.", examples: ["discord"] }),
  provider_user_id: t.String({ minLength: 1, maxLength: 128, description: "Native user id.", examples: ["80351110224678912"] }),
  username: t.Optional(t.Nullable(t.String({ maxLength: 128, description: "Username on that platform, for search." }))),
  severity: Severity,
  scope: t.Optional(Scope),
  vertical: t.Optional(Vertical),
  reason_code: t.String({ minLength: 1, maxLength: 64, pattern: "^[a-z0-9_.-]+$", examples: ["scam_trade"] }),
  summary: t.Optional(t.Nullable(t.String({ maxLength: 500 }))),
  issued_at: t.Optional(DateTime("Defaults to now.")),
  expires_at: t.Optional(t.Nullable(DateTime("Null or absent means permanent.", "2027-11-21T10:00:00.000Z"))),
  appealable: t.Optional(t.Boolean({ default: true })),
  high_risk: t.Optional(t.Boolean({ default: false })),
  watchlist: t.Optional(t.Boolean({ default: false, description: "An unconfirmed external report: never makes `banned` true." })),
  creator: t.Optional(t.Nullable(t.String({ maxLength: 33, description: "Handle of the creator this entry names." }))),
  evidence: t.Optional(t.Nullable(t.String({ maxLength: 4000, description: "Private notes; never returned by reads." }))),
};

export const NewEntryBody = t.Object(EntryFields, { $id: "NewEntryBody", additionalProperties: t.Never() });

export const WrittenEntry = t.Composite([
  BlacklistEntry,
  t.Object({
    provider: t.String(),
    provider_user_id: t.String(),
    username: t.Nullable(t.String()),
  }),
], { $id: "WrittenEntry", description: "The entry as written, with its subject." });

/** Optional: an overturn needs no body. */
export const OverturnBody = t.Optional(
  t.Object(
    { reason: t.Optional(t.String({ maxLength: 500, description: "Why the entry was overturned (kept private)." })) },
    { $id: "OverturnBody", additionalProperties: t.Never() },
  ),
);

export const OverturnResult = t.Object(
  {
    id: t.String(),
    status: t.Literal("overturned"),
    overturned_at: DateTime("When it was overturned."),
  },
  { $id: "OverturnResult", description: "The entry, now overturned." },
);

/** An entry as staff see it (a case, an appeal): its subject, status, private note and what it replaced. */
export const StaffEntry = t.Object(
  {
    id: t.String(),
    provider: t.String(),
    provider_user_id: t.String(),
    username: t.Nullable(t.String()),
    creator: t.Nullable(t.String({ description: "The creator it names, by handle." })),
    severity: Severity,
    scope: t.String(),
    vertical: t.String(),
    reason_code: t.String(),
    summary: t.Nullable(t.String()),
    private_note: t.Nullable(t.String({ description: "Staff-only notes of the entry." })),
    issued_at: DateTime("When it was issued."),
    expires_at: t.Nullable(DateTime("When it lapses.")),
    appealable: t.Boolean(),
    high_risk: t.Boolean(),
    watchlist: t.Boolean(),
    status: literals(ENTRY_STATUSES, { description: "`active`, `overturned` or `expired`.", examples: ["active"] }),
    supersedes: t.Nullable(t.String({ description: "The entry this one replaced after an appeal." })),
  },
  { $id: "StaffEntry", description: "An entry as staff see it: subject, status and private note included. Staff-only." },
);
