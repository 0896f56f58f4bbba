// Opens the embedded SQLite store: pragmas, embedded migrations, and the drizzle handle. Who may
// create the file and who may migrate it is the caller's choice (SPEC section 1, operator safety);
// a schema newer than this build is refused whoever opens it.
import { Database } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { ExternalChanges } from "./changes";
import { type EmbeddedMigration, embeddedMigrations } from "./migrations.generated";
import * as schema from "./schema";
import { type WriteOptions, Writer } from "./write";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

/** An open SQLite database (the embedded store). PostgreSQL's counterpart is in db/postgres.ts. */
export interface Store {
  dialect: "sqlite";
  /** The raw connection, for prepared statements on hot paths. */
  sqlite: Database;
  /** The drizzle handle every service uses. */
  db: Db;
  path: string;
  /** Every write goes through here: one transaction that waits for another process's lock (db/write.ts). */
  write<T>(fn: () => T | Promise<T>, options?: WriteOptions): Promise<T>;
  /** Another process's commits, told to the caches that must drop or catch up (db/changes.ts). */
  changes: ExternalChanges;
  /**
   * For the process that serves requests: the connection never sleeps on a lock (busy_timeout 0),
   * so writes wait for one asynchronously, for up to `writeWaitMs` (default 5 s).
   */
  neverBlockOnLocks(options?: { writeWaitMs?: number }): void;
  /**
   * Runs `fn`; the PostgreSQL counterpart skips work another instance is doing. One server uses
   * a SQLite file, and its job runner already keeps a job from overlapping itself.
   */
  exclusive(name: string, fn: () => Promise<unknown>): Promise<boolean>;
  /** Resolves when the database answers a trivial query (`/healthz`); throws when it cannot. */
  ping(): Promise<void>;
  close(): void;
}

/** Why a database cannot be opened: missing, or at a schema this build cannot use. */
export class StoreOpenError extends Error {
  constructor(
    readonly reason: "missing" | "newer" | "older",
    /** Absolute path of the database file. */
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = "StoreOpenError";
  }
}

export interface OpenOptions {
  /** Create the file when it is missing (default true); otherwise a missing file is a StoreOpenError. */
  create?: boolean;
  /**
   * What to do with migrations this build has and the database lacks: "apply" them (default),
   * "require" none to be pending, "apply-if-empty" only to a database with no schema yet, or
   * "leave" the schema as it is. A database newer than this build is refused in every case.
   */
  migrations?: "apply" | "require" | "apply-if-empty" | "leave";
  readonly?: boolean;
  /**
   * Temporary storage in files (SQLite's own default) instead of memory: for the CLI import,
   * whose index builds then sort in runs on several threads (`sortInRunsWhileBulk`). A server
   * keeps it in memory and needs no writable temporary directory.
   */
  temporaryFiles?: boolean;
}

/**
 * SQLite's page cache per connection, in KiB. The pages are private to each connection while the
 * operating system's page cache holds the file once for every process: the workers of
 * `serve --workers N` share this budget (`pageCacheShareKib`) instead of each taking it whole.
 */
export const PAGE_CACHE_KIB = 65_536;
/** No connection that serves requests gets less: the keyed check's upper B-tree levels fit many times over. */
const MIN_PAGE_CACHE_KIB = 16_384;

/** The page cache of one of `processes` processes serving the same file. */
export function pageCacheShareKib(processes: number): number {
  return Math.max(MIN_PAGE_CACHE_KIB, Math.floor(PAGE_CACHE_KIB / Math.max(1, processes)));
}

/** The database, its WAL and shared-memory files hold evidence, reporters and key hashes. */
const OWNER_ONLY = 0o600;

