// A fuzzer over the whole API, driven by the app's own /openapi.json: for every operation, N
// generated requests with hostile text (NUL and other controls, broken percent-escapes, quotes,
// FTS5 operators, LIKE wildcards, unicode, empty and over-long), huge numbers, wrong types and
// small nestings in the query, the path and the body, sent over HTTP to a listening app with a key
// that passes every guard (or a session, or nothing, as the operation says). Every answer must be
// below 500, carry X-Request-Id, and when it is an error be exactly the envelope; /healthz must
// still answer after each operation.
//
// Reproducible: every operation draws from its own PRNG seeded by the run's seed and the
// operation, so a failure names the seed and the request that failed.
//   TRUSTLIST_FUZZ_SEEDS=1,2,3 TRUSTLIST_FUZZ_RUNS=300 bun test test/http/fuzz.test.ts   (make fuzz)
// The defaults (one seed, 40 requests per operation) keep `make test` fast.
//
// The body's nesting is kept shallow here: how deep a body may nest is the body parser's rule.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Logger } from "../../src/logger";
import { createTestApp, type TestApp } from "../helpers";
import { mulberry32, type Rng } from "../seeded";

const SEEDS = (process.env.TRUSTLIST_FUZZ_SEEDS ?? "1").split(",").map((s) => Number(s.trim())).filter(Number.isFinite);
const RUNS = Math.max(1, Number(process.env.TRUSTLIST_FUZZ_RUNS ?? 40));
/** Longest body text sent: under the 1 MiB limit, so the routes read it (413 is tested elsewhere). */
const LONG = 100_000;

// ---------------------------------------------------------------------------------------------
// Seeded randomness: the same seed and operation give the same requests.

/** A 32-bit FNV-1a hash, to give each operation its own stream under one seed. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
const chance = (rng: Rng, p: number) => rng() < p;

// ---------------------------------------------------------------------------------------------
// What is sent.

/** Text a route could be handed: each line one way in which text has broken a server before. */
const HOSTILE_TEXT = [
  "",
  " ",
  "   ",
  "\u0000",
  "a\u0000b",
  'a"b\u0000',
  "\u0001\u001f\u007f",
  "line\r\nbreak",
  "tab\there",
  "\u0085\u009f",
  '"',
  '""',
  "'",
  "a*",
  "^a",
  "NEAR(a b)",
  "a OR b",
  "a AND NOT b",
  "(",
  ")",
  "col:abc",
  "{a b}:c",
  "-a + b",
  "%",
  "_",
  "%_%",
  "\\",
  "a\\%",
  "' OR 1=1 --",
  "'; DROP TABLE creators; --",
  "😀",
  "ñ中文",
  "\u202eevil",
  "\u200b",
  "\ufeffbom",
  "e\u0301",
  "\uffff",
  "\ud800",
  "\udc00x",
  "1e309",
  "-1",
  "0",
  "NaN",
  "Infinity",
  "9007199254740993",
  "0x10",
  "1.5",
  "../../etc/passwd",
  "a/b",
  "{}",
  "[]",
  "null",
  "true",
  "<script>alert(1)</script>",
  "@",
  "@@handle",
  ".svg",
  "2026-13-45T99:99:99Z",
  "tl_live_" + "x".repeat(32),
];

/** Percent-escapes no decoder accepts as UTF-8, or that decode to a control character. */
const RAW_ESCAPES = ["%00", "a%00b", "a%22b%00", "%ED%A0%80", "%C0%AF", "%C0%80", "%", "%4", "%zz", "%E2%9C", "%F4%90%80%80", "%C2%80", "%7F", "%FF", "%2e%2e%2f"];

function randomText(rng: Rng): string {
  const ranges: [number, number][] = [
    [0x20, 0x7e],
    [0x00, 0x1f],
    [0x80, 0x9f],
    [0xa0, 0x2ff],
    [0x4e00, 0x4e80],
    [0xd800, 0xdfff],
    [0x1f600, 0x1f64f],
  ];
  const length = Math.floor(rng() * 24);
  let out = "";
  for (let i = 0; i < length; i++) {
    const [low, high] = pick(rng, ranges);
    out += String.fromCodePoint(low + Math.floor(rng() * (high - low + 1)));
  }
  return out;
}

function hostileText(rng: Rng, longest = LONG): string {
  const roll = rng();
  if (roll < 0.55) return pick(rng, HOSTILE_TEXT);
  if (roll < 0.8) return randomText(rng);
  if (roll < 0.9) return pick(rng, ["a", "9", "é", "😀", '"', "%"]).repeat(pick(rng, [33, 65, 129, 257, 1_001, 4_097, 10_001].filter((n) => n <= longest)));
  return pick(rng, ["alice", "shadow", "80351110224678912", "fuzzmaker"]) + pick(rng, HOSTILE_TEXT);
}

