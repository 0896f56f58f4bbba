// The shipped deployment recipes, run rather than read: the systemd unit's ExecStart and the
// container's CMD, HEALTHCHECK and ENV, each taken from its file, with the install paths and port
// swapped for a temporary folder and a free port, run as a real process on the compiled binary.
// (No container engine or systemd here: this checks the command lines the recipes run.)
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { buildBinary, readStderrUntil, workspace } from "../cli-helpers";

const ROOT = join(import.meta.dir, "..", "..");
const DEPLOY = join(ROOT, "deploy");
let binary = "";

beforeAll(() => {
  binary = buildBinary(workspace("trustlist-deploy-bin-").dir);
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
async function runRecipe(argv: string[], env: Record<string, string>, signal: NodeJS.Signals, whileRunning: (base: string) => Promise<void>) {
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
    await runRecipe(argv, env, signal, async () => {
      const db = argv[argv.indexOf("--db") + 1]!;
      expect(db.startsWith(state)).toBe(true);
      expect((statSync(db).mode & 0o777).toString(8)).toBe("600");
    });
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
    await runRecipe(argv, env, signal, async () => {
      const probe = Bun.spawnSync(["sh", "-c", healthcheck], { stdout: "pipe", stderr: "pipe" });
      expect(probe.exitCode, probe.stderr.toString()).toBe(0);
      // `podman exec trustlist trustlist keys list`: the image's ENV finds the database in the volume.
      const keys = Bun.spawnSync([binary, "keys", "list", "--json"], { env: { ...process.env, ...env }, cwd: volume, stdout: "pipe", stderr: "pipe" });
      expect(keys.exitCode, keys.stderr.toString()).toBe(0);
      expect(JSON.parse(keys.stdout.toString()).data).toHaveLength(1);
    });
    expect((statSync(join(volume, "trustlist.db")).mode & 0o777).toString(8)).toBe("600");
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
