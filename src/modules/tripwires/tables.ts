// The tripwires module's tables, SQLite first and then PostgreSQL, side by side so a column changes in
// both at once (test/db/dialects.test.ts compares them). Times are epoch milliseconds: integer in
// SQLite, bigint in PostgreSQL. src/db/schema.ts and schema.pg.ts re-export them for drizzle-kit.
import * as pg from "drizzle-orm/pg-core";
import * as sqlite from "drizzle-orm/sqlite-core";
import { TRIPWIRE_TARGETS } from "../../domain";
import { creators, creatorsPg } from "../creators/tables";

// SQLite

/** A signed-in creator's watch on a handle or a Discord id; `triggers` is a comma-separated list. */
export const tripwires = sqlite.sqliteTable(
  "tripwires",
  {
    id: sqlite.text("id").primaryKey(),
    ownerId: sqlite.text("owner_id")
      .notNull()
      .references(() => creators.id),
    target: sqlite.text("target", { enum: TRIPWIRE_TARGETS }).notNull(),
    watched: sqlite.text("watched").notNull(),
    triggers: sqlite.text("triggers").notNull(),
    trips: sqlite.integer("trips").notNull().default(0),
    lastTrippedAt: sqlite.integer("last_tripped_at"),
    createdAt: sqlite.integer("created_at").notNull(),
  },
  (table) => [sqlite.index("tripwires_owner_idx").on(table.ownerId, table.createdAt), sqlite.index("tripwires_watched_idx").on(table.target, table.watched)],
);

/** Where a creator's tripwire alerts go. */
export const tripwirePreferences = sqlite.sqliteTable("tripwire_preferences", {
  ownerId: sqlite.text("owner_id")
    .primaryKey()
    .references(() => creators.id),
  discordWebhookUrl: sqlite.text("discord_webhook_url"),
  email: sqlite.text("email"),
  updatedAt: sqlite.integer("updated_at").notNull(),
});

// PostgreSQL

/** A signed-in creator's watch on a handle or a Discord id; `triggers` is a comma-separated list. */
export const tripwiresPg = pg.pgTable(
  "tripwires",
  {
    id: pg.text("id").primaryKey(),
    ownerId: pg.text("owner_id")
      .notNull()
      .references(() => creatorsPg.id),
    target: pg.text("target", { enum: TRIPWIRE_TARGETS }).notNull(),
    watched: pg.text("watched").notNull(),
    triggers: pg.text("triggers").notNull(),
    trips: pg.integer("trips").notNull().default(0),
    lastTrippedAt: pg.bigint("last_tripped_at", { mode: "number" }),
    createdAt: pg.bigint("created_at", { mode: "number" }).notNull(),
  },
  (table) => [pg.index("tripwires_owner_idx").on(table.ownerId, table.createdAt), pg.index("tripwires_watched_idx").on(table.target, table.watched)],
);

/** Where a creator's tripwire alerts go. */
export const tripwirePreferencesPg = pg.pgTable("tripwire_preferences", {
  ownerId: pg.text("owner_id")
    .primaryKey()
    .references(() => creatorsPg.id),
  discordWebhookUrl: pg.text("discord_webhook_url"),
  email: pg.text("email"),
  updatedAt: pg.bigint("updated_at", { mode: "number" }).notNull(),
});
