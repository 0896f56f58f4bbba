// The shipped deployment recipes, run rather than read: the systemd unit's ExecStart and the
// container's CMD, HEALTHCHECK and ENV, each taken from its file, with the install paths and port
// swapped for a temporary folder and a free port, run as a real process on the compiled binary.
// (No container engine or systemd here: this checks the command lines the recipes run.)
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { baseUrlWarning, postgresConnectionsWarning } from "../../src/cli/serve";
import { ConfigError, loadConfig } from "../../src/config";
import { readStderrUntil, trustlist, workspace } from "../cli-helpers";

const ROOT = join(import.meta.dir, "..", "..");
const DEPLOY = join(ROOT, "deploy");
let binary = "";

beforeAll(() => {
  binary = trustlist();
}, 120_000);

async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/** `Key=value` lines of a systemd unit, or `KEY value` lines of a Containerfile, by key. */
function directives(text: string, pattern: RegExp): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const line of text.split("\n")) {
    const match = line.match(pattern);
    if (match) found.set(match[1]!, [...(found.get(match[1]!) ?? []), match[2]!.trim()]);
  }
  return found;
}

/**
 * Runs a recipe's command line until /healthz answers, then stops it with `signal`. Its first start
 * writes the admin key to the recipe's `--admin-key-file`: a new file of mode 0600 holding a working
 * key, while stdout (the JSON log) and stderr (the journal, the container log) never hold it.
 */
async function runRecipe(argv: string[], env: Record<string, string>, signal: NodeJS.Signals, whileRunning: (base: string) => Promise<void>): Promise<string> {
  const keyFile = argv[argv.indexOf("--admin-key-file") + 1]!;
  expect(argv).toContain("--admin-key-file");
  const proc = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  const stdout = new Response(proc.stdout).text();
  const { text, exited } = await readStderrUntil(proc, (t) => /listening on http:\/\/\S+:(\d+)/.test(t) && /First start/.test(t));
  if (exited) throw new Error(`exited: ${text}`);
  const port = text.match(/listening on http:\/\/\S+:(\d+)/)![1];
  const base = `http://127.0.0.1:${port}`;
  try {
    expect(text).toContain(`admin key is in ${keyFile}`);
    expect((statSync(keyFile).mode & 0o777).toString(8)).toBe("600");
    const key = readFileSync(keyFile, "utf8").trim();
    expect(key).toMatch(/^tl_live_[A-Za-z0-9]{32}$/);
    const keys = await fetch(`${base}/v1/admin/keys`, { headers: { authorization: `Bearer ${key}` } });
    expect(keys.status).toBe(200);
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    await whileRunning(base);
  } finally {
    proc.kill(signal);
  }
  expect(await proc.exited).toBe(0);
  const stderr = text + (await readStderrUntil(proc, () => false)).text;
  const logged = (await stdout) + stderr;
  expect(logged).toContain('"msg":"listening"');
  expect(logged).not.toMatch(/tl_live_/);
  return stderr;
}

