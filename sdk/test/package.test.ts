// The package as a consumer installs it: built by the build script, imported through its
// `exports`, carrying its declarations, with openapi-fetch as its only import, and working
// against a live server. Needs sdk/node_modules (`make sdk` installs it).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { buildSdk } from "../scripts/build";
import { liveServer } from "./live";

const SDK = join(import.meta.dir, "..");
// Inside the package, so the bundle's `import "openapi-fetch"` resolves as it will for a consumer.
const out = join(SDK, `.test-dist-${process.pid}`);
const live = liveServer();

beforeAll(async () => {
  if (!existsSync(join(SDK, "node_modules", ".bin", "tsc"))) throw new Error("sdk/node_modules is missing: run `make sdk` first");
  await buildSdk(out);
}, 60_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

test("package.json exports an ESM entry with types, and depends on openapi-fetch alone", () => {
  const pkg = JSON.parse(readFileSync(join(SDK, "package.json"), "utf8"));
  expect(pkg).toMatchObject({ name: "@trustlist/sdk", type: "module" });
  expect(pkg.exports["."]).toMatchObject({ types: "./dist/index.d.ts", import: "./dist/index.js" });
  expect(Object.keys(pkg.dependencies)).toEqual(["openapi-fetch"]);
});

test("the bundle imports nothing but openapi-fetch, and the declarations hold the typed paths", () => {
  const js = readFileSync(join(out, "index.js"), "utf8");
  const imports = [...js.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
  expect(imports).toEqual(["openapi-fetch"]);
  const dts = readFileSync(join(out, "index.d.ts"), "utf8");
  expect(dts).toContain("checkAccount(query: CheckQuery");
  expect(readFileSync(join(out, "schema.d.ts"), "utf8")).toContain('"/v1/blacklist/check": {');
});

test("a consumer on NodeNext resolution gets the types: a wrong provider does not compile", async () => {
  const consumer = join(out, "consumer.ts");
  await Bun.write(
    consumer,
    `import { createTrustlist, TrustlistError, type CheckResult } from "./index.js";
const tl = createTrustlist({ baseUrl: "http://127.0.0.1:8080" });
export const checked: Promise<CheckResult> = tl.checkAccount({ provider: "discord", id: "1" });
export const isError = (e: unknown) => e instanceof TrustlistError && e.code === "rate_limited";
// @ts-expect-error not a provider
tl.checkAccount({ provider: "myspace", id: "1" });
`,
  );
  const compilerOptions = { noEmit: true, strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", lib: ["es2022", "dom"], types: [] };
  await Bun.write(join(out, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["consumer.ts"] }));
  const tsc = Bun.spawn([join(SDK, "node_modules", ".bin", "tsc"), "-p", out], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(tsc.stdout).text(), new Response(tsc.stderr).text(), tsc.exited]);
  expect(stdout + stderr).toBe("");
  expect(code).toBe(0);
}, 60_000);

test("the built client checks an account on a live server", async () => {
  const { createTrustlist, TrustlistError } = await import(join(out, "index.js"));
  const tl = createTrustlist({ baseUrl: live.base, apiKey: live.key() });
  expect(await tl.checkAccount({ provider: "discord", id: "80351110224678912" })).toMatchObject({ banned: false });
  const error = await createTrustlist({ baseUrl: live.base, apiKey: "tl_live_nope" }).usage().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TrustlistError);
});
