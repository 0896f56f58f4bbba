// Schemas of the audit log (docs/moderation.md, "The audit log"): an event as the audit routes
// answer it, who acted, and the filters of `GET /v1/admin/audit`.
import { t } from "elysia";
import { AUDIT_ACTOR_KINDS } from "../../domain";
import { DateTime, literals } from "../../http/model";

export const AuditActor = t.Object(
  {
    kind: literals(AUDIT_ACTOR_KINDS, { description: "Who acted: a staff member, an API key, the operator's CLI, a followed source, or a job." }),
    id: t.String({ description: "A staff member's handle, a key id, the CLI's user, a source's id, or a job's name.", examples: ["alicemod"] }),
  },
  { $id: "AuditActor", description: "Who made a change." },
);

export const AuditEvent = t.Object(
  {
    id: t.String({ description: "The event's id.", examples: ["aud_01kdvdna009aqnt2ae7ejrkvaj"] }),
    at: DateTime("When the change committed."),
    actor: AuditActor,
    action: t.String({ description: "What happened, `<thing>.<verb>`.", examples: ["entry.added"] }),
    entry_id: t.Optional(t.String({ examples: ["bl_01kdvdna009aqnt2ae7ejrkvaj"] })),
    case_id: t.Optional(t.String({ examples: ["case_01kdvdna009aqnt2ae7ejrkvaj"] })),
    appeal_id: t.Optional(t.String({ examples: ["apl_01kdvdna009aqnt2ae7ejrkvaj"] })),
    subject: t.Optional(t.String({ description: "`provider:id` of a platform account, or `creator:handle`.", examples: ["discord:80351110224678912"] })),
    details: t.Record(t.String(), t.Unknown(), { description: "What the action changed, in the API's words." }),
  },
  { $id: "AuditEvent", description: "One change, as the audit log recorded it. Staff-only: it may name reporters and private notes." },
);

export const AuditPage = t.Object(
  {
    data: t.Array(AuditEvent),
    next_cursor: t.Nullable(t.String({ description: "Pass as `cursor` for older events; null on the last page." })),
    has_more: t.Boolean(),
  },
  { $id: "AuditPage", description: "Audit events, newest first." },
);

export const AuditQuery = t.Object({
  entry: t.Optional(t.String({ maxLength: 64, description: "Only events about this entry." })),
  subject: t.Optional(t.String({ maxLength: 200, description: "Only events about this subject: `provider:id` or `creator:handle`." })),
  actor: t.Optional(t.String({ maxLength: 200, description: "Only events by this actor, `kind:id` (`staff:alicemod`, `key:key_…`, `cli:root`, `job:expiry`)." })),
  action: t.Optional(t.String({ maxLength: 64, description: "Only events of this action (`entry.added`)." })),
  cursor: t.Optional(t.String({ maxLength: 512, description: "`next_cursor` of the previous page." })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 200, default: 50, description: "Events per page, 1-200." })),
});

export type Actor = typeof AuditActor.static;