describe("deployment recipes", () => {
  test("the systemd unit's ExecStart serves, answers /healthz, and exits 0 on its KillSignal", async () => {
    const unit = readFileSync(join(DEPLOY, "trustlist.service"), "utf8");
    const settings = directives(unit, /^(\w+)=(.*)$/);
    const { dir: state } = workspace("trustlist-unit-");
    const port = String(await freePort());
    const local = (value: string) => value.replaceAll("/usr/local/bin/trustlist", binary).replaceAll("/var/lib/trustlist", state).replace(/\b8080\b/, port);
    const argv = local(settings.get("ExecStart")![0]!).split(/\s+/);
    expect(argv.slice(1, 2)).toEqual(["serve"]);
    const env = Object.fromEntries((settings.get("Environment") ?? []).map((e) => e.split("=", 2) as [string, string]));
    const signal = (settings.get("KillSignal")?.[0] ?? "SIGTERM") as NodeJS.Signals;
    // The one value the operator fills: the public address, so links and the console's origin are right.
    expect(env.TRUSTLIST_BASE_URL).toMatch(/^https:\/\//);
    const stderr = await runRecipe(argv, env, signal, async () => {
      const db = argv[argv.indexOf("--db") + 1]!;
      expect(db.startsWith(state)).toBe(true);
      expect((statSync(db).mode & 0o777).toString(8)).toBe("600");
    });
    expect(stderr).not.toContain("--base-url");
  }, 60_000);

  test("the Containerfile's CMD listens on every interface, passes its HEALTHCHECK, and exits 0 on its STOPSIGNAL", async () => {
    const recipe = readFileSync(join(DEPLOY, "Containerfile"), "utf8");
    const lines = directives(recipe, /^([A-Z]+)\s+(.*)$/);
    const { dir: volume } = workspace("trustlist-volume-");
    expect(lines.get("VOLUME")).toEqual(["/data"]);
    const port = String(await freePort());
    const local = (value: string) => value.replaceAll("/usr/local/bin/trustlist", binary).replaceAll("/data", volume).replace(/\b8080\b/, port);
    const argv = (JSON.parse(lines.get("CMD")!.at(-1)!) as string[]).map(local);
    expect(argv.slice(1, 4)).toEqual(["serve", "--host", "0.0.0.0"]);
    const env = Object.fromEntries((lines.get("ENV") ?? []).map((e) => local(e).split("=", 2) as [string, string]));
    const healthcheck = local(lines.get("HEALTHCHECK")![0]!.replace(/^.*?\bCMD\s+/, ""));
    const signal = (lines.get("STOPSIGNAL")?.[0] ?? "SIGTERM") as NodeJS.Signals;
    // Without TRUSTLIST_BASE_URL (`run -e` or compose.yaml gives it), a server on every interface says so at start.
    expect(env.TRUSTLIST_BASE_URL).toBeUndefined();
    const stderr = await runRecipe(argv, env, signal, async () => {
      const probe = Bun.spawnSync(["sh", "-c", healthcheck], { stdout: "pipe", stderr: "pipe" });
      expect(probe.exitCode, probe.stderr.toString()).toBe(0);
      // `podman exec trustlist trustlist keys list`: the image's ENV finds the database in the volume.
      const keys = Bun.spawnSync([binary, "keys", "list", "--json"], { env: { ...process.env, ...env }, cwd: volume, stdout: "pipe", stderr: "pipe" });
      expect(keys.exitCode, keys.stderr.toString()).toBe(0);
      expect(JSON.parse(keys.stdout.toString()).data).toHaveLength(1);
    });
    expect((statSync(join(volume, "trustlist.db")).mode & 0o777).toString(8)).toBe("600");
    expect(stderr).toContain("warning: --base-url (TRUSTLIST_BASE_URL) is not set");
  }, 60_000);

  test("the README quickstart's one-liner captures the bot's key", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const line = (start: string) => readme.split("\n").find((l) => l.startsWith(start))!;
    const script = [line("./dist/trustlist accounts create"), line("BOT_KEY=$("), 'printf %s "$BOT_KEY"'].join("\n").replaceAll("./dist/trustlist", binary);
    const { dir } = workspace("trustlist-quickstart-");
    expect(Bun.spawnSync([binary, "migrate"], { cwd: dir }).exitCode).toBe(0);
    const shell = Bun.spawnSync(["sh", "-c", script], { cwd: dir, stdout: "pipe", stderr: "pipe" });
    expect(shell.exitCode, shell.stderr.toString()).toBe(0);
    expect(shell.stdout.toString().split("\n").at(-1)).toMatch(/^tl_live_[A-Za-z0-9]{32}$/);
  }, 30_000);
});

