// The package as a consumer installs it: built by the build script, packed with `npm pack`,
// installed by npm into a project of its own, type-checked there with `strict` for both `import`
// (ESM) and `require` (CommonJS), and run by Node in both forms against a live server. Needs
// sdk/node_modules (`make sdk` installs it): its TypeScript checks the consumer, and npm finds
// openapi-fetch in its cache.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../test/helpers";
import { buildSdk } from "../scripts/build";
import { liveServer } from "./live";

const SDK = join(import.meta.dir, "..");
const TSC = join(SDK, "node_modules", ".bin", "tsc");
const live = liveServer();
let work = "";
let consumer = "";

function sh(command: string[], cwd: string, env: Record<string, string> = {}) {
  const run = Bun.spawnSync(command, { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  return { code: run.exitCode, out: run.stdout.toString() + run.stderr.toString() };
}

// What a consumer writes: every export used the way the README shows, strict types asserted with
// expected type errors (a wrong provider, an event name that does not exist, an unnarrowed payload).
const TYPED = `
import { createTrustlist, NotFoundError, QuotaExceededError, RateLimitedError, responseMeta, TrustlistError, verifyWebhook,
  type CheckResult, type WebhookEvent, type SubscribableEvent } from "@trustlist/sdk";
const tl = createTrustlist({ baseUrl: "http://127.0.0.1:8080", apiKey: "tl_live_x", attempts: 3, deadlineMs: 20000 });
export const checked: Promise<CheckResult> = tl.checkAccount({ provider: "discord", id: "1", vertical: "roblox" }, { timeoutMs: 500 });
export const batch = tl.batchCheck([{ provider: "discord", id: "1" }], { vertical: "minecraft", attempts: 1 });
// @ts-expect-error not a provider
tl.checkAccount({ provider: "myspace", id: "1" });
// @ts-expect-error not an event
tl.createWebhook({ url: "https://example.org/hook", events: ["blacklist.exploded"] });
export const events: SubscribableEvent[] = ["blacklist.added", "creator.blacklisted"];
export async function handle(body: string, headers: Record<string, string>): Promise<string | null> {
  const event: WebhookEvent = await verifyWebhook(body, headers, "whsec_c2VjcmV0");
  // @ts-expect-error data is a union until the type is narrowed
  event.data.reason_code;
  if (event.type === "blacklist.overturned") return event.data.reason_code;
  if (event.type === "creator.blacklisted") return event.data.entry_id;
  return null;
}
export async function follow(signal: AbortSignal): Promise<number> {
  let n = 0;
  for await (const { change, cursor } of tl.followChanges({ signal, pollMs: 1000 })) n += change.seq + (cursor ? 0 : 1);
  return n;
}
export const kind = (e: unknown) =>
  e instanceof RateLimitedError ? e.retryAfter : e instanceof QuotaExceededError ? -1 : e instanceof NotFoundError ? 404 : e instanceof TrustlistError ? e.meta?.requestId : null;
export const meta = (r: CheckResult) => responseMeta(r)?.rateLimit?.remaining;
`;

// What Node runs, once as ESM and once as CommonJS: a call, its metadata, a typed error.
const RUN = (load: string) => `${load}
const tl = createTrustlist({ baseUrl: process.env.BASE, apiKey: process.env.KEY });
(async () => {
  const checked = await tl.checkAccount({ provider: "discord", id: "80351110224678912" });
  const missing = await tl.getEntry("bl_missing").catch((e) => e);
  console.log(JSON.stringify({ banned: checked.banned, remaining: responseMeta(checked).rateLimit.remaining, notFound: missing instanceof NotFoundError, base: missing instanceof TrustlistError }));
})();
`;

beforeAll(async () => {
  if (!existsSync(TSC)) throw new Error("sdk/node_modules is missing: run `make sdk` first");
  work = tempDir("trustlist-sdk-pack-");
  // The package staged with a fresh build, so the repository's own sdk/dist is left as it is.
  const stage = join(work, "stage");
  mkdirSync(stage);
  await buildSdk(join(stage, "dist"));
  cpSync(join(SDK, "package.json"), join(stage, "package.json"));
  cpSync(join(SDK, "README.md"), join(stage, "README.md"));
  const packed = sh(["npm", "pack", "--silent", "--pack-destination", work], stage);
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.out}`);
  const tarball = join(work, packed.out.trim().split("\n").pop()!);

  consumer = join(work, "consumer");
  mkdirSync(consumer);
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  const installed = sh(["npm", "install", "--prefer-offline", "--no-audit", "--no-fund", "--no-package-lock", tarball], consumer);
  if (installed.code !== 0) throw new Error(`npm install failed:\n${installed.out}`);
  writeFileSync(join(consumer, "typed.mts"), TYPED);
  // The same source as CommonJS: there `import` compiles to `require` and resolves the require entry.
  writeFileSync(join(consumer, "typed.cts"), TYPED);
  writeFileSync(join(consumer, "run.mjs"), RUN(`import { createTrustlist, NotFoundError, responseMeta, TrustlistError } from "@trustlist/sdk";`));
  writeFileSync(join(consumer, "run.cjs"), RUN(`const { createTrustlist, NotFoundError, responseMeta, TrustlistError } = require("@trustlist/sdk");`));
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

test("package.json: ESM and CommonJS entries, each with its declarations; openapi-fetch the one dependency", () => {
  const pkg = JSON.parse(readFileSync(join(SDK, "package.json"), "utf8"));
  expect(pkg).toMatchObject({ name: "@trustlist/sdk", type: "module", engines: { node: ">=20.3" } });
  expect(pkg.exports["."]).toEqual({
    import: { types: "./dist/index.d.ts", default: "./dist/index.js" },
    require: { types: "./dist/cjs/index.d.ts", default: "./dist/cjs/index.js" },
  });
  expect(Object.keys(pkg.dependencies)).toEqual(["openapi-fetch"]);
  const installed = join(consumer, "node_modules", "@trustlist", "sdk", "dist");
  expect(JSON.parse(readFileSync(join(installed, "cjs", "package.json"), "utf8"))).toEqual({ type: "commonjs" });
  const imports = [...readFileSync(join(installed, "index.js"), "utf8").matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
  expect(imports).toEqual(["openapi-fetch"]);
  expect(readFileSync(join(installed, "schema.d.ts"), "utf8")).toContain("export interface webhooks {");
});

test("a strict consumer type-checks on NodeNext, as ESM and as CommonJS; a type error is caught", () => {
  const compilerOptions = { noEmit: true, strict: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", lib: ["es2022", "dom"], types: [] };
  writeFileSync(join(consumer, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["typed.mts", "typed.cts"] }));
  const clean = sh([TSC, "-p", consumer], consumer);
  expect(clean.out).toBe("");
  expect(clean.code).toBe(0);
  // The check can fail: a wrong call in the CommonJS file is reported there.
  writeFileSync(join(consumer, "typed.cts"), readFileSync(join(consumer, "typed.cts"), "utf8") + `\ntl.checkAccount({ provider: "discord" });\n`);
  const broken = sh([TSC, "-p", consumer], consumer);
  expect(broken.code).not.toBe(0);
  expect(broken.out).toContain("typed.cts");
}, 60_000);

test(`Node runs the installed package as ESM and as CommonJS against a live server`, () => {
  const env = { BASE: live.base, KEY: live.key() };
  const node = sh(["node", "--version"], consumer);
  expect(node.out).toMatch(/^v(2\d|[3-9]\d)\./);
  for (const file of ["run.mjs", "run.cjs"]) {
    const ran = sh(["node", file], consumer, env);
    expect({ file, ...ran }).toMatchObject({ file, code: 0 });
    expect(JSON.parse(ran.out)).toMatchObject({ banned: false, notFound: true, base: true });
    expect(JSON.parse(ran.out).remaining).toBeGreaterThan(0);
  }
}, 60_000);
