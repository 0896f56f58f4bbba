// `serve --admin-key-file PATH`: a first start writes the operator's admin key to a new owner-only
// file instead of stderr, so a service manager's journal or a container log never holds it. Run
// as an operator runs it: the compiled binary, a real SQLite file, stdout and stderr captured.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readStderrUntil, trustlist, workspace } from "../cli-helpers";

let binary = "";
beforeAll(() => {
  binary = trustlist();
}, 120_000);

const KEY = /tl_live_[A-Za-z0-9]{32}/;

interface Served {
  base: string;
  /** Everything the process wrote on stdout and stderr, once it has stopped. */
  stop(): Promise<{ code: number; stdout: string; stderr: string }>;
  stderr: string;
}

/** `trustlist serve` with the access log on, until its "listening" line (and the first-start line when `firstStart`). */
async function serve(args: string[], env: Record<string, string> = {}, firstStart = true): Promise<Served> {
  const proc = Bun.spawn([binary, "serve", "--port", "0", "--access-log", "on", ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  const stdout = new Response(proc.stdout).text();
  const { text, exited } = await readStderrUntil(proc, (t) => /listening on http:\/\/\S+/.test(t) && (!firstStart || /First start/.test(t)));
  if (exited) throw new Error(`serve exited: ${text}`);
  return {
    base: text.match(/listening on (http:\/\/\S+)/)![1]!,
    stderr: text,
    async stop() {
      proc.kill("SIGTERM");
      const code = await proc.exited;
      return { code, stdout: await stdout, stderr: text + (await readStderrUntil(proc, () => false)).text };
    },
  };
}

/** Exercises the key the way a client does: the Authorization header, a keyed write, an admin read. */
async function useKey(base: string, key: string) {
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const keys = await fetch(`${base}/v1/admin/keys`, { headers });
  expect(keys.status).toBe(200);
  const listed = (await keys.json()) as { data: Array<{ name: string | null; scope: string }> };
  expect(listed.data).toEqual([expect.objectContaining({ name: "first admin key", scope: "admin" })]);
  const account = await fetch(`${base}/v1/admin/accounts`, { method: "POST", headers, body: JSON.stringify({ name: "bot", tier: "pro" }) });
  expect(account.status).toBe(201);
  // A wrong key in the query string must not reach the access log either (only the path is logged).
  expect((await fetch(`${base}/v1/blacklist?key=${key}`)).status).toBe(401);
}

describe("serve --admin-key-file", () => {
  for (const workers of [1, 2]) {
    test(`writes the first admin key to a new 0600 file and prints only the path (--workers ${workers})`, async () => {
      const { dir, db } = workspace();
      const keyFile = join(dir, "admin-key");
      const server = await serve(["--db", db, "--admin-key-file", keyFile, "--workers", String(workers)]);
      let out: Awaited<ReturnType<Served["stop"]>>;
      try {
        expect(server.stderr).toContain(`its admin key is in ${keyFile}`);
        expect((statSync(keyFile).mode & 0o777).toString(8)).toBe("600");
        const key = readFileSync(keyFile, "utf8");
        expect(key).toMatch(new RegExp(`^${KEY.source}\\n$`));
        await useKey(server.base, key.trim());
      } finally {
        out = await server.stop();
      }
      expect(out.code).toBe(0);
      // The JSON log on stdout did log the requests, and neither stream holds the key.
      expect(out.stdout).toContain('"path":"/v1/admin/keys"');
      expect(out.stdout).toContain('"path":"/v1/blacklist"');
      expect(out.stdout).not.toMatch(KEY);
      expect(out.stderr).not.toMatch(KEY);
    }, 60_000);
  }

  test("TRUSTLIST_ADMIN_KEY_FILE does the same; a relative path is resolved and printed whole", async () => {
    const { dir, db } = workspace();
    const server = await serve(["--db", db], { TRUSTLIST_ADMIN_KEY_FILE: join(dir, "from-env") });
    const out = await server.stop();
    expect(out.stderr).toContain(`its admin key is in ${join(dir, "from-env")}`);
    expect(readFileSync(join(dir, "from-env"), "utf8")).toMatch(KEY);
    expect(out.stderr + out.stdout).not.toMatch(KEY);
  }, 30_000);

  test("an existing file on a new database is refused before anything listens: the file is untouched, no key is made", async () => {
    const { dir, db } = workspace();
    const keyFile = join(dir, "admin-key");
    writeFileSync(keyFile, "tl_live_of_another_database\n");
    const proc = Bun.spawnSync([binary, "serve", "--port", "0", "--db", db, "--admin-key-file", keyFile], { stdout: "pipe", stderr: "pipe" });
    expect(proc.exitCode).toBe(1);
    const stderr = proc.stderr.toString();
    expect(stderr).toContain(`--admin-key-file ${keyFile} already exists, and this database is new`);
    expect(stderr).not.toContain("listening");
    expect(readFileSync(keyFile, "utf8")).toBe("tl_live_of_another_database\n");
    // No operator account was made: a later start with a free path is still the first start.
    const listed = Bun.spawnSync([binary, "accounts", "list", "--db", db, "--json"], { stdout: "pipe", stderr: "pipe" });
    expect(listed.exitCode, listed.stderr.toString()).toBe(0);
    expect(JSON.parse(listed.stdout.toString()).data).toEqual([]);
  }, 30_000);

  test("a folder that does not exist is refused with a clear message", () => {
    const { dir, db } = workspace();
    const keyFile = join(dir, "missing", "admin-key");
    const proc = Bun.spawnSync([binary, "serve", "--port", "0", "--db", db, "--admin-key-file", keyFile, "--workers", "2"], { stdout: "pipe", stderr: "pipe" });
    expect(proc.exitCode).toBe(1);
    expect(proc.stderr.toString()).toContain(`the folder ${join(dir, "missing")} does not exist`);
    expect(existsSync(keyFile)).toBe(false);
  }, 30_000);

  test("an empty value is a usage error", () => {
    const { db } = workspace();
    const proc = Bun.spawnSync([binary, "serve", "--port", "0", "--db", db, "--admin-key-file", " "], { stdout: "pipe", stderr: "pipe" });
    expect(proc.exitCode).toBe(2);
    expect(proc.stderr.toString()).toContain("--admin-key-file must name a file");
  });

  test("later starts leave the file alone, whatever it holds (the key was made once)", async () => {
    const { dir, db } = workspace();
    const keyFile = join(dir, "admin-key");
    const first = await serve(["--db", db, "--admin-key-file", keyFile]);
    expect((await first.stop()).code).toBe(0);
    const key = readFileSync(keyFile, "utf8");
    const again = await serve(["--db", db, "--admin-key-file", keyFile], {}, false);
    const out = await again.stop();
    expect(out.stderr).not.toContain("First start");
    expect(readFileSync(keyFile, "utf8")).toBe(key);
  }, 30_000);

  test("without the flag the key is printed on stderr for the person at the terminal (make run), never on stdout", async () => {
    const { db } = workspace();
    const server = await serve(["--db", db]);
    const out = await server.stop();
    expect(out.stderr).toMatch(new RegExp(`\\n  ${KEY.source}\\n`));
    expect(out.stdout).not.toMatch(KEY);
  }, 30_000);

  test("`help serve` lists the flag and its variable", () => {
    const help = Bun.spawnSync([binary, "help", "serve"], { stdout: "pipe" }).stdout.toString();
    expect(help).toContain("--admin-key-file PATH");
    expect(help).toContain("TRUSTLIST_ADMIN_KEY_FILE");
  });
});

describe("an admin key made with the CLI before the first start", () => {
  test("works on a fresh database path once `migrate` made it, and the first serve then makes no key of its own", async () => {
    const { db } = workspace();
    // Other commands never create a database (a mistyped --db would start an empty one): they say how.
    const early = Bun.spawnSync([binary, "keys", "create", "--account", "operator", "--db", db], { stdout: "pipe", stderr: "pipe" });
    expect(early.exitCode).toBe(1);
    expect(early.stderr.toString()).toContain(`create it with 'trustlist migrate --db ${db}'`);
    const cli = (...args: string[]) => {
      const ran = Bun.spawnSync([binary, ...args, "--db", db, "--json"], { stdout: "pipe", stderr: "pipe" });
      expect(ran.exitCode, ran.stderr.toString()).toBe(0);
      return JSON.parse(ran.stdout.toString());
    };
    cli("migrate");
    cli("accounts", "create", "--name", "operator", "--tier", "enterprise");
    const issued = cli("keys", "create", "--account", "operator", "--scope", "admin");
    expect(issued.key).toMatch(KEY);
    const server = await serve(["--db", db], {}, false);
    let out: Awaited<ReturnType<Served["stop"]>>;
    try {
      const keys = await fetch(`${server.base}/v1/admin/keys`, { headers: { authorization: `Bearer ${issued.key}` } });
      expect(keys.status).toBe(200);
    } finally {
      out = await server.stop();
    }
    expect(out.stderr).not.toContain("First start");
    expect(out.stderr + out.stdout).not.toMatch(KEY);
  }, 30_000);
});
