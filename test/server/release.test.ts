// `make release`: the binary for five platforms, cross-compiled by Bun (each target's runtime comes
// from the npm registry on first use), each of the right kind by `file`, their sums in SHA256SUMS,
// and the one this machine runs names the version and the commit it was built from.
import { beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import packageJson from "../../package.json" with { type: "json" };
import { backend, describeSqliteOnly } from "../backend";

const ROOT = join(import.meta.dir, "..", "..");
const RELEASE = join(ROOT, "dist", "release");
let made: { exitCode: number; output: string };

// The binaries do not depend on the database: built and checked once, in the SQLite run.
const onSqlite = backend === "sqlite";

beforeAll(() => {
  if (!onSqlite) return;
  const run = Bun.spawnSync(["make", "release"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  made = { exitCode: run.exitCode, output: run.stdout.toString() + run.stderr.toString() };
}, 300_000);

const KINDS: Record<string, RegExp> = {
  "trustlist-linux-x64": /ELF 64-bit LSB executable, x86-64/,
  "trustlist-linux-arm64": /ELF 64-bit LSB executable, ARM aarch64/,
  "trustlist-darwin-x64": /Mach-O 64-bit x86_64 executable/,
  "trustlist-darwin-arm64": /Mach-O 64-bit arm64 executable/,
  "trustlist-windows-x64.exe": /PE32\+ executable \(console\) x86-64, for MS Windows/,
};

describeSqliteOnly("make release", () => {
  test("builds five binaries of the right kinds and nothing else beside SHA256SUMS", () => {
    expect(made.exitCode, made.output).toBe(0);
    expect(readdirSync(RELEASE).sort()).toEqual([...Object.keys(KINDS), "SHA256SUMS"].sort());
    for (const [name, kind] of Object.entries(KINDS)) {
      const described = Bun.spawnSync(["file", "-b", join(RELEASE, name)]).stdout.toString();
      expect(described, name).toMatch(kind);
    }
  });

  test("SHA256SUMS holds each file's sum, in the format sha256sum -c reads", async () => {
    const lines = readFileSync(join(RELEASE, "SHA256SUMS"), "utf8").trim().split("\n");
    expect(lines).toHaveLength(5);
    for (const line of lines) {
      const [sum, name] = line.split(/ {2}/);
      expect(Object.keys(KINDS)).toContain(name!);
      const actual = new Bun.CryptoHasher("sha256").update(await Bun.file(join(RELEASE, name!)).arrayBuffer()).digest("hex");
      expect(sum).toBe(actual);
    }
    expect(Bun.spawnSync(["sha256sum", "-c", "SHA256SUMS"], { cwd: RELEASE }).exitCode).toBe(0);
  });

  test.skipIf(process.platform !== "linux" || process.arch !== "x64")("the binary for this machine names the version and the commit it was built from", () => {
    const head = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: ROOT }).stdout.toString().trim();
    const version = Bun.spawnSync([join(RELEASE, "trustlist-linux-x64"), "--version"], { cwd: "/" });
    expect(version.stdout.toString().trim()).toBe(`trustlist ${packageJson.version} (commit ${head})`);
  });
});
