// Which database the suite runs on: SQLite files by default, PostgreSQL when
// TRUSTLIST_TEST_DB=postgres (scripts/with-postgres.sh starts a throwaway cluster and sets it).
// Each test app gets a database of its own: a SQLite file in its temporary folder, or a new
// PostgreSQL database; either is a copy of a template migrated once per test process.
import { afterAll, describe, test } from "bun:test";
import { Database as SqliteConnection } from "bun:sqlite";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { type Database, type OpenOptions, openDatabase } from "../src/db/database";
import { CHANGES_CHANNEL, MIN_POOL_SIZE } from "../src/db/postgres";
import { openStore } from "../src/db/client";

export const backend: "sqlite" | "postgres" = process.env.TRUSTLIST_TEST_DB === "postgres" ? "postgres" : "sqlite";

/** `test` for tests of SQLite's own behaviour (locks, WAL, its file): skipped on PostgreSQL. */
export const sqliteOnly = backend === "sqlite" ? test : test.skip;
/** `describe` likewise. */
export const describeSqliteOnly = backend === "sqlite" ? describe : describe.skip;

const serverUrl = process.env.TRUSTLIST_TEST_POSTGRES_URL ?? "";
if (backend === "postgres" && !serverUrl) throw new Error("TRUSTLIST_TEST_DB=postgres needs TRUSTLIST_TEST_POSTGRES_URL (scripts/with-postgres.sh sets both)");

// One template per test process, migrated by the first file that needs it. Under `bun test
// --parallel` each worker process has its own (none drops one another is cloning from), and the
// files a worker runs one after another each load this module afresh: the template is found by its
// name, which the parent process's id makes new for every run.
const TEMPLATE = `trustlist_template_${process.ppid}_${process.pid}`;
// Database names stay unique when a worker's next file starts counting again.
const RUN = `${process.pid}_${crypto.randomUUID().slice(0, 8)}`;
/**
 * A test app's PostgreSQL pool. Bun's client opens the whole pool at the first query, and on the
 * 2-core test machine each new server process took 23-28 ms (a fresh clone opened by a pool of 10
 * against 3: 286-326 ms against 126-131). The PostgreSQL pass took 680 s with 10 connections a test
 * app and a command, 529 s with 3, 389 s with 2 (against 429 with 3, the same day): the fewest a
 * server accepts, so a path that waits for a second connection while it holds one shows here.
 */
export const TEST_APP_CONNECTIONS = MIN_POOL_SIZE;
let admin: SQL | null = null;
let template: Promise<void> | null = null;
let counter = 0;

