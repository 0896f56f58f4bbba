// Shared test setup: a real app on a real database (a SQLite file in a temporary folder, or a fresh
// PostgreSQL database when TRUSTLIST_TEST_DB=postgres: test/backend.ts), a manual clock, and small
// helpers to call it through `app.handle` the way an HTTP client would.
import { expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildApp } from "../src/app";
import { ManualClock } from "../src/clock";
import type { Config } from "../src/config";
import type { Database as SqliteConnection } from "bun:sqlite";
import { openStore } from "../src/db/client";
import { openDatabase } from "../src/db/database";
import type { ApiTier, KeyScope, RateTier } from "../src/domain";
import { createRuntime, type Runtime } from "../src/runtime";
import { createServices, type Services } from "../src/services";
import { backend, dropDatabase, freshDatabaseLocation, TEST_APP_CONNECTIONS } from "./backend";

export interface TestApp {
  app: ReturnType<typeof buildApp>;
  runtime: Runtime;
  services: Services;
  clock: ManualClock;
  dir: string;
  /** The SQLite file, or the PostgreSQL URL. */
  dbPath: string;
  /**
   * Rows of a statement run on the app's database, on either backend: `?` placeholders, and SQL
   * both dialects read (`CAST(count(*) AS INTEGER)`, not `::int`). For setting up and inspecting
   * what the API cannot show.
   */
  rows<T = any>(query: string, ...params: unknown[]): Promise<T[]>;
  /**
   * Makes every `op` on `table` fail (where `when`, an SQL condition over NEW, holds) until the
   * returned function is called: a database fault in the middle of a write, on either backend.
   */
  failWrites(table: string, op: "INSERT" | "UPDATE" | "DELETE", when?: string): Promise<() => Promise<void>>;
  /** The raw SQLite connection, for tests of SQLite's own behaviour (they skip on PostgreSQL). */
  readonly sqlite: SqliteConnection;
  /**
   * Calls the app with an optional bearer key and JSON body. A write (any method but GET and HEAD)
   * carries this service's own `Origin`, as a browser on its pages sends it; a test gives another
   * in `headers.origin`, or none with `origin: ""`.
   */
  call(method: string, path: string, options?: { key?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  /** The origin a browser on this service's own pages sends (`Origin`). */
  readonly origin: string;
  /** Like `call`, and parses the JSON body. */
  json<T = any>(method: string, path: string, options?: { key?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; body: T; headers: Headers }>;
  /** A new account with one key. */
  account(options?: { tier?: ApiTier; scope?: KeyScope; rateTier?: RateTier; dailyQuota?: number; burst?: number; name?: string }): Promise<{ accountId: string; key: string; keyId: string }>;
  close(): Promise<void>;
}

let counter = 0;
let faults = 0;
/** The database of each test folder, so an app opened again on a folder finds its data. */
const databasesByDir = new Map<string, string>();

export function tempDir(prefix = "trustlist-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * `http`: requests reach the app over loopback HTTP, listening as `serve` does (Bun's router, the
 * keyed check's fast path: blacklist/check-fast-path.ts), instead of `app.handle` in the test's own
 * turn of the event loop (for what depends on requests arriving: another process's commit is read
 * once per turn, db/changes.ts).
 */
export async function createTestApp(options: { clock?: ManualClock; dir?: string; config?: Partial<Config>; http?: boolean } = {}): Promise<TestApp> {
  const dir = options.dir ?? tempDir();
  // A folder given again is the same database again (a restart); its PostgreSQL database is kept.
  const dbPath = databasesByDir.get(dir) ?? (await freshDatabaseLocation(dir));
  databasesByDir.set(dir, dbPath);
  const clock = options.clock ?? new ManualClock();
  const store = backend === "sqlite" ? openStore(dbPath) : (await openDatabase(dbPath, { connections: TEST_APP_CONNECTIONS })).database;
  const runtime = await createRuntime({ store, clock, config: { dbPath, accessLog: false, ...options.config } });
  const services = createServices(runtime);
  const app = buildApp(runtime, { services });
  // As `serve` does: checks of unlisted subjects are answered from the filter, not SQLite.
  await services.blacklist.warm();
  // Listening as `serve` does: through Bun's router, the keyed check's fast path included.
  const server = options.http ? app.listen({ port: 0, hostname: "127.0.0.1", reusePort: false }).server! : null;
  const origin = runtime.config.baseUrlConfigured
    ? new URL(runtime.config.baseUrl).origin
    : server
      ? `http://127.0.0.1:${server.port}`
      : "http://localhost";
  const call: TestApp["call"] = (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (method !== "GET" && method !== "HEAD") headers.origin ??= origin;
    if (headers.origin === "") delete headers.origin;
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      headers["content-type"] ??= "application/json";
      body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
    }
    // `manual`: a test sees a redirect as a client that does not follow it (the sign-in link's 302).
    if (server) return fetch(`http://127.0.0.1:${server.port}${path}`, { method, headers, body, redirect: "manual" });
    return app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
  };
  return {
    app,
    runtime,
    services,
    clock,
    dir,
    dbPath,
    origin,
    call,
    async rows(query, ...params) {
      if (store.dialect === "sqlite") return store.sqlite.query(query).all(...(params as any[])) as any[];
      let n = 0;
      return [...(await store.sql().unsafe(query.replace(/\?/g, () => `$${++n}`), params as any[]))];
    },
    async failWrites(table, op, when = "true") {
      const name = `test_fault_${++faults}`;
      if (store.dialect === "sqlite") {
        store.sqlite.run(`CREATE TRIGGER ${name} BEFORE ${op} ON ${table} WHEN ${when} BEGIN SELECT RAISE(ABORT, 'injected fault'); END`);
        return async () => void store.sqlite.run(`DROP TRIGGER ${name}`);
      }
      const sql = store.sql();
      await sql.unsafe(`CREATE OR REPLACE FUNCTION test_fault() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected fault'; END $$`);
      await sql.unsafe(`CREATE TRIGGER ${name} BEFORE ${op} ON ${table} FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION test_fault()`);
      return async () => void (await sql.unsafe(`DROP TRIGGER ${name} ON ${table}`));
    },
    get sqlite() {
      if (store.dialect !== "sqlite") throw new Error("a SQLite-only test ran on PostgreSQL: skip it there (test/backend.ts sqliteOnly)");
      return store.sqlite;
    },
    async json(method, path, opts) {
      const res = await call(method, path, opts);
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
    },
    async account(o = {}) {
      const account = await services.accounts.createAccount({
        name: o.name ?? `acct-${++counter}-${Math.random().toString(36).slice(2, 6)}`,
        tier: o.tier ?? "free",
        daily_quota: o.dailyQuota,
      });
      const key = await services.accounts.createKey({
        account: account.id,
        scope: o.scope ?? "read",
        rate_tier: o.rateTier ?? "free",
        burst: o.burst,
      });
      return { accountId: account.id, key: key.key, keyId: key.id };
    },
    async close() {
      await server?.stop(true);
      await store.close();
      if (!options.dir) {
        await dropDatabase(dbPath);
        databasesByDir.delete(dir);
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Asserts the error envelope: status, JSON, exactly {error: {code, message, request_id}}, id = header. */
export function expectEnvelope(res: { status: number; body: any; headers: Headers }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toContain("application/json");
  expect(Object.keys(res.body)).toEqual(["error"]);
  expect(Object.keys(res.body.error).sort()).toEqual(["code", "message", "request_id"]);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe("string");
  expect(res.body.error.message.length).toBeGreaterThan(0);
  expect(res.body.error.request_id).toBe(res.headers.get("x-request-id")!);
}

/** Calls the partner API with a new write-scoped key and fails the test on any status of 300 or more. */
export async function partnerWriter(t: TestApp): Promise<(method: string, path: string, body?: unknown) => Promise<any>> {
  const { key } = await t.account({ scope: "write", burst: 10_000 });
  return async (method, path, body) => {
    const res = await t.json(method, path, { key, body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
}

/** Signs `handle` (an existing creator) in on `app` through a partner's login link; answers the cookie header a browser sends back. */
export async function signIn(app: TestApp, handle: string): Promise<string> {
  const { key } = await app.account({ scope: "write" });
  const link = await app.json("POST", "/v1/partner/login-links", { key, body: { handle } });
  expect(link.status, JSON.stringify(link.body)).toBe(201);
  const url = new URL(link.body.url);
  const res = await app.call("GET", url.pathname + url.search);
  expect(res.status).toBe(302);
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

/**
 * Repeats a write sent under an Idempotency-Key until its answer is a replay: until the first
 * answer is recorded (at once on SQLite, just after it on PostgreSQL) a repeat is the 409 of a
 * request still being answered, without `Idempotent-Replayed`.
 */
export async function repeatUntilReplayed<T extends { headers: Headers }>(send: () => Promise<T>): Promise<T> {
  let again = await send();
  for (let i = 0; i < 100 && again.headers.get("idempotent-replayed") !== "true"; i++) {
    await Bun.sleep(20);
    again = await send();
  }
  return again;
}
