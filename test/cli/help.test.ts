// The command line reads like its help says: each command's own help (flags, defaults, the
// environment variable of each, an example), global flags anywhere, a suggestion for a typo, and
// a bad value blamed on the flag or variable that gave it.
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import packageJson from "../../package.json" with { type: "json" };
import { cliJson, migratedWorkspace, run } from "../cli-helpers";

const COMMANDS: Array<{ words: string[]; flags: string[] }> = [
  { words: ["serve"], flags: ["--port", "--host", "--base-url", "--trust-proxy", "--access-log", "--db"] },
  { words: ["migrate"], flags: ["--db", "--json"] },
  { words: ["accounts", "create"], flags: ["--name", "--tier", "--daily-quota"] },
  { words: ["accounts", "update"], flags: ["--tier", "--daily-quota", "--suspend", "--resume"] },
  { words: ["accounts", "list"], flags: ["--db", "--json"] },
  { words: ["keys", "create"], flags: ["--account", "--scope", "--rate-tier", "--burst", "--name"] },
  { words: ["keys", "list"], flags: ["--account"] },
  { words: ["keys", "revoke"], flags: ["--db"] },
  { words: ["keys", "rotate"], flags: ["--db"] },
  { words: ["blacklist", "add"], flags: ["--provider", "--id", "--severity", "--reason-code", "--scope", "--vertical", "--summary", "--expires-at", "--appealable", "--no-appealable", "--username"] },
  { words: ["blacklist", "overturn"], flags: ["--reason"] },
  { words: ["import"], flags: ["--db"] },
  { words: ["export"], flags: ["--out"] },
  { words: ["backup"], flags: ["--db"] },
];

describe("help", () => {
  test("each command has its own help, the same from 'help CMD' and 'CMD --help'", () => {
    const global = run(["help"]);
    expect(global.code).toBe(0);
    for (const { words, flags } of COMMANDS) {
      const name = words.join(" ");
      const viaHelp = run(["help", ...words]);
      const viaFlag = run([...words, "--help"]);
      expect(viaHelp.code, name).toBe(0);
      expect(viaFlag.code, name).toBe(0);
      expect(viaFlag.stdout, name).toBe(viaHelp.stdout);
      expect(viaHelp.stdout, name).not.toBe(global.stdout);
      expect(viaHelp.stdout, name).toStartWith(`trustlist ${name}: `);
      for (const flag of flags) expect(viaHelp.stdout, `${name} ${flag}`).toContain(flag);
      expect(viaHelp.stdout, name).toContain("env: TRUSTLIST_DB");
      expect(viaHelp.stdout, name).toContain("default: ./data/trustlist.db");
      expect(viaHelp.stdout, name).toMatch(/Examples?:\n  trustlist /);
    }
  }, 60_000);

  test("serve's help names each setting's environment variable and default", () => {
    const help = run(["serve", "--help"]).stdout;
    for (const [flag, env, fallback] of [
      ["--port", "TRUSTLIST_PORT", "8080"],
      ["--host", "TRUSTLIST_HOST", "127.0.0.1"],
      ["--base-url", "TRUSTLIST_BASE_URL", "http://HOST:PORT"],
      ["--trust-proxy", "TRUSTLIST_TRUST_PROXY", "off"],
      ["--access-log", "TRUSTLIST_ACCESS_LOG", "on"],
    ]) {
      const line = help.split("\n").find((l) => l.trimStart().startsWith(flag!))!;
      expect(line, flag).toContain(`env: ${env}`);
      expect(line, flag).toContain(`default: ${fallback}`);
    }
    const keys = run(["keys", "create", "-h"]).stdout;
    expect(keys.split("\n").find((l) => l.trimStart().startsWith("--scope"))).toContain("default: read");
    expect(keys).not.toContain("--port");
  }, 60_000);

  test("a group alone lists its sub-commands; --version is package.json's, with the checkout's commit", () => {
    const group = run(["keys", "--help"]);
    expect(group.code).toBe(0);
    for (const sub of ["keys create", "keys list", "keys revoke", "keys rotate"]) expect(group.stdout).toContain(sub);
    expect(group.stdout).not.toContain("accounts create");
    expect(run(["keys"]).code).toBe(2);
    const version = run(["--version"]);
    expect(version.code).toBe(0);
    const head = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"]).stdout.toString().trim();
    expect(version.stdout.trim()).toBe(`trustlist ${packageJson.version} (commit ${head})`);
  }, 60_000);
});