function urlOf(name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function adminConnection(): SQL {
  // Idle connections close themselves: each file a --parallel worker runs opens its own.
  admin ??= new SQL(serverUrl, { max: 2, idleTimeout: 5 });
  return admin;
}

/** The template every test database is cloned from: migrated once per process, then renamed into place. */
function migratedTemplate(): Promise<void> {
  template ??= (async () => {
    const sql = adminConnection();
    const [found] = await sql`SELECT 1 AS found FROM pg_database WHERE datname = ${TEMPLATE}`;
    if (found) return;
    const building = `${TEMPLATE}_building`;
    await sql.unsafe(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
    await sql.unsafe(`CREATE DATABASE ${building}`);
    const { database } = await openDatabase(urlOf(building), { migrations: "apply" });
    await database.close();
    await sql.unsafe(`ALTER DATABASE ${building} RENAME TO ${TEMPLATE}`);
  })();
  return template;
}

/**
 * Where a test app's database lives: a file path in `dir` for SQLite, or the URL of a new, empty
 * PostgreSQL database (migrated when `migrated`, the default).
 */
export async function freshDatabaseLocation(dir: string, options: { migrated?: boolean } = {}): Promise<string> {
  if (backend === "sqlite") {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, "trustlist.db");
    if (options.migrated !== false && !existsSync(path)) copyFileSync(migratedSqliteTemplate(), path);
    return path;
  }
  if (options.migrated === false) {
    const name = `t_${RUN}_${++counter}`;
    await adminConnection().unsafe(`CREATE DATABASE ${name}`);
    return urlOf(name);
  }
  // The next test's database is cloned while this one runs: a clone right after a drop waited
  // 400-500 ms here, most of a short test's time on PostgreSQL. The last spare goes with the
  // throwaway cluster (scripts/with-postgres.sh).
  const location = await (spare ?? cloneOfTemplate());
  spare = cloneOfTemplate();
  spare.catch(() => {});
  return location;
}

let spare: Promise<string> | null = null;
let sqliteTemplate: string | null = null;

/**
 * A SQLite file migrated once per process, which each test's file copies: migrating a new file
 * took 13-29 ms a test app, a copy well under one (2-core test machine).
 */
function migratedSqliteTemplate(): string {
  if (sqliteTemplate) return sqliteTemplate;
  const dir = mkdtempSync(join(tmpdir(), "trustlist-template-"));
  const path = join(dir, "template.db");
  // Closing the only connection checkpoints the WAL into the file and removes it: one file to copy.
  openStore(path).close();
  // At exit, not afterAll: registered inside a test, afterAll would run at that test's end.
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  sqliteTemplate = path;
  return path;
}

async function cloneOfTemplate(): Promise<string> {
  const name = `t_${RUN}_${++counter}`;
  await migratedTemplate();
  await adminConnection().unsafe(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`);
  return urlOf(name);
}

/** Opens a fresh database for a test (see freshDatabaseLocation). */
export async function freshDatabase(dir: string, options: OpenOptions = {}): Promise<{ database: Database; location: string }> {
  const location = await freshDatabaseLocation(dir);
  const { database } = await openDatabase(location, { connections: TEST_APP_CONNECTIONS, ...options });
  return { database, location };
}

let drops: Promise<unknown> = Promise.resolve();

/**
 * Drops a PostgreSQL test database (a SQLite one goes with its folder) after the test, one drop
 * at a time, while the next test runs: each drop forces a checkpoint, and waited for it took
 * 80-240 ms of every test's close. What is left at the end goes with the throwaway cluster.
 */
export async function dropDatabase(location: string): Promise<void> {
  if (backend !== "postgres") return;
  const name = new URL(location).pathname.slice(1);
  drops = drops.then(() => adminConnection().unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).catch(() => {});
}

/**
 * The databases of one test file: `open()` gives a fresh one (or, with a location, another
 * handle on an existing one, as a second process or instance would hold); all are closed, and
 * PostgreSQL ones dropped, after the file. `neverBlockOnLocks` is set on SQLite handles as the
 * server sets it, so two handles in one process never put the thread to sleep on each other.
 */
export function databasesOfThisFile() {
  const dir = mkdtempSync(join(tmpdir(), "trustlist-db-"));
  const opened: Database[] = [];
  const locations: string[] = [];
  afterAll(async () => {
    for (const database of opened) await database.close();
    for (const location of locations) await dropDatabase(location);
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    dir,
    /** A fresh, empty location (migrated unless `migrated: false`), dropped after the file. */
    async location(options: { migrated?: boolean } = {}): Promise<string> {
      const location = await freshDatabaseLocation(join(dir, `db-${locations.length}`), options);
      locations.push(location);
      return location;
    },
    async open(location?: string, options: OpenOptions = {}): Promise<{ database: Database; location: string }> {
      location ??= await this.location();
      const { database } = await openDatabase(location, { connections: TEST_APP_CONNECTIONS, ...options });
      if (database.dialect === "sqlite") database.neverBlockOnLocks();
      opened.push(database);
      return { database, location };
    },
  };
}

/**
 * Runs `statement` (parameters as $1, $2, …) on a connection of its own, as another process that
 * writes with plain SQL would (an operator's shell, an older build): on PostgreSQL its commit is
 * announced without saying what it wrote, so every cache falls back to checking for itself.
 * `announce: false` sends no notification at all, as an operator's psql session would not.
 */
export async function writeAsAnotherProcess(
  location: string,
  statement: string,
  params: Array<string | number> = [],
  options: { announce?: boolean } = {},
): Promise<void> {
  if (backend === "sqlite") {
    const other = new SqliteConnection(location);
    try {
      other.run(statement, params);
    } finally {
      other.close();
    }
    return;
  }
  const other = new SQL(location, { max: 1 });
  try {
    await other.begin(async (tx) => {
      await tx.unsafe(statement, params);
      if (options.announce !== false) await tx`SELECT pg_notify(${CHANGES_CHANNEL}, ${JSON.stringify({ from: "another-process", notes: null })})`;
    });
  } finally {
    await other.close();
  }
}

/**
 * Retries `expectation` until it holds (10 s at most): another instance's commit reaches a
 * PostgreSQL instance by notification, a moment after it commits (far later on a machine busy
 * with other work); on SQLite the next request sees it.
 */
export async function eventually(expectation: () => Promise<void> | void): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await expectation();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await Bun.sleep(20);
    }
  }
}

/**
 * Whether `condition` holds within `ms`, asked every 20 ms (a condition that throws, a reset
 * connection, does not hold): for waiting on an event (a flush, a log line, a process) with a
 * generous deadline instead of sleeping a fixed time and then asserting.
 */
export async function until(condition: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await Promise.resolve().then(condition).catch(() => false)) return true;
    await Bun.sleep(20);
  }
  return false;
}

/**
 * Asserts what another process's commit must change: on SQLite at once (the next request reads
 * the file's data_version), on PostgreSQL once its notification has been read (`eventually`): a
 * test that blocked its own event loop (spawnSync) or calls `app.handle` directly has not read it yet.
 */
export function whenCommitArrives(expectation: () => Promise<void> | void): Promise<void> {
  return backend === "sqlite" ? Promise.resolve(expectation()) : eventually(expectation);
}
