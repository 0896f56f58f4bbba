// The database a runtime runs on: the embedded SQLite file, or PostgreSQL for several instances
// serving one database. Module stores take a `Database` and pick their implementation by
// `dialect`; services never look at it.
import { openStore, type Store } from "./client";
import { isPostgresUrl } from "./location";
import type { MigrationPolicy } from "./migrations";
import { openPostgres, type PostgresDatabase } from "./postgres";

export type Database = Store | PostgresDatabase;
export type Dialect = Database["dialect"];

/** How either database is opened. */
export interface OpenOptions {
  /** Create the file when it is missing (default true); otherwise a missing file is a StoreOpenError. */
  create?: boolean;
  /** What to do with migrations this build has and the database lacks (default "apply"): see MigrationPolicy. */
  migrations?: MigrationPolicy;
  readonly?: boolean;
  /**
   * Temporary storage in files (SQLite's own default) instead of memory: for the CLI import,
   * whose index builds then sort in runs on several threads (`sortInRunsWhileBulk`). A server
   * keeps it in memory and needs no writable temporary directory.
   */
  temporaryFiles?: boolean;
  /**
   * PostgreSQL: connections in the pool (default 10, a server's). Bun's client opens every one at
   * the first query, each a new server process, so a command that runs a few queries asks for fewer.
   */
  connections?: number;
}

export interface OpenedDatabase {
  database: Database;
  /** Migrations applied while opening (PostgreSQL reports them; SQLite's `migrate` counts its own). */
  applied: number;
}

/** Opens `location`: a `postgres://` URL, or the path of a SQLite file. */
export async function openDatabase(location: string, options: OpenOptions = {}): Promise<OpenedDatabase> {
  if (isPostgresUrl(location)) return openPostgres(location, options);
  return { database: openStore(location, options), applied: 0 };
}
