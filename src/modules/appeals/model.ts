// Schemas of appeals (docs/moderation.md, "Appeals"): filing one (a bot for the account it talks
// to, or a signed-in creator), an appeal as whoever filed it reads it, the staff queue and view,
// and a moderator's decision.
import { t } from "elysia";
import { APPEAL_OUTCOMES, APPEAL_STATUSES, APPELLANT_KINDS, SEVERITIES } from "../../domain";
import { DateTime, literals } from "../../http/model";
import { BlacklistEntry, EntryFields, Severity, StaffEntry } from "../blacklist/model";

/** Longest statement an appellant may write, and longest public note of a decision. */
export const MAX_STATEMENT = 4000;
export const MAX_NOTE = 2000;

const AppealId = t.String({ description: "The appeal's id.", examples: ["apl_01kdvdna009aqnt2ae7ejrkvaj"] });
const EntryId = t.String({ minLength: 1, maxLength: 64, description: "The entry appealed against.", examples: ["bl_01jd5x8q3m7k2c9v4n6p8r0s1t"] });
const Statement = t.String({
  minLength: 1,
  maxLength: MAX_STATEMENT,
  description: `What the listed person says, 1-${MAX_STATEMENT} characters. Only staff read it.`,
  examples: ["I delivered the map on the 3rd; the buyer confirmed in DMs."],
});

export const AppealOutcome = literals(APPEAL_OUTCOMES, {
  description: "`upheld`: the entry stays; `downgraded`: it was replaced by an entry of lower severity; `removed`: it was overturned.",
});

export const Appeal = t.Object(
  {
    id: AppealId,
    entry_id: t.String({ description: "The entry appealed against.", examples: ["bl_01jd5x8q3m7k2c9v4n6p8r0s1t"] }),
    status: literals(APPEAL_STATUSES, { description: "`open` until a moderator decides it." }),
    outcome: t.Optional(AppealOutcome),
    note: t.Optional(t.String({ description: "The decision's public note, for the appellant.", examples: ["The buyer confirmed delivery."] })),
    superseded_by: t.Optional(t.String({ description: "A downgrade's new entry, which `supersedes` the one appealed.", examples: ["bl_01jd5x8q3m7k2c9v4n6p8r0s2u"] })),
    created_at: DateTime("When it was filed."),
    decided_at: t.Optional(DateTime("When it was decided.")),
  },
  {
    $id: "Appeal",
    description: "An appeal as whoever filed it reads it: its status and the public note of its decision; never who reported or staff notes.",
    examples: [{ id: "apl_01kdvdna009aqnt2ae7ejrkvaj", entry_id: "bl_01jd5x8q3m7k2c9v4n6p8r0s1t", status: "open", created_at: "2026-11-21T10:00:00.000Z" }],
  },
);

export const AppealPage = t.Object(
  {
    data: t.Array(Appeal),
    next_cursor: t.Nullable(t.String({ description: "Pass as `cursor` for older appeals; null on the last page." })),
    has_more: t.Boolean(),
  },
  { $id: "AppealPage", description: "Your appeals, newest first." },
);

export const PartnerAppealBody = t.Object(
  {
    entry_id: EntryId,
    provider: EntryFields.provider,
    provider_user_id: t.String({ minLength: 1, maxLength: 128, description: "The platform account the bot talks to; the entry must name it.", examples: ["80351110224678912"] }),
    statement: Statement,
  },
  { $id: "PartnerAppealBody", additionalProperties: t.Never() },
);

export const MeAppealBody = t.Object({ entry_id: EntryId, statement: Statement }, { $id: "MeAppealBody", additionalProperties: t.Never() });

export const AppealParams = t.Object({ id: t.String({ maxLength: 64, description: "Appeal id." }) });

export const MyAppealsQuery = t.Object({
  cursor: t.Optional(t.String({ maxLength: 512, description: "`next_cursor` of the previous page." })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20, description: "Appeals per page, 1-100." })),
});

export const AppealQueueQuery = t.Object({
  status: t.Optional(literals(APPEAL_STATUSES, { description: "`open` (the default, oldest first) or `decided` (newest decided first)." })),
  cursor: t.Optional(t.String({ maxLength: 512, description: "`next_cursor` of the previous page." })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 50, description: "Appeals per page, 1-100." })),
});

export const StaffAppeal = t.Object(
  {
    id: AppealId,
    entry_id: t.String(),
    status: literals(APPEAL_STATUSES),
    outcome: t.Nullable(AppealOutcome),
    note: t.Nullable(t.String()),
    severity: t.Nullable(Severity),
    superseded_by: t.Nullable(t.String()),
    statement: t.String(),
    filed_by: t.Object(
      {
        kind: literals(APPELLANT_KINDS, { description: "`key`: a bot for the account it talks to; `creator`: a signed-in creator." }),
        id: t.String({ description: "The key's account id, or the creator's id." }),
        key_id: t.Nullable(t.String({ description: "The key that relayed it." })),
        handle: t.Nullable(t.String({ description: "The creator's handle." })),
        provider: t.Nullable(t.String({ description: "The platform account a bot filed for." })),
        provider_user_id: t.Nullable(t.String()),
      },
      { description: "Who filed it." },
    ),
    decided_by: t.Nullable(t.String({ description: "Who decided, `kind:id`." })),
    created_at: DateTime("When it was filed."),
    decided_at: t.Nullable(DateTime("When it was decided.")),
    entry: t.Nullable(StaffEntry),
  },
  { $id: "StaffAppeal", description: "An appeal as staff see it: the statement, who filed it and the entry." },
);

export const StaffAppealPage = t.Object(
  {
    data: t.Array(StaffAppeal),
    next_cursor: t.Nullable(t.String({ description: "Pass as `cursor` for the next page; null on the last page." })),
    has_more: t.Boolean(),
  },
  { $id: "StaffAppealPage", description: "Appeals of one status." },
);

export const DecideAppealBody = t.Object(
  {
    outcome: AppealOutcome,
    note: t.String({ minLength: 1, maxLength: MAX_NOTE, description: `The public note the appellant reads, 1-${MAX_NOTE} characters.` }),
    severity: t.Optional(literals(SEVERITIES, { description: "For `downgraded` (required there): the new severity, lower than the entry's (ban > restrict > warn)." })),
  },
  { $id: "DecideAppealBody", additionalProperties: t.Never() },
);

export const MyEntries = t.Object(
  {
    data: t.Array(
      t.Object({
        entry: BlacklistEntry,
        open_appeal: t.Nullable(t.String({ description: "The entry's open appeal, if any (yours or one a bot filed for your account)." })),
      }),
      { description: "Newest first." },
    ),
  },
  { $id: "MyEntries", description: "Active entries naming you, directly or through any of your linked accounts: what you may appeal." },
);