describe("flags", () => {
  test("--db and --json may stand anywhere on the line", () => {
    const { db } = migratedWorkspace();
    cliJson(db, "accounts", "create", "--name", "guild", "--tier", "pro");
    for (const args of [
      ["accounts", "--db", db, "list", "--json"],
      ["--db", db, "accounts", "list", "--json"],
      ["--json", "accounts", "--db", db, "list"],
      ["accounts", "list", `--db=${db}`, "--json"],
    ]) {
      const result = run(args);
      expect(result.code, args.join(" ")).toBe(0);
      expect(JSON.parse(result.stdout).data.map((a: { name: string }) => a.name), args.join(" ")).toEqual(["guild"]);
    }
  }, 60_000);

  test("an unknown flag suggests the nearest one", () => {
    const { db } = migratedWorkspace();
    for (const [args, hint] of [
      [["accounts", "list", "--dbb", db], "did you mean --db?"],
      [["keys", "create", "--acount", "guild", "--db", db], "did you mean --account?"],
      [["serve", "--prot", "9999", "--db", db], "did you mean --port?"],
      [["blacklist", "add", "--apealable", "--db", db], "did you mean --appealable?"],
    ] as const) {
      const result = run([...args]);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr, args.join(" ")).toContain(hint);
      expect(result.stderr.trim().split("\n"), args.join(" ")).toHaveLength(1);
    }
    expect(run(["keys", "list", "--zzzzzz", "--db", db]).stderr).not.toContain("did you mean");
  }, 60_000);

  test("a database URL is never taken for a file path: PostgreSQL is connected to (its password never shown), others refused; nothing created", () => {
    const { dir } = migratedWorkspace();
    for (const [args, env, code, hint] of [
      [["serve", "--db", "postgres://user:secret@127.0.0.1:1/trustlist", "--port", "0"], {}, 1, "cannot connect to postgres://user:***@127.0.0.1:1/trustlist"],
      [["keys", "list"], { TRUSTLIST_DB: "postgresql://user:secret@127.0.0.1:1/trustlist" }, 1, "cannot connect to postgresql://user:***@127.0.0.1:1/trustlist"],
      [["accounts", "list", "--db", "mysql://db.example/trustlist"], {}, 2, "'mysql://' is not a database this build opens"],
    ] as const) {
      const result = run([...args], { env: { ...env }, cwd: dir });
      expect(result.code, args.join(" ")).toBe(code);
      expect(result.stderr, args.join(" ")).toContain(hint);
      expect(result.stderr).not.toContain("secret");
    }
    expect(readdirSync(dir).filter((name) => name.startsWith("postgres") || name.startsWith("mysql"))).toEqual([]);
  }, 60_000);

  test("a bad value from the environment names the variable, one from a flag names the flag", () => {
    const { db } = migratedWorkspace();
    const fromEnv = run(["serve", "--db", db], { env: { TRUSTLIST_PORT: "abc" } });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain("TRUSTLIST_PORT: 'abc' is not a whole number");
    expect(fromEnv.stderr).not.toContain("--port");
    const fromFlag = run(["serve", "--db", db, "--port", "abc"], { env: { TRUSTLIST_PORT: "8080" } });
    expect(fromFlag.code).toBe(2);
    expect(fromFlag.stderr).toContain("--port: 'abc'");
    for (const [variable, value] of [
      ["TRUSTLIST_HOST", "not a host!"],
      ["TRUSTLIST_BASE_URL", "ftp://example.org"],
      ["TRUSTLIST_ACCESS_LOG", "sometimes"],
    ]) {
      const result = run(["serve", "--db", db, "--port", "0"], { env: { [variable!]: value! } });
      expect(result.code, variable).toBe(2);
      expect(result.stderr, variable).toContain(`${variable}: `);
    }
  }, 60_000);
});