export function openStore(path: string, options: OpenOptions = {}): Store {
  if (path !== ":memory:") prepareFile(path, options);
  const sqlite = new Database(path, options.readonly ? { readonly: true } : { create: true, readwrite: true, strict: true });
  // WAL lets readers (the server, `backup`, `export`) run beside one writer; busy_timeout makes a
  // CLI process wait for the write lock instead of failing at once (the server turns it off).
  sqlite.exec("PRAGMA busy_timeout = 5000");
  if (!options.readonly) {
    sqlite.exec("PRAGMA journal_mode = WAL");
    sqlite.exec("PRAGMA synchronous = NORMAL");
  }
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec(`PRAGMA temp_store = ${options.temporaryFiles ? "FILE" : "MEMORY"}`);
  sqlite.exec(`PRAGMA cache_size = -${PAGE_CACHE_KIB}`);
  const db = drizzle(sqlite, { schema }) as Db;
  try {
    checkSchema(db, path, options.readonly ? "leave" : (options.migrations ?? "apply"));
  } catch (error) {
    sqlite.close();
    throw error;
  }
  const changes = new ExternalChanges(sqlite);
  const writer = new Writer(sqlite, changes);
  let ping: import("bun:sqlite").Statement | undefined;
  return {
    dialect: "sqlite",
    sqlite,
    db,
    path,
    write: (fn, writeOptions) => writer.write(fn, writeOptions),
    changes,
    neverBlockOnLocks({ writeWaitMs } = {}) {
      sqlite.exec("PRAGMA busy_timeout = 0");
      if (writeWaitMs !== undefined) writer.waitMs = writeWaitMs;
    },
    async exclusive(_name, fn) {
      await fn();
      return true;
    },
    async ping() {
      (ping ??= sqlite.prepare("SELECT 1")).get();
    },
    close() {
      sqlite.close();
    },
  };
}

/**
 * Refuses a missing file unless asked to create one; creates a new one owner-only before SQLite
 * does (SQLite gives the -wal and -shm files the database file's mode), and tightens an existing
 * one that others can read.
 */
function prepareFile(path: string, options: OpenOptions) {
  const absolute = resolve(path);
  if (!existsSync(absolute)) {
    if (options.create === false || options.readonly) {
      throw new StoreOpenError("missing", absolute, `no database at ${absolute}; create it with 'trustlist migrate --db ${absolute}'`);
    }
    mkdirSync(dirname(absolute), { recursive: true, mode: 0o700 });
    try {
      closeSync(openSync(absolute, "wx", OWNER_ONLY));
    } catch (error) {
      // Another process created it first: open theirs.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    return;
  }
  if (options.readonly) return;
  for (const file of [absolute, `${absolute}-wal`, `${absolute}-shm`]) {
    try {
      if (statSync(file).mode & 0o077) chmodSync(file, OWNER_ONLY);
    } catch {
      // Absent, or owned by another user: the owner's own choice stands.
    }
  }
}

export interface SchemaVersion {
  /** Migrations recorded in the database. */
  applied: number;
  /** When the newest recorded migration was made (drizzle's folder timestamp), or null. */
  latest: number | null;
}

/** The schema version a database records, read from drizzle's journal table. */
export function schemaVersion(sqlite: Database): SchemaVersion {
  const exists = sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
  if (!exists) return { applied: 0, latest: null };
  const row = sqlite.query<{ n: number; latest: number | null }, []>("SELECT count(*) AS n, max(created_at) AS latest FROM __drizzle_migrations").get()!;
  return { applied: row.n, latest: row.latest === null ? null : Number(row.latest) };
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
export function planMigrations(
  found: SchemaVersion,
  build: EmbeddedMigration[],
  location: string,
  policy: NonNullable<OpenOptions["migrations"]>,
  empty: boolean,
): "apply" | "none" {
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

function checkSchema(db: Db, path: string, policy: NonNullable<OpenOptions["migrations"]>) {
  const absolute = path === ":memory:" ? path : resolve(path);
  const found = schemaVersion(db.$client);
  if (planMigrations(found, embeddedMigrations, absolute, policy, found.applied === 0 && isEmpty(db.$client)) === "apply") migrate(db);
}

function isEmpty(sqlite: Database): boolean {
  return !sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'table' LIMIT 1").get();
}

/** Applies the migrations embedded in this build; drizzle's own journal table records them. */
export function migrate(db: Db): number {
  const before = schemaVersion(db.$client).applied;
  // drizzle's dialect runs the pending ones in a single transaction.
  (db as any).dialect.migrate(drizzleMigrations(embeddedMigrations), (db as any).session, {});
  return schemaVersion(db.$client).applied - before;
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