const HUGE_NUMBERS = [1e308, -1e308, 2 ** 53 + 1, -(2 ** 63), 2 ** 31, -1, 0, -0, 0.5, 1e-320, 101, 1001, 100_000_000];

/** A JSON value of any type, nested at most `depth` deep. */
function hostileValue(rng: Rng, depth = 3): unknown {
  const roll = rng();
  if (roll < 0.45) return hostileText(rng);
  if (roll < 0.65) return pick(rng, HUGE_NUMBERS);
  if (roll < 0.72) return chance(rng, 0.5);
  if (roll < 0.8) return null;
  if (depth <= 0) return pick(rng, [[], {}]);
  if (roll < 0.9) return Array.from({ length: Math.floor(rng() * 4) }, () => hostileValue(rng, depth - 1));
  return Object.fromEntries(Array.from({ length: Math.floor(rng() * 3) }, () => [pick(rng, ["a", "id", "__proto__", "constructor", ""]), hostileValue(rng, depth - 1)]));
}

/** A small nesting of arrays and objects: the wrong type with some depth (kept well under the parser's bound). */
function nesting(rng: Rng): unknown {
  let value: unknown = hostileText(rng, 64);
  for (let depth = 1 + Math.floor(rng() * 8); depth > 0; depth--) value = chance(rng, 0.5) ? [value] : { a: value };
  return value;
}

// ---------------------------------------------------------------------------------------------
// The document, read as JSON Schema.

type Schema = Record<string, any>;
interface Operation {
  method: string;
  path: string;
  parameters: Array<{ name: string; in: string; required?: boolean; schema: Schema }>;
  body: Schema | null;
  auth: "key" | "session" | "none";
}

function operationsOf(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const method of ["get", "post", "put", "patch", "delete"]) {
      const op = item[method];
      if (!op) continue;
      const security: Array<Record<string, unknown>> = op.security ?? doc.security ?? [];
      const auth = security.some((s) => "session" in s) ? "session" : security.some((s) => "apiKey" in s) ? "key" : "none";
      ops.push({
        method: method.toUpperCase(),
        path,
        parameters: (op.parameters ?? []).filter((p: any) => p.in === "query" || p.in === "path"),
        body: op.requestBody?.content?.["application/json"]?.schema ?? null,
        auth,
      });
    }
  }
  return ops;
}

/** Known values a parameter of this name can take: the seeded data, so requests reach past 404. */
type Pools = Record<string, string[]>;

function resolve(doc: any, schema: Schema): Schema {
  let s = schema;
  while (s?.$ref) s = doc.components.schemas[s.$ref.split("/").pop()];
  return s ?? {};
}

/** A value the schema accepts (mostly): an enum member, an example, a pooled id, a number in range. */
function plausible(doc: any, rng: Rng, raw: Schema, name: string, pools: Pools, depth = 0): unknown {
  const schema = resolve(doc, raw);
  if (schema.anyOf) return plausible(doc, rng, pick(rng, schema.anyOf), name, pools, depth);
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return pick(rng, schema.enum);
  const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type ?? "string"];
  const type = pick(rng, types);
  switch (type) {
    case "null":
      return null;
    case "boolean":
      return chance(rng, 0.5);
    case "integer":
    case "number": {
      const min = schema.minimum ?? 0;
      const max = Math.min(schema.maximum ?? min + 100, min + 1000);
      return min + Math.floor(rng() * (max - min + 1));
    }
    case "array": {
      const count = Math.min(schema.maxItems ?? 3, Math.max(schema.minItems ?? 0, Math.floor(rng() * 4)));
      return Array.from({ length: count }, () => plausible(doc, rng, schema.items ?? {}, name, pools, depth + 1));
    }
    case "object":
      return depth > 4 ? {} : objectFor(doc, rng, schema, pools, depth + 1, 0);
    default: {
      if (pools[name] && chance(rng, 0.8)) return pick(rng, pools[name]!);
      if (schema.format === "date-time") return new Date(Date.UTC(2026, 10, 1 + Math.floor(rng() * 60))).toISOString();
      if (schema.format === "uri") return pick(rng, pools.url!);
      if (Array.isArray(schema.examples) && schema.examples.length > 0 && chance(rng, 0.7)) return String(pick(rng, schema.examples));
      const length = Math.max(schema.minLength ?? 1, Math.min(schema.maxLength ?? 12, 3 + Math.floor(rng() * 10)));
      return Array.from({ length }, () => pick(rng, "abcdefghijklmnopqrstuvwxyz0123456789".split(""))).join("");
    }
  }
}

