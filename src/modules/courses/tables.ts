// The courses module's tables, SQLite first and then PostgreSQL, side by side so a column changes in
// both at once (test/db/dialects.test.ts compares them). Times are epoch milliseconds: integer in
// SQLite, bigint in PostgreSQL. src/db/schema.ts and schema.pg.ts re-export them for drizzle-kit.
import * as pg from "drizzle-orm/pg-core";
import * as sqlite from "drizzle-orm/sqlite-core";
import { creators, creatorsPg } from "../creators/tables";

// SQLite

/** A creator's best attempt at one course; `passed_at` stays set once a pass is recorded. */
export const courseCompletions = sqlite.sqliteTable(
  "course_completions",
  {
    creatorId: sqlite.text("creator_id")
      .notNull()
      .references(() => creators.id),
    slug: sqlite.text("slug").notNull(),
    bestScore: sqlite.integer("best_score").notNull(),
    attempts: sqlite.integer("attempts").notNull(),
    passedAt: sqlite.integer("passed_at"),
    updatedAt: sqlite.integer("updated_at").notNull(),
  },
  (table) => [sqlite.primaryKey({ columns: [table.creatorId, table.slug] })],
);

// PostgreSQL

/** A creator's best attempt at one course; `passed_at` stays set once a pass is recorded. */
export const courseCompletionsPg = pg.pgTable(
  "course_completions",
  {
    creatorId: pg.text("creator_id")
      .notNull()
      .references(() => creatorsPg.id),
    slug: pg.text("slug").notNull(),
    bestScore: pg.integer("best_score").notNull(),
    attempts: pg.integer("attempts").notNull(),
    passedAt: pg.bigint("passed_at", { mode: "number" }),
    updatedAt: pg.bigint("updated_at", { mode: "number" }).notNull(),
  },
  (table) => [pg.primaryKey({ columns: [table.creatorId, table.slug] })],
);
