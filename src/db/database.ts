// The database a runtime runs on: the embedded SQLite file, or PostgreSQL for several instances
// (SPEC section 10). Module stores take a `Database` and pick their implementation by `dialect`;
// services never look at it.
import { type OpenOptions, openStore, type Store } from "./client";
import { isPostgresUrl } from "./location";
import { openPostgres, type PostgresDatabase } from "./postgres";

export type Database = Store | PostgresDatabase;
export type Dialect = Database["dialect"];

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