/** An object for `schema`: each property plausible, hostile, or left out, at rate `hostility`. */
function objectFor(doc: any, rng: Rng, schema: Schema, pools: Pools, depth: number, hostility: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const required = new Set<string>(schema.required ?? []);
  for (const [name, property] of Object.entries<Schema>(schema.properties ?? {})) {
    const roll = rng();
    if (roll < hostility * 0.15) continue;
    if (!required.has(name) && roll < 0.35) continue;
    if (roll < hostility * 0.75) out[name] = chance(rng, 0.1) ? nesting(rng) : hostileValue(rng);
    else out[name] = plausible(doc, rng, property, name, pools, depth);
    if (name === "url" || resolve(doc, property).format === "uri") out[name] = offline(out[name], pools);
  }
  if (chance(rng, hostility * 0.15)) out[pick(rng, ["extra", "__proto__", "id", "constructor"])] = hostileValue(rng);
  return out;
}

/**
 * A webhook URL the service would resolve is replaced by one on loopback or in a reserved range:
 * the fuzzer sends no traffic off this machine, not even a DNS question.
 */
function offline(value: unknown, pools: Pools): unknown {
  if (typeof value !== "string") return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const local = host === "localhost" || /^127\./.test(host) || host === "::1" || /^(10|192\.0\.2|203\.0\.113)\./.test(host);
  return local ? value : pools.url![0];
}

/** One query or path value as sent: plausible, hostile text, or an escape no decoder accepts. */
function encodedValue(doc: any, rng: Rng, schema: Schema, name: string, pools: Pools): string {
  const roll = rng();
  if (roll < 0.4) return encode(String(plausible(doc, rng, schema, name, pools)), rng);
  if (roll < 0.55) return pick(rng, RAW_ESCAPES);
  if (roll < 0.65) return encode(String(pick(rng, HUGE_NUMBERS)), rng);
  return encode(hostileText(rng, 4_097), rng);
}

/** Percent-encoded text; a lone surrogate, which has no UTF-8, is sent as its broken 3-byte form. */
function encode(text: string, rng: Rng): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return pick(rng, ["%ED%A0%80", "%ED%B0%80"]);
  }
}

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

function requestFor(doc: any, rng: Rng, op: Operation, pools: Pools): Sent {
  let path = op.path;
  const routePools = { ...pools };
  for (const [name, values] of Object.entries(pools)) if (name.startsWith("id /") && op.path.startsWith(name.slice(3))) routePools.id = values;
  for (const p of op.parameters.filter((p) => p.in === "path")) {
    path = path.replace(`{${p.name}}`, () => encodedValue(doc, rng, p.schema, p.name, routePools));
  }
  const query: string[] = [];
  for (const p of op.parameters.filter((p) => p.in === "query")) {
    if (!p.required && chance(rng, 0.3)) continue;
    query.push(`${p.name}=${encodedValue(doc, rng, p.schema, p.name, pools)}`);
    // The same name twice: an array where the schema says string.
    if (chance(rng, 0.05)) query.push(`${p.name}=${encodedValue(doc, rng, p.schema, p.name, pools)}`);
  }
  if (chance(rng, 0.1)) query.push(`${pick(rng, ["utm", "", "a%00", "%zz", "q"])}=${encode(hostileText(rng, 256), rng)}`);
  const headers: Record<string, string> = { "x-forwarded-for": `10.${Math.floor(rng() * 256)}.${Math.floor(rng() * 256)}.${1 + Math.floor(rng() * 254)}` };
  if (chance(rng, 0.1)) headers["x-request-id"] = pick(rng, ["fuzz-1", "bad id with spaces", "x".repeat(200), "'\"<>"]);
  let body: string | undefined;
  // Every write gets a body (fetch sends none with a GET); a DELETE now and then.
  if (op.method !== "GET" && (op.method !== "DELETE" || chance(rng, 0.2))) {
    const roll = rng();
    const schema = op.body ? resolve(doc, op.body) : { type: "object", properties: {} };
    let value: unknown;
    if (roll < 0.15) value = objectFor(doc, rng, schema, pools, 0, 0);
    else if (roll < 0.75) value = objectFor(doc, rng, schema, pools, 0, 0.5);
    else if (roll < 0.85) value = chance(rng, 0.5) ? nesting(rng) : hostileValue(rng, 2);
    if (roll < 0.85) {
      body = JSON.stringify(value);
      headers["content-type"] = "application/json";
    } else {
      body = pick(rng, ['{"a":', "{'a':1}", "\u0000", "", "{}garbage", "[[[[", '{"a":1,"a":2}', "null", '"text"', "1e999", "\ud800"]);
      headers["content-type"] = pick(rng, ["application/json", "application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded"]);
    }
    if (chance(rng, 0.1)) headers["idempotency-key"] = pick(rng, ["fuzz-key", "k".repeat(300), "spaces are fine", `fuzz-${Math.floor(rng() * 5)}`]);
  }
  return { method: op.method, url: query.length ? `${path}?${query.join("&")}` : path, headers, body };
}

