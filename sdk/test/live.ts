// A live `trustlist serve` for the SDK's tests: a real process on a real SQLite file, its admin key
// from the first start, and accounts and keys made with the CLI as an operator would.
import { afterAll, beforeAll } from "bun:test";
import { BUN, cliJson, MAIN, type Server, startServer, workspace } from "../../test/cli-helpers";

export interface Live {
  base: string;
  db: string;
  adminKey: string;
  /** A new key on the test account (pro tier), with `keys create` flags such as `--burst 1`. */
  key(...flags: string[]): string;
}

/** Starts a server before the file's tests and stops it after them. */
export function liveServer(): Live {
  let server: Server;
  let account = "";
  const live = { base: "", db: "", adminKey: "" } as Live;
  beforeAll(async () => {
    const { db } = workspace("trustlist-sdk-");
    server = await startServer([BUN, MAIN], db);
    live.base = server.base;
    live.db = db;
    live.adminKey = server.stderr.match(/tl_live_\w{32}/)![0];
    account = cliJson(db, "accounts", "create", "--name", "sdk-tests", "--tier", "pro").id;
  });
  afterAll(async () => {
    await server?.stop();
  });
  live.key = (...flags) => cliJson(live.db, "keys", "create", "--account", account, ...flags).key;
  return live;
}
