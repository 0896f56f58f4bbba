// A live `trustlist serve` for the SDK's tests: a real process on a real database (a SQLite file, or
// a new PostgreSQL database when the suite runs on PostgreSQL), its admin key from the first start,
// and accounts and keys made with the CLI as an operator would.
import { afterAll, beforeAll } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { dropDatabase, freshDatabaseLocation } from "../../test/backend";
import { cliJson, type Server, startServer, trustlist } from "../../test/cli-helpers";
import { tempDir } from "../../test/helpers";

export interface Live {
  base: string;
  db: string;
  adminKey: string;
  /** A new key on the test account (pro tier), with `keys create` flags such as `--burst 1`. */
  key(...flags: string[]): string;
  /** Stops the server (SIGTERM, waited for); `start` brings it back on the same port and database. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** Starts a server (with `serve` flags such as `--allow-private-webhooks`) before the file's tests and stops it after them. */
export function liveServer(flags: string[] = []): Live {
  let server: Server;
  let dir = "";
  let account = "";
  const live = { base: "", db: "", adminKey: "" } as Live;
  beforeAll(async () => {
    dir = tempDir("trustlist-sdk-");
    // Empty: the server migrates it on its first start, as an operator's would be.
    const db = await freshDatabaseLocation(join(dir, "db"), { migrated: false });
    server = await startServer([trustlist()], db, undefined, true, flags);
    live.base = server.base;
    live.db = db;
    live.adminKey = server.stderr.match(/tl_live_\w{32}/)![0];
    account = cliJson(db, "accounts", "create", "--name", "sdk-tests", "--tier", "pro").id;
  });
  // Stop first, then remove: the server writes to its database until it has exited.
  afterAll(async () => {
    await server?.stop();
    await dropDatabase(live.db);
    rmSync(dir, { recursive: true, force: true });
  });
  live.key = (...flags) => cliJson(live.db, "keys", "create", "--account", account, ...flags).key;
  live.stop = async () => void (await server.stop());
  // A later --port wins over startServer's `--port 0`.
  live.start = async () => void (server = await startServer([trustlist()], live.db, undefined, false, [...flags, "--port", new URL(live.base).port]));
  return live;
}