describe("the recipes as written", () => {
  const read = (name: string) => readFileSync(join(ROOT, name), "utf8");

  test("the Containerfile builds the binary inside the image, for the image's own platform", () => {
    const recipe = read("deploy/Containerfile");
    const stages = recipe.split("\n").filter((l) => l.startsWith("FROM "));
    expect(stages).toHaveLength(2);
    expect(stages[0]).toMatch(/ AS build$/);
    expect(recipe).toMatch(/^RUN make build COMMIT=\$COMMIT$/m);
    expect(recipe).toContain("COPY --from=build /src/dist/trustlist /usr/local/bin/trustlist");
    // Nothing built outside is copied in: a Mac's binary cannot end up in a Linux image.
    expect(recipe).not.toMatch(/^COPY (?!--from=build)\S*dist/m);
  });

  test(".dockerignore keeps the live database, the dependencies and build outputs out of the build context", () => {
    const ignored = read(".dockerignore").split("\n").filter((l) => l && !l.startsWith("#"));
    for (const path of ["data/", "node_modules/", ".tools/", "dist/", ".git", "*.db", "*.db-wal"]) expect(ignored).toContain(path);
    // What the build stage needs stays in.
    for (const needed of ["src", "migrations", "package.json", "bun.lock", "Makefile"]) expect(ignored.some((p) => p.replace(/\/$/, "") === needed)).toBe(false);
  });

  test("compose.yaml publishes the port on 127.0.0.1 only and asks for the public address", () => {
    const compose = read("deploy/compose.yaml");
    expect(compose).toContain('- "127.0.0.1:8080:8080"');
    expect(compose).not.toMatch(/- "?8080:8080/);
    expect(compose).toMatch(/TRUSTLIST_BASE_URL: https:\/\//);
    expect(compose).toContain("dockerfile: deploy/Containerfile");
    // The Containerfile's own instructions publish on loopback too.
    for (const line of read("deploy/Containerfile").split("\n").filter((l) => / run .* -p /.test(l))) expect(line).toContain("-p 127.0.0.1:8080:8080");
  });

  test.skipIf(Bun.which("systemd-analyze") === null)("the unit's exposure, by systemd-analyze security, is low", () => {
    const analysis = Bun.spawnSync(["systemd-analyze", "security", "--offline=yes", join(DEPLOY, "trustlist.service")], { stdout: "pipe", stderr: "pipe" });
    const overall = analysis.stdout.toString().match(/Overall exposure level for trustlist\.service: ([\d.]+)/);
    expect(overall, analysis.stderr.toString()).not.toBeNull();
    expect(Number(overall![1])).toBeLessThan(2);
  });

  test("serve warns when the base URL is unset on an address other machines reach, and only then", () => {
    const unset = { baseUrl: "http://0.0.0.0:8080", baseUrlConfigured: false };
    for (const host of ["0.0.0.0", "::", "192.168.1.20", "[::]", "trust.example.org"]) expect(baseUrlWarning({ ...unset, host }), host).toContain("TRUSTLIST_BASE_URL");
    for (const host of ["127.0.0.1", "127.0.1.1", "::1", "[::1]", "localhost"]) expect(baseUrlWarning({ ...unset, host }), host).toBeNull();
    expect(baseUrlWarning({ host: "0.0.0.0", baseUrl: "https://trust.example.org", baseUrlConfigured: true })).toBeNull();
  });

  test("--postgres-connections: 10 by default, 2 to 100 from the flag or its variable, a bad value blamed on its source; a SQLite server warns it ignores it", () => {
    expect(loadConfig({}, {}).postgresConnections).toBe(10);
    expect(loadConfig({ "postgres-connections": "4" }, {}).postgresConnections).toBe(4);
    expect(loadConfig({}, { TRUSTLIST_POSTGRES_CONNECTIONS: "25" }).postgresConnections).toBe(25);
    expect(loadConfig({ "postgres-connections": "2" }, {}).postgresConnections).toBe(2);
    expect(() => loadConfig({ "postgres-connections": "1" }, {})).toThrow("--postgres-connections");
    expect(() => loadConfig({}, { TRUSTLIST_POSTGRES_CONNECTIONS: "101" })).toThrow("TRUSTLIST_POSTGRES_CONNECTIONS");
    expect(() => loadConfig({ "postgres-connections": "many" }, {})).toThrow(ConfigError);
    const onSqlite = loadConfig({ "postgres-connections": "4", db: "./data/t.db" }, {});
    expect(postgresConnectionsWarning(onSqlite)).toContain("ignores it");
    expect(postgresConnectionsWarning(loadConfig({ db: "./data/t.db" }, {}))).toBeNull();
    expect(postgresConnectionsWarning(loadConfig({ "postgres-connections": "4", db: "postgres://db.internal/trustlist" }, {}))).toBeNull();
  });
});
