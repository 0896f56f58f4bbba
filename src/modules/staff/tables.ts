// The staff module's table, `staff`, SQLite first and then PostgreSQL, side by side so a column
// changes in both at once (test/db/dialects.test.ts compares them). Times are epoch milliseconds:
// integer in SQLite, bigint in PostgreSQL. src/db/schema.ts and schema.pg.ts re-export it.
import * as pg from "drizzle-orm/pg-core";
import * as sqlite from "drizzle-orm/sqlite-core";
import { STAFF_ROLES } from "../../domain";
import { creators, creatorsPg } from "../creators/tables";

// SQLite

/** Creators the operator made staff, one role each (docs/moderation.md, "Staff"). */
export const staff = sqlite.sqliteTable("staff", {
  creatorId: sqlite.text("creator_id")
    .primaryKey()
    .references(() => creators.id),
  role: sqlite.text("role", { enum: STAFF_ROLES }).notNull(),
  grantedAt: sqlite.integer("granted_at").notNull(),
  /** The audit actor that granted it, `kind:id`. */
  grantedBy: sqlite.text("granted_by").notNull(),
});

// PostgreSQL

/** Creators the operator made staff, one role each (docs/moderation.md, "Staff"). */
export const staffPg = pg.pgTable("staff", {
  creatorId: pg.text("creator_id")
    .primaryKey()
    .references(() => creatorsPg.id),
  role: pg.text("role", { enum: STAFF_ROLES }).notNull(),
  grantedAt: pg.bigint("granted_at", { mode: "number" }).notNull(),
  /** The audit actor that granted it, `kind:id`. */
  grantedBy: pg.text("granted_by").notNull(),
});
