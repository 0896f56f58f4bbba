// The audit module's table, `audit_events`, SQLite first and then PostgreSQL, side by side so a
// column changes in both at once (test/db/dialects.test.ts compares them). Times are epoch
// milliseconds: integer in SQLite, bigint in PostgreSQL. src/db/schema.ts and schema.pg.ts
// re-export it for drizzle-kit.
import { sql } from "drizzle-orm";
import * as pg from "drizzle-orm/pg-core";
import * as sqlite from "drizzle-orm/sqlite-core";
import { AUDIT_ACTOR_KINDS } from "../../domain";

// SQLite

/**
 * The append-only audit log (docs/moderation.md, "The audit log"): one row per change to an entry,
 * case, report, appeal or staff role, written in the transaction of the change. Nothing updates or
 * deletes a row. `seq` orders it (ids from several processes need not sort); each filter of
 * `GET /v1/admin/audit` reads its own index newest first.
 */
export const auditEvents = sqlite.sqliteTable(
  "audit_events",
  {
    seq: sqlite.integer("seq").primaryKey({ autoIncrement: true }),
    id: sqlite.text("id").notNull().unique(),
    at: sqlite.integer("at").notNull(),
    actorKind: sqlite.text("actor_kind", { enum: AUDIT_ACTOR_KINDS }).notNull(),
    actorId: sqlite.text("actor_id").notNull(),
    /** What happened, `<thing>.<verb>`: `entry.added`, `case.decided`, `appeal.filed`, … */
    action: sqlite.text("action").notNull(),
    entryId: sqlite.text("entry_id"),
    caseId: sqlite.text("case_id"),
    appealId: sqlite.text("appeal_id"),
    /** `provider:id` of a platform account, or `creator:handle`. */
    subject: sqlite.text("subject"),
    /** JSON object: what the action changed, in the words of the API. */
    details: sqlite.text("details").notNull(),
  },
  (table) => [
    sqlite.index("audit_entry_idx").on(table.entryId, table.seq).where(sql`${table.entryId} IS NOT NULL`),
    sqlite.index("audit_case_idx").on(table.caseId, table.seq).where(sql`${table.caseId} IS NOT NULL`),
    sqlite.index("audit_appeal_idx").on(table.appealId, table.seq).where(sql`${table.appealId} IS NOT NULL`),
    sqlite.index("audit_subject_idx").on(table.subject, table.seq).where(sql`${table.subject} IS NOT NULL`),
    sqlite.index("audit_actor_idx").on(table.actorKind, table.actorId, table.seq),
    sqlite.index("audit_action_idx").on(table.action, table.seq),
  ],
);

// PostgreSQL

/** The append-only audit log (see the SQLite twin above). */
export const auditEventsPg = pg.pgTable(
  "audit_events",
  {
    seq: pg.bigint("seq", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    id: pg.text("id").notNull().unique(),
    at: pg.bigint("at", { mode: "number" }).notNull(),
    actorKind: pg.text("actor_kind", { enum: AUDIT_ACTOR_KINDS }).notNull(),
    actorId: pg.text("actor_id").notNull(),
    /** What happened, `<thing>.<verb>`: `entry.added`, `case.decided`, `appeal.filed`, … */
    action: pg.text("action").notNull(),
    entryId: pg.text("entry_id"),
    caseId: pg.text("case_id"),
    appealId: pg.text("appeal_id"),
    /** `provider:id` of a platform account, or `creator:handle`. */
    subject: pg.text("subject"),
    /** JSON object: what the action changed, in the words of the API. */
    details: pg.text("details").notNull(),
  },
  (table) => [
    pg.index("audit_entry_idx").on(table.entryId, table.seq).where(sql`${table.entryId} IS NOT NULL`),
    pg.index("audit_case_idx").on(table.caseId, table.seq).where(sql`${table.caseId} IS NOT NULL`),
    pg.index("audit_appeal_idx").on(table.appealId, table.seq).where(sql`${table.appealId} IS NOT NULL`),
    pg.index("audit_subject_idx").on(table.subject, table.seq).where(sql`${table.subject} IS NOT NULL`),
    pg.index("audit_actor_idx").on(table.actorKind, table.actorId, table.seq),
    pg.index("audit_action_idx").on(table.action, table.seq),
  ],
);
