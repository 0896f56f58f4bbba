// An operator cannot hurt themselves (docs/cli.md, "Operator safety"): one server per port, no
// database made by a typo, no database used or migrated by the wrong binary, files owner-only.
// Real processes on real files.
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { chmodSync, existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { embeddedMigrations } from "../../src/db/migrations.generated";
import { cli, cliJson, migratedWorkspace, readStderrUntil, run, startServer, trustlist, workspace } from "../cli-helpers";

const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);

function journal(db: string): number {
  const sqlite = new Database(db, { readonly: true });
  try {
    return (sqlite.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
  } finally {
    sqlite.close();
  }
}

/** A database as an older trustlist left it: only the first `count` migrations applied. */
function olderDatabase(db: string, count: number) {
  const sqlite = new Database(db, { create: true });
  sqlite.exec("CREATE TABLE __drizzle_migrations (id INTEGER PRIMARY KEY, hash text NOT NULL, created_at numeric)");
  for (const m of embeddedMigrations.slice(0, count)) {
    for (const statement of m.sql.split("--> statement-breakpoint")) if (statement.trim()) sqlite.exec(statement);
    sqlite.run("INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)", [new Bun.CryptoHasher("sha256").update(m.sql).digest("hex"), m.when]);
  }
  sqlite.close();
}

/** What every command looks like from the operator's shell; `needs` marks those that take a file. */
const EVERY_COMMAND: string[][] = [
  ["accounts", "list"],
  ["accounts", "create", "--name", "guild", "--tier", "free"],
  ["accounts", "update", "guild", "--tier", "pro"],
  ["keys", "create", "--account", "my-guild"],
  ["keys", "list"],
  ["keys", "revoke", "key_x"],
  ["keys", "rotate", "key_x"],
  ["blacklist", "add", "--provider", "discord", "--id", "1", "--severity", "ban", "--reason-code", "scam"],
  ["blacklist", "overturn", "bl_x"],
  ["export", "--out", "out.jsonl"],
  ["backup", "copy.db"],
];

describe("one server per port", () => {
  test("a second serve on a port in use exits 1 naming the port, and the first keeps its traffic", async () => {
    const a = workspace();
    const b = workspace();
    const first = await startServer([trustlist()], a.db);
    const port = new URL(first.base).port;
    const second = Bun.spawn([trustlist(), "serve", "--port", port, "--db", b.db, "--access-log", "off"], { stdout: "pipe", stderr: "pipe" });
    // It either exits or, sharing the port, says it is listening.
    const { text, exited } = await readStderrUntil(second, (t) => t.includes("listening on"));
    if (!exited) second.kill("SIGKILL");
    const code = await second.exited;
    expect(code).toBe(1);
    expect(text).toContain(`port ${port}`);
    expect(text).toContain("already in use");
    // It made no database, minted no key and never listened: every request reaches the first
    // server's database.
    expect(text).not.toContain("tl_live_");
    expect(existsSync(b.db)).toBe(false);
    const adminKey = first.stderr.match(/tl_live_\w{32}/)![0];
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${first.base}/v1/account/usage`, { headers: { authorization: `Bearer ${adminKey}` } });
      expect(res.status).toBe(200);
    }
    expect(await first.stop()).toBe(0);
  }, 30_000);
});

describe("only serve, migrate and import create a database", () => {
  test("every other command on a missing file exits 1 naming the absolute path and leaves nothing behind", () => {
    const { dir } = workspace();
    for (const args of EVERY_COMMAND) {
      // The default ./data/trustlist.db, from a folder that has none.
      const result = run(args, { cwd: dir, env: { TRUSTLIST_DB: "" } });
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr, args.join(" ")).toContain(join(dir, "data", "trustlist.db"));
      expect(result.stderr, args.join(" ")).toContain("trustlist migrate --db");
      expect(result.stderr.trim().split("\n"), args.join(" ")).toHaveLength(1);
      expect(readdirSync(dir), args.join(" ")).toEqual([]);
    }
    const relative = run(["keys", "list", "--db", "elsewhere/t.db"], { cwd: dir });
    expect(relative.code).toBe(1);
    expect(relative.stderr).toContain(join(dir, "elsewhere", "t.db"));
    expect(readdirSync(dir)).toEqual([]);
  }, 30_000);

  test("migrate and import create one; serve does too", async () => {
    const { dir } = workspace();
    expect(run(["migrate"], { cwd: dir, env: { TRUSTLIST_DB: "" } }).code).toBe(0);
    expect(journal(join(dir, "data", "trustlist.db"))).toBe(embeddedMigrations.length);

    const file = join(dir, "in.jsonl");
    writeFileSync(file, JSON.stringify({ type: "account", name: "guild", tier: "pro" }) + "\n");
    const imported = join(dir, "imported.db");
    expect(cliJson(imported, "import", file)).toMatchObject({ accounts: 1 });
    expect(journal(imported)).toBe(embeddedMigrations.length);

    const served = join(dir, "served.db");
    const server = await startServer([trustlist()], served);
    expect(await server.stop()).toBe(0);
    expect(journal(served)).toBe(embeddedMigrations.length);
  }, 30_000);
});

describe("schema versions", () => {
  test("every command refuses a database newer than the binary, naming both versions, and changes nothing", async () => {
    const { dir, db } = migratedWorkspace();
    const sqlite = new Database(db);
    sqlite.run("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('from-a-newer-build', ?)", [embeddedMigrations.at(-1)!.when + 86_400_000]);
    sqlite.close();
    const file = join(dir, "in.jsonl");
    writeFileSync(file, JSON.stringify({ type: "account", name: "guild", tier: "pro" }) + "\n");
    const commands = [["migrate"], ["import", file], ["serve", "--port", "0"], ...EVERY_COMMAND];
    for (const args of commands) {
      const result = run([...args, "--db", db], { cwd: dir });
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr, args.join(" ")).toContain(`the database has ${embeddedMigrations.length + 1} migrations`);
      expect(result.stderr, args.join(" ")).toContain(`this build knows ${embeddedMigrations.length} migrations (latest ${embeddedMigrations.at(-1)!.tag}`);
    }
    // No output file, no backup (looked at before this test's own reads add -wal and -shm).
    expect(readdirSync(dir).sort()).toEqual(["in.jsonl", "t.db"]);
    expect(journal(db)).toBe(embeddedMigrations.length + 1);
    const check = new Database(db, { readonly: true });
    expect((check.query("SELECT count(*) AS n FROM accounts").get() as { n: number }).n).toBe(0);
    check.close();
  }, 30_000);

  test("only serve and migrate apply migrations: other commands on an older database say to run migrate", async () => {
    const { dir, db } = workspace();
    olderDatabase(db, embeddedMigrations.length - 1);
    for (const args of [["accounts", "list"], ["keys", "create", "--account", "operator"], ["export"]]) {
      const result = cli(db, ...args);
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr, args.join(" ")).toContain(`${embeddedMigrations.length - 1} of ${embeddedMigrations.length} migrations`);
      expect(result.stderr, args.join(" ")).toContain("run 'trustlist migrate --db");
    }
    // Import into an existing older database does not migrate it either.
    const file = join(dir, "in.jsonl");
    writeFileSync(file, JSON.stringify({ type: "account", name: "guild", tier: "pro" }) + "\n");
    const imported = cli(db, "import", file);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain("trustlist migrate");
    expect(journal(db)).toBe(embeddedMigrations.length - 1);

    // A backup before migrating is allowed, and stays at the old schema.
    const copy = join(dir, "before-upgrade.db");
    expect(cli(db, "backup", copy).code).toBe(0);
    expect(journal(copy)).toBe(embeddedMigrations.length - 1);

    expect(cliJson(db, "migrate")).toMatchObject({ applied: 1 });
    expect(cliJson(db, "accounts", "list")).toEqual({ data: [] });
    // serve migrates too.
    const older = join(dir, "older.db");
    olderDatabase(older, embeddedMigrations.length - 2);
    const server = await startServer([trustlist()], older);
    expect(await server.stop()).toBe(0);
    expect(journal(older)).toBe(embeddedMigrations.length);
  }, 30_000);
});

describe("files readable by their owner only", () => {
  test("the database, its WAL and shared memory, backups and exports are 0600; an older 0644 database is tightened", async () => {
    const { dir, db } = workspace();
    const server = await startServer([trustlist()], db);
    for (const file of [db, `${db}-wal`, `${db}-shm`]) expect(mode(file), file).toBe("600");
    const backup = join(dir, "backup.db");
    expect(cli(db, "backup", backup).code).toBe(0);
    expect(mode(backup)).toBe("600");
    const exported = join(dir, "export.jsonl");
    expect(cli(db, "export", "--out", exported).code).toBe(0);
    expect(mode(exported)).toBe("600");
    // An export written over an existing world-readable file leaves it owner-only too.
    const overwritten = join(dir, "old-export.jsonl");
    writeFileSync(overwritten, "old\n", { mode: 0o644 });
    expect(cli(db, "export", "--out", overwritten).code).toBe(0);
    expect(mode(overwritten)).toBe("600");
    expect(await server.stop()).toBe(0);

    const migrated = join(dir, "data", "migrated.db");
    expect(cli(migrated, "migrate").code).toBe(0);
    expect(mode(migrated)).toBe("600");
    expect(mode(join(dir, "data"))).toBe("700");
    const file = join(dir, "in.jsonl");
    writeFileSync(file, JSON.stringify({ type: "account", name: "guild", tier: "pro" }) + "\n");
    const imported = join(dir, "imported.db");
    expect(cli(imported, "import", file).code).toBe(0);
    expect(mode(imported)).toBe("600");

    // A database an earlier version left world-readable: the next open makes it, and the WAL
    // and shared-memory files SQLite derives from it, owner-only.
    chmodSync(migrated, 0o644);
    const again = await startServer([trustlist()], migrated);
    for (const f of [migrated, `${migrated}-wal`, `${migrated}-shm`]) expect(mode(f), f).toBe("600");
    expect(await again.stop()).toBe(0);
  }, 30_000);
});