// ---------------------------------------------------------------------------------------------
// The app under test, with data for the requests to reach past 404.

interface Target {
  t: TestApp;
  /** A request over HTTP as a client sends it: redirects are answers, not followed. */
  send(sent: Sent): Promise<Response>;
  /** Where the app listens, as a browser on its own pages would name it in Origin. */
  origin: string;
  key: string;
  logged: string[];
  pools: Pools;
  signIn(): Promise<string>;
}

async function target(): Promise<Target> {
  const t = await createTestApp({ http: true, config: { trustProxy: 1, allowPrivateWebhooks: true } });
  const logged: string[] = [];
  t.runtime.log = new Logger({ access: false }, (text) => logged.push(text));
  // Admin scope passes every keyed guard; an enterprise plan every entitlement.
  const { key } = await t.account({ tier: "enterprise", scope: "admin", burst: 1_000_000, dailyQuota: 100_000_000 });
  // Ids the admin routes may revoke or suspend: never the fuzzer's own.
  const spare = await t.account({ tier: "free", name: "fuzz-spare" });
  const write = async (method: string, path: string, body?: unknown) => {
    const res = await t.json(method, path, { key, body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  const handles = ["fuzzmaker", "fuzz_other", "fuzz.third"];
  for (const handle of handles) await write("PUT", `/v1/partner/creators/${handle}`, { display_name: `Fuzz "NEAR(${handle})" 100%_` });
  await write("POST", "/v1/partner/creators/fuzzmaker/connections", { provider: "discord", provider_user_id: "80351110224678912", provider_username: 'o"brien*' });
  await write("POST", "/v1/partner/creators/fuzz_other/connections", { provider: "github", provider_user_id: "octo_cat", provider_username: "50%_off" });
  const entry = await write("POST", "/v1/partner/blacklist", { provider: "roblox", provider_user_id: "4242", username: "NEAR(x y)", severity: "ban", reason_code: "scam_trade", creator: "fuzz_other" });
  const deal = await write("POST", "/v1/partner/deals", { from: "fuzzmaker", to: "fuzz_other" });
  await write("POST", "/v1/partner/vouches", { from: "fuzzmaker", to: "fuzz_other" });
  const webhook = await write("POST", "/v1/webhooks", { url: "http://127.0.0.1:9/hook", events: ["blacklist.added"] });
  const courses = (await t.json("GET", "/v1/courses")).body.courses.map((c: any) => c.slug);
  const origin = `http://127.0.0.1:${t.app.server!.port}`;
  const send = (sent: Sent) => fetch(origin + sent.url, { method: sent.method, headers: sent.headers, body: sent.body, redirect: "manual" });
  const signIn = async () => {
    const link = await write("POST", "/v1/partner/login-links", { handle: "fuzzmaker" });
    const url = new URL(link.url);
    const res = await send({ method: "GET", url: url.pathname + url.search, headers: {} });
    expect(res.status).toBe(302);
    return res.headers.get("set-cookie")!.split(";")[0]!;
  };
  const tripwire = await t.json("POST", "/v1/me/tripwires", { headers: { cookie: await signIn(), origin }, body: { who: "@fuzz_other" } });
  expect(tripwire.status, JSON.stringify(tripwire.body)).toBe(201);
  const pools: Pools = {
    // Each route's own kind of id (idsFor below), and every kind elsewhere.
    id: [entry.id, deal.id, webhook.id, spare.accountId, spare.keyId, tripwire.body.id],
    "id /v1/blacklist/": [entry.id],
    "id /v1/partner/blacklist/": [entry.id],
    "id /v1/partner/deals/": [deal.id],
    "id /v1/webhooks/": [webhook.id],
    "id /v1/me/tripwires/": [tripwire.body.id],
    "id /v1/admin/accounts/": [spare.accountId],
    "id /v1/admin/keys/": [spare.keyId],
    handle: [...handles, "@fuzzmaker", "fuzzmaker.svg", "nobody_here"],
    from: handles,
    to: handles,
    creator: handles,
    referrer: handles,
    referred: handles,
    who: ["@fuzz_other", "80351110224678912"],
    account: [spare.accountId],
    slug: courses,
    provider_user_id: ["80351110224678912", "octo_cat", "4242"],
    username: ['o"brien*', "50%_off", "NEAR(x y)"],
    q: ['o"brien', "50%_of", "fuzzmaker", "NEAR(x", "fu", "_", "%"],
    name: ["expire-entries", "public-stats", "suggestion-index-stats", "trust-snapshots", "flush-metering"],
    url: ["http://127.0.0.1:9/hook", "https://127.0.0.1:9/hook", "https://localhost:9/x", "https://203.0.113.5/hook", "http://[::1]:9/"],
  };
  return { t, send, origin, key, logged, pools, signIn };
}

// ---------------------------------------------------------------------------------------------
// The checks.

function describeRequest(sent: Sent, seed: number, index: number): string {
  const body = sent.body === undefined ? "" : ` body=${JSON.stringify(sent.body.length > 300 ? `${sent.body.slice(0, 300)}…` : sent.body)}`;
  return `seed ${seed}, request ${index}: ${sent.method} ${sent.url.length > 300 ? `${sent.url.slice(0, 300)}…` : sent.url}${body}`;
}

/** Reads the spec once, from an app like the one under test. */
const doc = await (async () => {
  const t = await createTestApp();
  try {
    return (await t.json("GET", "/openapi.json")).body;
  } finally {
    await t.close();
  }
})();
const operations = operationsOf(doc);

test("the document lists the operations the fuzzer covers", () => {
  expect(operations.length).toBeGreaterThan(50);
  for (const auth of ["key", "session", "none"]) expect(operations.some((op) => op.auth === auth), auth).toBe(true);
});

for (const seed of SEEDS) {
  describe(`fuzz seed ${seed}`, () => {
    let target_: Target;
    beforeAll(async () => {
      target_ = await target();
    }, 60_000);
    const statuses: Record<number, number> = {};
    afterAll(() => {
      const sent = Object.values(statuses).reduce((a, b) => a + b, 0);
      console.log(`fuzz seed ${seed}: ${sent} requests over ${operations.length} operations, by status ${JSON.stringify(statuses)}`);
      return target_?.t.close();
    });

    for (const op of operations) {
      test(
        `${op.method} ${op.path}: ${RUNS} requests, never a 5xx`,
        async () => {
          const { send, origin, key, logged, pools, signIn } = target_;
          const rng = mulberry32(hash(`${seed} ${op.method} ${op.path}`));
          const cookie = op.auth === "session" ? await signIn() : null;
          for (let i = 0; i < RUNS; i++) {
            const sent = requestFor(doc, rng, op, pools);
            if (op.auth === "key") sent.headers.authorization = `Bearer ${key}`;
            if (cookie) {
              sent.headers.cookie = cookie;
              // A browser sends its page's origin with a session's writes: mostly this service's own.
              sent.headers.origin = chance(rng, 0.8) ? origin : pick(rng, ["null", "https://evil.example", "not a url", `${origin}.evil.example`]);
            }
            const where = describeRequest(sent, seed, i);
            logged.length = 0;
            const res = await send(sent);
            const text = await res.text();
            statuses[res.status] = (statuses[res.status] ?? 0) + 1;
            expect(res.status, `${where} → ${res.status} ${text.slice(0, 300)} ${logged.join(" ").slice(0, 600)}`).toBeLessThan(500);
            // Bun's server refuses a request head over 16 KiB itself, before any route: its bare 431.
            if (res.status === 431 && sent.url.length > 16_000) continue;
            const requestId = res.headers.get("x-request-id");
            expect(requestId, `${where}: no X-Request-Id`).toBeTruthy();
            if (res.status >= 400) {
              expect(res.headers.get("content-type"), where).toContain("application/json");
              const body = JSON.parse(text);
              expect(Object.keys(body), `${where}: ${text}`).toEqual(["error"]);
              expect(Object.keys(body.error).sort(), `${where}: ${text}`).toEqual(["code", "message", "request_id"]);
              expect(body.error.request_id, where).toBe(requestId);
              expect(typeof body.error.code === "string" && body.error.message.length > 0, `${where}: ${text}`).toBe(true);
            }
          }
          const health = await send({ method: "GET", url: "/healthz", headers: {} });
          expect(health.status, `seed ${seed}: /healthz after ${op.method} ${op.path}`).toBe(200);
        },
        Math.max(30_000, RUNS * 500),
      );
    }
  });
}
