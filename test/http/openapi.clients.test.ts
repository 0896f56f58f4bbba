// /openapi.json as a client author meets it: Redocly's recommended rules pass, OpenAPI 3.1 types
// (no `nullable`, no coercion branches), readable and unique operationIds, named component schemas
// behind every JSON body, keyless routes marked keyless, `servers` from --base-url, the request-id
// and rate-limit headers on every response, examples that validate and agree with docs/api.md, "Blacklist rules",
// and openapi-typescript types with named schemas.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isPublicPath, isSessionPath } from "../../src/http/conventions";
import { EVIDENCE_TYPES } from "../../src/domain";
import { createTestApp, tempDir, type TestApp } from "../helpers";

const ROOT = join(import.meta.dir, "..", "..");
const BASE_URL = "https://trust.example.org";

let t: TestApp;
let doc: any;
let dir: string;
let docPath: string;
beforeAll(async () => {
  t = await createTestApp({ config: { baseUrl: BASE_URL } });
  // Fetched as a client would, through the app's own handler.
  const res = await t.app.handle(new Request("http://localhost/openapi.json"));
  expect(res.status).toBe(200);
  doc = await res.json();
  dir = tempDir("trustlist-openapi-");
  docPath = join(dir, "openapi.json");
  writeFileSync(docPath, JSON.stringify(doc, null, 2));
});
afterAll(() => t.close());

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];
function* operations(): Generator<[string, string, any]> {
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const method of METHODS) if (item[method]) yield [path, method, item[method]];
  }
}
/** A local `$ref`, followed. */
const resolve = (node: any) => (node?.$ref ? node.$ref.slice(2).split("/").reduce((at: any, key: string) => at[key], doc) : node);
/** Every object in the document with its JSON pointer. */
function* walk(node: unknown, pointer = ""): Generator<[any, string]> {
  if (Array.isArray(node)) for (const [i, item] of node.entries()) yield* walk(item, `${pointer}/${i}`);
  else if (node && typeof node === "object") {
    yield [node, pointer];
    for (const [key, value] of Object.entries(node)) yield* walk(value, `${pointer}/${key}`);
  }
}
const documentedRoutes = () => t.app.routes.filter((r: any) => r.hooks?.detail?.hide !== true);

