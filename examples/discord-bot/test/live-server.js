// @ts-check
// A live `trustlist serve` for the bot's tests, started as an operator would: Bun running the
// repository's src/main.ts on a SQLite file in a temporary folder, its admin key from the first
// start, accounts and keys made with the CLI. `bun` comes from PATH (`make test` puts the pinned
// one there) or BUN. It can be stopped and started again on the same port, as in an outage. Under
// the repository's scripts/with-postgres.sh (TRUSTLIST_TEST_POSTGRES_URL set) it serves a new
// PostgreSQL database instead, made and dropped with psql.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const MAIN = resolve(import.meta.dirname, "..", "..", "..", "src", "main.ts");
const BUN = process.env.BUN ?? "bun";
const POSTGRES = process.env.TRUSTLIST_TEST_POSTGRES_URL;
let databases = 0;

/** Runs one SQL statement on the PostgreSQL server's admin database. @param {string} sql */
function psql(sql) {
  execFileSync("psql", [/** @type {string} */ (POSTGRES), "-v", "ON_ERROR_STOP=1", "-qc", sql], { stdio: ["ignore", "ignore", "pipe"] });
}

/** `trustlist ARGS --db DB --json`, parsed. @param {string} db @param {string[]} args */
export function cli(db, ...args) {
  return JSON.parse(execFileSync(BUN, [MAIN, ...args, "--db", db, "--json"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }));
}

/** @param {string} db @param {string[]} flags @param {boolean} firstStart */
function serve(db, flags, firstStart) {
  const proc = spawn(BUN, [MAIN, "serve", "--port", "0", "--db", db, "--access-log", "off", ...flags], { stdio: ["ignore", "ignore", "pipe"] });
  return new Promise((resolvePromise, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error(`the server did not start within 15 s: ${text}`)), 15_000);
    proc.stderr.on("data", (chunk) => {
      text += chunk;
      const listening = text.match(/listening on (http:\/\/\S+)/);
      if (listening && (!firstStart || /tl_live_\w{32}/.test(text))) {
        clearTimeout(timer);
        resolvePromise({ proc, base: listening[1], adminKey: text.match(/tl_live_\w{32}/)?.[0] ?? "" });
      }
    });
    proc.on("exit", () => {
      clearTimeout(timer);
      reject(new Error(`the server exited: ${text}`));
    });
  });
}

/**
 * @param {string[]} [flags] `serve` flags
 * @returns {Promise<{ base: string, db: string, adminKey: string, key: (tier?: string, ...flags: string[]) => string, account: (name: string, ...flags: string[]) => string, stop: () => Promise<void>, start: () => Promise<void>, close: () => Promise<void> }>}
 */
export async function liveServer(flags = []) {
  const dir = mkdtempSync(join(tmpdir(), "trustlist-bot-live-"));
  let db = join(dir, "t.db");
  if (POSTGRES) {
    const name = `bot_${process.pid}_${++databases}`;
    psql(`CREATE DATABASE ${name}`);
    const url = new URL(POSTGRES);
    url.pathname = `/${name}`;
    db = url.toString();
  }
  /** @type {any} */
  let server = await serve(db, flags, true);
  const base = server.base;
  const stop = async () => {
    if (server.proc.exitCode !== null) return;
    // Without the start-up listener, which takes an exit for a failed start.
    server.proc.removeAllListeners("exit");
    const exited = new Promise((r) => server.proc.once("exit", r));
    server.proc.kill("SIGTERM");
    await exited;
  };
  return {
    base,
    db,
    adminKey: server.adminKey,
    /** A new account and a key on it. */
    key: (tier = "pro", ...keyFlags) => cli(db, "keys", "create", "--account", cli(db, "accounts", "create", "--name", `bot-${Math.random().toString(36).slice(2)}`, "--tier", tier).id, ...keyFlags).key,
    /** A new account (`accounts create` flags); answers its id. */
    account: (name, ...accountFlags) => cli(db, "accounts", "create", "--name", name, ...accountFlags).id,
    stop,
    start: async () => void (server = await serve(db, [...flags, "--port", new URL(base).port], false)),
    close: async () => {
      await stop();
      if (POSTGRES) psql(`DROP DATABASE IF EXISTS ${new URL(db).pathname.slice(1)} WITH (FORCE)`);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
