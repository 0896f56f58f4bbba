// What both databases do about the schema when they open: read the migrations a database records
// against the ones this build embeds, refuse a schema newer than the build, apply the pending ones
// or refuse an older schema (by the caller's policy), and hand drizzle's migrators the embedded
// migrations. Each dialect reads its own journal table and runs the migrator (client.ts, postgres.ts).
import { StoreOpenError } from "./errors";
import { type EmbeddedMigration, embeddedMigrations } from "./migrations.generated";

/**
 * What to do with migrations this build has and the database lacks: "apply" them, "require" none
 * to be pending, "apply-if-empty" only to a database with no schema yet, or "leave" the schema as
 * it is. A database newer than this build is refused in every case.
 */
export type MigrationPolicy = "apply" | "require" | "apply-if-empty" | "leave";

export interface SchemaVersion {
  /** Migrations recorded in the database. */
  applied: number;
  /** When the newest recorded migration was made (drizzle's folder timestamp), or null. */
  latest: number | null;
}

/** A build's schema, named the way an operator compares it with a database's. */
export function describeBuildSchema(migrations: EmbeddedMigration[] = embeddedMigrations): string {
  const last = migrations.at(-1)!;
  return `${migrations.length} migrations (latest ${last.tag}, ${new Date(last.when).toISOString()})`;
}

/**
 * What opening does about the schema, on either database: a schema newer than `build` is refused;
 * pending migrations are applied ("apply") or refused as an older schema, by `policy`. `empty`
 * says whether a database with no migrations recorded holds no tables either (apply-if-empty).
 */
export function planMigrations(found: SchemaVersion, build: EmbeddedMigration[], location: string, policy: MigrationPolicy, empty: boolean): "apply" | "none" {
  if (found.applied > build.length || (found.latest !== null && found.latest > build.at(-1)!.when)) {
    const theirs = `${found.applied} migrations (latest made ${found.latest === null ? "?" : new Date(found.latest).toISOString()})`;
    throw new StoreOpenError(
      "newer",
      location,
      `${location} has a newer schema than this trustlist: the database has ${theirs}, this build knows ${describeBuildSchema(build)}; use a newer trustlist binary`,
    );
  }
  if (found.applied === build.length || policy === "leave") return "none";
  if (policy === "apply" || (policy === "apply-if-empty" && found.applied === 0 && empty)) return "apply";
  throw new StoreOpenError(
    "older",
    location,
    `${location} has an older schema (${found.applied} of ${build.length} migrations, this build knows ${describeBuildSchema(build)}); run 'trustlist migrate --db ${location}' first`,
  );
}

/** Embedded migrations in the form drizzle's migrators (SQLite's and PostgreSQL's) take. */
export function drizzleMigrations(migrations: EmbeddedMigration[]) {
  return migrations.map((m) => ({
    sql: m.sql.split("--> statement-breakpoint"),
    bps: m.breakpoints,
    folderMillis: m.when,
    hash: new Bun.CryptoHasher("sha256").update(m.sql).digest("hex"),
  }));
}