/** Redocly's recommended rules, with its three example checks raised from warnings to errors. */
async function redoclyLint(file: string): Promise<{ totals: { errors: number; warnings: number }; problems: any[] }> {
  const config = join(dir, "redocly.yaml");
  writeFileSync(
    config,
    "extends:\n  - recommended\nrules:\n  no-invalid-schema-examples: error\n  no-invalid-media-type-examples: error\n  no-invalid-parameter-examples: error\n",
  );
  const lint = Bun.spawn([join(ROOT, "node_modules/.bin/redocly"), "lint", file, "--config", config, "--format=json"], {
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr] = await Promise.all([new Response(lint.stdout).text(), new Response(lint.stderr).text(), lint.exited]);
  const start = stdout.indexOf("{");
  if (start < 0) throw new Error(`redocly printed no report: ${stderr}`);
  return JSON.parse(stdout.slice(start));
}

describe("Redocly lint", () => {
  test("no errors under the recommended rules; examples validate against their schemas", async () => {
    const report = await redoclyLint(docPath);
    const errors = report.problems.filter((p) => p.severity === "error").map((p) => `${p.ruleId} ${p.location[0].pointer}: ${p.message}`);
    expect(errors).toEqual([]);
    // The warnings left, each on purpose: the license is the operator's to state, and health and
    // the badge have no 4xx answer (the badge is always 200, an unknown handle gets a neutral one).
    const warnings = report.problems.filter((p) => p.severity === "warn").map((p) => `${p.ruleId} ${p.location[0].pointer}`);
    expect(warnings.sort()).toEqual([
      "info-license #/info",
      "operation-4xx-response #/paths/~1badge~1{handle}/get/responses",
      "operation-4xx-response #/paths/~1healthz/get/responses",
    ]);
  }, 60_000);

  test("the lint does check examples: one that contradicts its schema is an error", async () => {
    const broken = structuredClone(doc);
    broken.components.schemas.CheckResult.examples.push({ provider: "discord", id: "1", banned: "yes", checked_at: "2026-11-21T10:00:00.000Z" });
    const file = join(dir, "broken.json");
    writeFileSync(file, JSON.stringify(broken));
    const report = await redoclyLint(file);
    expect(report.problems.filter((p) => p.severity === "error").map((p) => p.ruleId)).toEqual(["no-invalid-schema-examples"]);
  }, 60_000);
});

test("OpenAPI 3.1 types: no nullable keyword, no query-coercion branches, integers are integers", () => {
  expect(doc.openapi).toStartWith("3.1.");
  const nullable = [...walk(doc)].filter(([node]) => "nullable" in node).map(([, at]) => at);
  expect(nullable).toEqual([]);
  const coercion = [...walk(doc)]
    .filter(([node]) => (node.anyOf ?? node.oneOf ?? []).some((s: any) => s?.type === "string" && ["integer", "numeric", "boolean"].includes(s.format)))
    .map(([, at]) => at);
  expect(coercion).toEqual([]);
  const limit = doc.paths["/v1/blacklist"].get.parameters.find((p: any) => p.name === "limit");
  expect(limit.schema).toEqual({ type: "integer", minimum: 1, maximum: 100, default: 50, description: "Page size, 1-100." });
  expect(doc.components.schemas.BlacklistEntry.properties.summary.type).toEqual(["string", "null"]);
  expect(doc.components.schemas.CreatorProfile.properties.trust_score.type).toBe("integer");
});

test("the coercing query forms still coerce: limit=5 in a query string is accepted, limit=abc is 422", async () => {
  const { key } = await t.account({ tier: "pro" });
  expect((await t.call("GET", "/v1/blacklist?limit=5", { key })).status).toBe(200);
  expect((await t.call("GET", "/v1/blacklist?limit=abc", { key })).status).toBe(422);
});

test("every documented route names a readable, unique operationId in its route options", () => {
  const seen = new Map<string, string>();
  for (const route of documentedRoutes()) {
    const name = `${route.method} ${route.path}`;
    const operationId = (route.hooks as any)?.detail?.operationId;
    expect(operationId, `${name}: add detail.operationId to the route options (a camelCase verb and noun, e.g. listEntries)`).toBeString();
    expect(operationId, name).toMatch(/^[a-z][A-Za-z]+$/);
    expect(seen.get(operationId), `${name} repeats the operationId of ${seen.get(operationId)}`).toBeUndefined();
    seen.set(operationId, name);
    expect(doc.paths[route.path.replace(/:(\w+)/g, "{$1}")][route.method.toLowerCase()].operationId).toBe(operationId);
  }
  // Names the SDK and the bot call; renaming one breaks their code.
  expect(doc.paths["/v1/blacklist/check"].get.operationId).toBe("checkAccount");
  expect(doc.paths["/v1/blacklist"].get.operationId).toBe("listEntries");
  expect(doc.paths["/v1/blacklist/entries/{id}"].get.operationId).toBe("getEntry");
  expect(doc.paths["/v1/blacklist/check/batch"].post.operationId).toBe("batchCheckAccounts");
  expect(doc.paths["/v1/public/blacklist/check"].get.operationId).toBe("searchPublic");
  expect(doc.paths["/v1/public/trust/{handle}"].get.operationId).toBe("getPublicTrust");
});

test("every JSON request and response body is a named component schema", () => {
  // The bodies that are not JSON: Prometheus text, the SVG badge, and the sign-in link's page for link previewers.
  const NOT_JSON = new Set(["get /metrics 200 text/plain", "get /badge/{handle} 200 image/svg+xml", "get /auth/magic 200 text/html", "get /auth/magic 302 text/html"]);
  // Evidence files: uploaded as themselves, and served as themselves to staff and (when public) keyed callers.
  for (const type of EVIDENCE_TYPES) {
    for (const name of ["post /v1/reports/{id}/evidence body", "get /v1/moderation/evidence/{evd} 200", "get /v1/blacklist/entries/{id}/evidence/{evd} 200"]) NOT_JSON.add(`${name} ${type}`);
  }
  const inline: string[] = [];
  const other: string[] = [];
  for (const [path, method, operation] of operations()) {
    const bodies: Array<[string, any]> = Object.entries(operation.requestBody?.content ?? {}).map(([type, media]) => [`${method} ${path} body ${type}`, media]);
    for (const [status, response] of Object.entries<any>(operation.responses)) {
      for (const [type, media] of Object.entries<any>(resolve(response).content ?? {})) bodies.push([`${method} ${path} ${status} ${type}`, media]);
    }
    for (const [name, media] of bodies) {
      if (!name.endsWith(" application/json")) {
        if (!NOT_JSON.has(name)) other.push(name);
        continue;
      }
      const ref: string | undefined = media.schema?.$ref;
      if (!ref?.startsWith("#/components/schemas/") || !resolve(media.schema)) inline.push(name);
    }
  }
  expect(inline).toEqual([]);
  expect(other).toEqual([]);
  for (const name of ["CheckResult", "BlacklistEntry", "BlacklistEntryPage", "BatchResponse", "ErrorEnvelope", "PublicCheckResult", "CreatorProfile", "ShieldsEndpoint"]) {
    expect(doc.components.schemas[name], name).toBeDefined();
  }
  // Every $ref in the document points at something.
  const dangling = [...walk(doc)].filter(([node]) => typeof node.$ref === "string" && resolve(node) === undefined).map(([node]) => node.$ref);
  expect(dangling).toEqual([]);
});

test("the badge is image/svg+xml, or shields.io endpoint JSON for a .json handle", () => {
  const content = doc.paths["/badge/{handle}"].get.responses["200"].content;
  expect(Object.keys(content).sort()).toEqual(["application/json", "image/svg+xml"]);
  expect(content["image/svg+xml"].schema.type).toBe("string");
  expect(content["application/json"].schema.$ref).toBe("#/components/schemas/ShieldsEndpoint");
});

test("keyless routes say so with security: []; session routes name the cookie; keyed routes keep the bearer requirement; key-or-session routes name both", () => {
  expect(doc.security).toEqual([{ apiKey: [] }]);
  for (const [path, method, operation] of operations()) {
    const keyless = (isPublicPath(path) && !path.endsWith("/submit")) || path === "/healthz" || path === "/auth/magic";
    const session = isSessionPath(path) || path === "/auth/logout" || path === "/v1/courses/{slug}/submit";
    // Staff and report routes take either an admin (or reporting) key or a signed-in session.
    const either = operation.security?.length === 2;
    if (keyless) expect(operation.security, `${method} ${path}`).toEqual([]);
    else if (either) expect(operation.security, `${method} ${path}`).toEqual([{ apiKey: [] }, { session: [] }]);
    else if (session) expect(operation.security, `${method} ${path}`).toEqual([{ session: [] }]);
    else expect(operation.security, `${method} ${path}`).toBeUndefined();
  }
});

test("servers names the configured --base-url", () => {
  expect(doc.servers[0].url).toBe(BASE_URL);
});

test("optional bodies are documented as optional", () => {
  expect(doc.paths["/v1/partner/blacklist/{id}/overturn"].post.requestBody.required).toBe(false);
  expect(doc.paths["/v1/partner/blacklist"].post.requestBody.required).toBe(true);
});

describe("response headers", () => {
  const EVERY = ["X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"];

  test("every response documents the request-id and rate-limit headers; a 429 also Retry-After", () => {
    for (const name of [...EVERY, "Retry-After"]) expect(doc.components.headers[name]?.schema, name).toBeDefined();
    for (const [path, method, operation] of operations()) {
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        const headers = resolve(response).headers ?? {};
        const expected = status === "429" ? [...EVERY, "Retry-After"] : EVERY;
        for (const name of expected) {
          expect(resolve(headers[name])?.schema, `${method} ${path} ${status} ${name}`).toBeDefined();
        }
      }
    }
  });

  test("the documented headers are the ones the server sends", async () => {
    const { key } = await t.account({ tier: "pro" });
    const answers = [
      await t.call("GET", "/v1/blacklist/check?provider=discord&id=1", { key }),
      await t.call("GET", "/v1/blacklist/check?provider=discord&id=1"),
      await t.call("GET", "/v1/public/blacklist/check?q=nobody"),
      await t.call("GET", "/healthz"),
      await t.call("GET", "/badge/nobody.svg"),
    ];
    for (const res of answers) {
      for (const name of EVERY) expect(res.headers.get(name), `${res.status} ${name}`).toBeString();
    }
  });

  test("each error status documents the envelope and the codes it can carry", () => {
    const tooMany = doc.components.responses.TooManyRequests;
    expect(tooMany.description).toContain("`rate_limited`");
    expect(tooMany.description).toContain("`quota_exceeded`");
    expect(tooMany.content["application/json"].schema.$ref).toBe("#/components/schemas/ErrorEnvelope");
    expect(Object.keys(tooMany.content["application/json"].examples).sort()).toEqual(["quota_exceeded", "rate_limited"]);
    for (const [path, method, operation] of operations()) {
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        if (Number(status) < 400 || path === "/healthz") continue;
        const resolved = resolve(response);
        expect(resolved.description, `${method} ${path} ${status}`).toMatch(/`error\.code` is `[a-z_]+`/);
        for (const example of Object.values<any>(resolved.content["application/json"].examples)) {
          expect(resolved.description).toContain(`\`${example.value.error.code}\``);
        }
      }
    }
  });
});

