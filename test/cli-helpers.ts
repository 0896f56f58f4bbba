// Running trustlist as an operator does: the CLI and `serve` as real child processes on real
// SQLite files in temporary folders (removed when the test run ends).
import { rmSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers";
import { isPostgresUrl } from "../src/db/location";
import { MIN_POOL_SIZE } from "../src/db/postgres";

const BUILD = join(import.meta.dir, "..", "scripts", "build-binary.sh");

const dirs: string[] = [];
// On exit, not in an afterAll: a hook registered by this shared module ran for the first test file
// that imported it only, and the other files' folders stayed behind.
process.on("exit", () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A temporary folder removed when the test run ends, and a database path inside it. */
export function workspace(prefix = "trustlist-cli-") {
  const dir = tempDir(prefix);
  dirs.push(dir);
  return { dir, db: join(dir, "t.db") };
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `trustlist ARGS` exactly as given, from `cwd`, with `env` added to this process's environment. */
export function run(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Ran {
  const proc = Bun.spawnSync([trustlist(), ...args], { stdout: "pipe", stderr: "pipe", cwd: options.cwd, env: { ...process.env, ...options.env } });
  return { code: proc.exitCode, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}

/** `trustlist ARGS --db DB`. */
export function cli(db: string, ...args: string[]): Ran {
  return run([...args, "--db", db]);
}

/** `trustlist ARGS --db DB --json`, parsed; throws with stderr when it fails. */
export function cliJson(db: string, ...args: string[]) {
  const result = cli(db, ...args, "--json");
  if (result.code !== 0) throw new Error(`${args.join(" ")} failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** A workspace whose database `trustlist migrate` has created, as an operator's would be. */
export function migratedWorkspace() {
  const ws = workspace();
  cliJson(ws.db, "migrate");
  return ws;
}

export interface Server {
  proc: ReturnType<typeof Bun.spawn>;
  base: string;
  stderr: string;
  stop(): Promise<number>;
}

/** Reads a child's stderr until `done` holds for what was read, or it exits, or 10 s pass. */
export async function readStderrUntil(proc: { stderr: ReadableStream<Uint8Array> }, done: (text: string) => boolean): Promise<{ text: string; exited: boolean }> {
  const reader = proc.stderr.getReader();
  let text = "";
  const deadline = Date.now() + 10_000;
  try {
    while (!done(text)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting on stderr: ${text}`);
      const { value, done: ended } = await reader.read();
      if (ended) return { text, exited: true };
      text += new TextDecoder().decode(value);
    }
    return { text, exited: false };
  } finally {
    reader.releaseLock();
  }
}

/**
 * What a test server keeps of PostgreSQL: the fewest connections a server may (its pool, and one
 * that listens), as a test app does. Each is a server process to start: 23-28 ms on the 2-core test machine.
 */
export const TEST_SERVER_POSTGRES_CONNECTIONS = MIN_POOL_SIZE;

/**
 * Starts `COMMAND serve --port 0 --db DB` and waits for its "listening" line (and, on a first
 * start, the key). On a PostgreSQL database, with TEST_SERVER_POSTGRES_CONNECTIONS.
 */
export async function startServer(command: string[], db: string, cwd?: string, firstStart = true, extra: string[] = []): Promise<Server> {
  const pool = isPostgresUrl(db) ? ["--postgres-connections", String(TEST_SERVER_POSTGRES_CONNECTIONS)] : [];
  const proc = Bun.spawn([...command, "serve", "--port", "0", "--db", db, "--access-log", "off", ...pool, ...extra], { stdout: "pipe", stderr: "pipe", cwd });
  // On a first start the admin key follows the "listening" line, possibly in a later chunk.
  const { text: stderr, exited } = await readStderrUntil(proc, (text) => /listening on (http:\/\/\S+)/.test(text) && (!firstStart || /tl_live_\w{32}/.test(text)));
  if (exited) throw new Error(`server exited: ${stderr}`);
  const base = stderr.match(/listening on (http:\/\/\S+)/)![1]!;
  return {
    proc,
    base,
    stderr,
    async stop() {
      proc.kill("SIGTERM");
      return await proc.exited;
    },
  };
}

/** Compiles this checkout into `dir/trustlist` as `make build` does (scripts/build-binary.sh); returns its path. */
function buildBinary(dir: string): string {
  const binary = join(dir, "trustlist");
  const build = Bun.spawnSync([BUILD, binary], { stdout: "pipe", stderr: "pipe", env: { ...process.env, BUN: process.execPath } });
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);
  return binary;
}

let built: string | null = null;

/**
 * The path of this checkout's binary, compiled at the first call of a test process (3-4 s on the
 * 2-core test machine) and shared by every file it runs: the command line and `serve` are tested as
 * operators run them, and a command starts in half the time `bun src/main.ts` takes (0.15 s
 * against 0.30-0.35 s).
 */
export function trustlist(): string {
  if (built) return built;
  const { dir } = workspace("trustlist-bin-");
  built = buildBinary(dir);
  return built;
}
