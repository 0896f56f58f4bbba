// The sessions module's tables, SQLite first and then PostgreSQL, side by side so a column changes in
// both at once (test/db/dialects.test.ts compares them). Times are epoch milliseconds: integer in
// SQLite, bigint in PostgreSQL. src/db/schema.ts and schema.pg.ts re-export them for drizzle-kit.
import * as pg from "drizzle-orm/pg-core";
import * as sqlite from "drizzle-orm/sqlite-core";
import { creators, creatorsPg } from "../creators/tables";

// SQLite

/**
 * One-time sign-in links (docs/api.md, "Sign-in, courses and tripwires"): only the SHA-256 of the token is kept; a link is used
 * once (`used_at`) and lapses after 15 minutes.
 */
export const loginLinks = sqlite.sqliteTable(
  "login_links",
  {
    tokenHash: sqlite.text("token_hash").primaryKey(),
    creatorId: sqlite.text("creator_id")
      .notNull()
      .references(() => creators.id),
    createdAt: sqlite.integer("created_at").notNull(),
    expiresAt: sqlite.integer("expires_at").notNull(),
    usedAt: sqlite.integer("used_at"),
  },
  (table) => [sqlite.index("login_links_expires_idx").on(table.expiresAt)],
);

/** Signed-in web sessions: the SHA-256 of the `session` cookie's value, never the value itself. */
export const sessions = sqlite.sqliteTable(
  "sessions",
  {
    tokenHash: sqlite.text("token_hash").primaryKey(),
    creatorId: sqlite.text("creator_id")
      .notNull()
      .references(() => creators.id),
    createdAt: sqlite.integer("created_at").notNull(),
    expiresAt: sqlite.integer("expires_at").notNull(),
  },
  (table) => [sqlite.index("sessions_expires_idx").on(table.expiresAt), sqlite.index("sessions_creator_idx").on(table.creatorId)],
);

// PostgreSQL

/**
 * One-time sign-in links (docs/api.md, "Sign-in, courses and tripwires"): only the SHA-256 of the token is kept; a link is used
 * once (`used_at`) and lapses after 15 minutes.
 */
export const loginLinksPg = pg.pgTable(
  "login_links",
  {
    tokenHash: pg.text("token_hash").primaryKey(),
    creatorId: pg.text("creator_id")
      .notNull()
      .references(() => creatorsPg.id),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
    expiresAt: pg.bigint("expires_at", { mode: "number" }).notNull(),
    usedAt: pg.bigint("used_at", { mode: "number" }),
  },
  (table) => [pg.index("login_links_expires_idx").on(table.expiresAt)],
);

/** Signed-in web sessions: the SHA-256 of the `session` cookie's value, never the value itself. */
export const sessionsPg = pg.pgTable(
  "sessions",
  {
    tokenHash: pg.text("token_hash").primaryKey(),
    creatorId: pg.text("creator_id")
      .notNull()
      .references(() => creatorsPg.id),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
    expiresAt: pg.bigint("expires_at", { mode: "number" }).notNull(),
  },
  (table) => [pg.index("sessions_expires_idx").on(table.expiresAt), pg.index("sessions_creator_idx").on(table.creatorId)],
);
