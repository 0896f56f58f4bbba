// Which database the suite runs on: SQLite files by default, PostgreSQL when
// TRUSTLIST_TEST_DB=postgres (scripts/with-postgres.sh starts a throwaway cluster and sets it).
// Each test app gets a database of its own: a SQLite file in its temporary folder, or a new
// PostgreSQL database cloned from a template migrated once per test process.
import { join } from "node:path";
import { SQL } from "bun";
import type { OpenOptions } from "../src/db/client";
import { type Database, openDatabase } from "../src/db/database";

export const backend: "sqlite" | "postgres" = process.env.TRUSTLIST_TEST_DB === "postgres" ? "postgres" : "sqlite";

const serverUrl = process.env.TRUSTLIST_TEST_POSTGRES_URL ?? "";
if (backend === "postgres" && !serverUrl) throw new Error("TRUSTLIST_TEST_DB=postgres needs TRUSTLIST_TEST_POSTGRES_URL (scripts/with-postgres.sh sets both)");

const TEMPLATE = "trustlist_template";
let admin: SQL | null = null;
let template: Promise<void> | null = null;
let counter = 0;

function urlOf(name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function adminConnection(): SQL {
  admin ??= new SQL(serverUrl, { max: 2 });
  return admin;
}

/** The template every test database is cloned from: migrated once per process. */
function migratedTemplate(): Promise<void> {
  template ??= (async () => {
    const sql = adminConnection();
    await sql.unsafe(`DROP DATABASE IF EXISTS ${TEMPLATE} WITH (FORCE)`);
    await sql.unsafe(`CREATE DATABASE ${TEMPLATE}`);
    const { database } = await openDatabase(urlOf(TEMPLATE), { migrations: "apply" });
    await database.close();
  })();
  return template;
}

/**
 * Where a test app's database lives: a file path in `dir` for SQLite, or the URL of a new, empty
 * PostgreSQL database (migrated when `migrated`, the default).
 */
export async function freshDatabaseLocation(dir: string, options: { migrated?: boolean } = {}): Promise<string> {
  if (backend === "sqlite") return join(dir, "trustlist.db");
  const name = `t_${process.pid}_${++counter}`;
  const sql = adminConnection();
  if (options.migrated === false) {
    await sql.unsafe(`CREATE DATABASE ${name}`);
  } else {
    await migratedTemplate();
    await sql.unsafe(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`);
  }
  return urlOf(name);
}

/** Opens a fresh database for a test (see freshDatabaseLocation). */
export async function freshDatabase(dir: string, options: OpenOptions = {}): Promise<{ database: Database; location: string }> {
  const location = await freshDatabaseLocation(dir);
  const { database } = await openDatabase(location, options);
  return { database, location };
}

/** Drops a PostgreSQL test database (a SQLite one goes with its folder). */
export async function dropDatabase(location: string): Promise<void> {
  if (backend !== "postgres") return;
  const name = new URL(location).pathname.slice(1);
  await adminConnection().unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