test("examples agree with the rules: banned only with severity ban", () => {
  const examples: any[] = [];
  for (const [node] of walk(doc)) {
    if (Array.isArray(node.examples)) examples.push(...node.examples);
    else if (node.examples && typeof node.examples === "object") examples.push(...Object.values<any>(node.examples).map((e) => e.value));
    if ("example" in node) examples.push(node.example);
  }
  const hits = [...walk(examples)].map(([node]) => node).filter((node) => typeof node.banned === "boolean");
  expect(hits.length).toBeGreaterThan(2);
  for (const hit of hits) {
    if (hit.banned) expect(hit.severity ?? "ban", JSON.stringify(hit)).toBe("ban");
    if (hit.severity && hit.severity !== "ban") expect(hit.banned, JSON.stringify(hit)).toBe(false);
  }
});

test("the document does not depend on which requests were served before it", async () => {
  const other = await createTestApp({ config: { baseUrl: BASE_URL } });
  try {
    const { key } = await other.account({ tier: "enterprise", scope: "admin" });
    for (const [path, method] of [["/v1/blacklist/entries/bl_x", "GET"], ["/v1/blacklist", "GET"], ["/v1/admin/accounts", "GET"], ["/v1/partner/blacklist/bl_x/overturn", "POST"]]) {
      await other.call(method!, path!, { key });
    }
    expect(await other.json("GET", "/openapi.json").then((r) => r.body)).toEqual(doc);
  } finally {
    other.close();
  }
});

/**
 * openapi-typescript 7 needs TypeScript 5's compiler API (its peer dependency); the repository's
 * own TypeScript is 7, which has none. The SDK package (sdk/) carries the pair; or name a CLI.
 */
function openapiTypescriptCli(): string | null {
  if (process.env.OPENAPI_TYPESCRIPT_CLI) return process.env.OPENAPI_TYPESCRIPT_CLI;
  for (const modules of [join(ROOT, "sdk", "node_modules"), join(ROOT, "node_modules")]) {
    const cli = join(modules, "openapi-typescript", "bin", "cli.js");
    const ts = join(modules, "typescript", "package.json");
    if (existsSync(cli) && existsSync(ts) && JSON.parse(readFileSync(ts, "utf8")).version.startsWith("5.")) return cli;
  }
  return null;
}
test("openapi-typescript generates named schemas and plain number query parameters", async () => {
  // `make test` installs the SDK's build tools first; a run without them fails rather than skips.
  const cli = openapiTypescriptCli();
  if (!cli) throw new Error("no openapi-typescript beside a TypeScript 5: run `make sdk` (or set OPENAPI_TYPESCRIPT_CLI)");
  const out = join(dir, "types", "api.d.ts");
  mkdirSync(join(dir, "types"), { recursive: true });
  const run = Bun.spawn(["node", cli!, docPath, "-o", out], { stdout: "pipe", stderr: "pipe" });
  const [code, stderr] = await Promise.all([run.exited, new Response(run.stderr).text()]);
  expect(code, stderr).toBe(0);
  const types = readFileSync(out, "utf8");
  expect(types).toContain('components["schemas"]["CheckResult"]');
  expect(types).toMatch(/\n {8}CheckResult: \{/);
  const list = types.slice(types.indexOf("    listEntries: {"));
  expect(list.slice(0, list.indexOf("requestBody"))).toContain("limit?: number;");
  expect(types).not.toContain("string | number");
}, 60_000);
