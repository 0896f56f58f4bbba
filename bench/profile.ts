#!/usr/bin/env bun
// Where does trustlist's time per GET /v1/blacklist/check go? In-process micro-benchmarks on the
// benchmark database, without sockets (the HTTP layer is the same Bun.serve for every variant):
//
//   stacks   the ceiling handler; the same handler inside Elysia, then with trustlist's query
//            schema, response schema and hooks added one at a time; the full trustlist app with
//            the access log off and on
//   pieces   single steps of trustlist's request path, timed alone
//
// Usage: bun bench/profile.ts --db bench/data/bench.db --key-file bench/results/run-*/bench.key
//        [--queries bench/data/queries.txt] [--ms 1500]
// Run it while no load test is running (it shares the machine). Opens the database read-write
// (trustlist's own store), so do not point it at a production file.
import { openSync, readFileSync, writeSync } from "node:fs";
import { parseArgs } from "node:util";
import { Elysia } from "elysia";
import { buildApp } from "../src/app";
import { openStore } from "../src/db/client";
import { admitKeyed } from "../src/http/auth";
import { hashKey } from "../src/modules/accounts/keys";
import { Logger } from "../src/logger";
import { CheckQuery, CheckResult } from "../src/modules/blacklist/model";
import { createRuntime } from "../src/runtime";
import { createServices } from "../src/services";
import { makeCheck, openReadOnly } from "./ceiling";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    db: { type: "string", default: "bench/data/bench.db" },
    "key-file": { type: "string" },
    queries: { type: "string", default: "bench/data/queries.txt" },
    ms: { type: "string", default: "1500" },
    only: { type: "string" },
  },
  strict: true,
});
const keyFile = values["key-file"] ?? process.env.BENCH_KEY_FILE;
if (!keyFile) throw new Error("--key-file (the key run.sh made, bench/results/run-*/bench.key) is required");
const key = readFileSync(keyFile, "utf8").trim();
const paths = readFileSync(values.queries!, "utf8").split("\n").filter(Boolean).slice(0, 50_000);
const urls = paths.map((p) => `http://127.0.0.1:18080${p}`);
const BUDGET_MS = Number(values.ms);
const auth = `Bearer ${key}`;
const devNull = openSync("/dev/null", "w");

let sink = 0;
/** Runs `fn` over the query list for about BUDGET_MS after a warm-up; ns per call. */
async function measure(name: string, fn: (i: number) => unknown, isAsync = false): Promise<number> {
  if (values.only && !name.includes(values.only)) return NaN;
  const run = async (ms: number) => {
    let i = 0;
    const end = performance.now() + ms;
    let calls = 0;
    while (performance.now() < end) {
      for (let k = 0; k < 256; k++) {
        const r = fn(i);
        if (isAsync) await r;
        i = i + 1 === urls.length ? 0 : i + 1;
      }
      calls += 256;
    }
    return calls;
  };
  await run(Math.min(500, BUDGET_MS / 3));
  Bun.gc(true);
  const t0 = performance.now();
  const calls = await run(BUDGET_MS);
  const ns = ((performance.now() - t0) * 1e6) / calls;
  console.log(`${name.padEnd(64)} ${(ns / 1000).toFixed(2).padStart(8)} µs`);
  return ns;
}
const req = (i: number) => new Request(urls[i]!, { headers: { authorization: auth } });
const drain = async (res: Response | Promise<Response>) => {
  const r = await res;
  sink += (await r.text()).length; // Bun.serve also has to produce the body bytes
};

// ---- the ceiling and Elysia stacks ----------------------------------------------------------
const ro = openReadOnly(values.db!);
const ceilingCheck = makeCheck(ro, new Map([[key, { account: "bench" }]]));

// trustlist's own runtime on the same file, with the access log either discarded or written to
// /dev/null the way `serve` writes stdout.
const store = openStore(values.db!);
const mkRuntime = (access: boolean) =>
  createRuntime({ store, config: { dbPath: values.db!, accessLog: access }, log: new Logger({ access }, (text) => void writeSync(devNull, text)) });
const rtOff = await mkRuntime(false);
const rtOn = await mkRuntime(true);
const servicesOff = createServices(rtOff);
const appOff = buildApp(rtOff, { services: servicesOff });
const appOn = buildApp(rtOn, { services: createServices(rtOn) });
const blacklist = servicesOff.blacklist;

const bare = new Elysia().get("/v1/blacklist/check", ({ request }) => ceilingCheck(request));
const withQuery = new Elysia().get(
  "/v1/blacklist/check",
  ({ query }) => blacklist.check(query.provider, query.id, query.vertical),
  { query: CheckQuery },
);
const withBoth = new Elysia().get(
  "/v1/blacklist/check",
  ({ query }) => blacklist.check(query.provider, query.id, query.vertical),
  { query: CheckQuery, response: { 200: CheckResult } },
);
const withAuth = new Elysia()
  .derive(({ request, route, set }) => ({
    caller: admitKeyed(rtOff, request.headers.get("authorization"), "read", `${request.method} ${route}`, set.headers),
  }))
  .get("/v1/blacklist/check", ({ query }) => blacklist.check(query.provider, query.id, query.vertical), {
    query: CheckQuery,
    response: { 200: CheckResult },
  });

console.log(`# stacks: one GET /v1/blacklist/check, Request in, body text out (${urls.length} queries, half hits)`);
// Two passes, keeping each variant's faster one: the first pass also warms SQLite's page cache.
const stacks: Array<[string, (i: number) => Promise<void>]> = [
  ["new Request() + new Response(short JSON).text()", (i) => drain(new Response(JSON.stringify({ i: req(i).url.length })))],
  ["ceiling handler (bench/ceiling.ts)", (i) => drain(ceilingCheck(req(i)))],
  ["Elysia, same ceiling handler, no schema", (i) => drain(bare.handle(req(i)))],
  ["Elysia + CheckQuery schema + blacklist.check()", (i) => drain(withQuery.handle(req(i)))],
  ["  + response schema CheckResult", (i) => drain(withBoth.handle(req(i)))],
  ["  + requireKey-style derive (admitKeyed)", (i) => drain(withAuth.handle(req(i)))],
  ["trustlist buildApp(), access log off", (i) => drain(appOff.handle(req(i)))],
  ["trustlist buildApp(), access log on (to /dev/null)", (i) => drain(appOn.handle(req(i)))],
];
const best = new Map<string, number>();
for (const pass of [1, 2]) {
  console.log(`-- pass ${pass}`);
  for (const [name, fn] of stacks) {
    const ns = await measure(name, fn, true);
    best.set(name, Math.min(best.get(name) ?? Infinity, ns));
  }
}
const [baseline, ceiling, elysiaBare, elysiaQuery, elysiaBoth, elysiaAuth, full, fullLog] = stacks.map(([name]) => best.get(name)!);

// ---- pieces ---------------------------------------------------------------------------------
console.log(`\n# pieces of trustlist's path, alone`);
const params = urls.map((u) => {
  const q = new URLSearchParams(u.slice(u.indexOf("?") + 1));
  return { provider: q.get("provider") as any, id: q.get("id")!, vertical: (q.get("vertical") ?? "all") as any };
});
const headers: Record<string, string | number> = {};
await measure("hashKey(key): new CryptoHasher sha256 + hex", () => (sink += hashKey(key).length));
await measure("runtime.keys.find(key): regex + hash + Map", () => (sink += rtOff.keys.find(key) ? 1 : 0));
await measure("admitKeyed(): find + quota + bucket + meter.record", () =>
  (sink += admitKeyed(rtOff, auth, "read", "GET /v1/blacklist/check", headers).keyId.length),
);
const caller = rtOff.keys.find(key)!;
await measure("rtOff.meter.record() alone", () => rtOff.meter.record(caller.keyId, caller.accountId, "GET /v1/blacklist/check"));
await measure("blacklist.check() (normalise + SQL + verdict + iso)", (i) => blacklist.check(params[i]!.provider, params[i]!.id, params[i]!.vertical), true);
await measure("blacklist.verdict() (SQL + verdict) alone", (i) => blacklist.verdict(params[i]!.provider, params[i]!.id, params[i]!.vertical, Date.now()));
const sample = await blacklist.check(params[0]!.provider, params[0]!.id, params[0]!.vertical);
await measure("JSON.stringify(hit result)", () => (sink += JSON.stringify(sample).length));
await measure("new Date().toISOString()", () => (sink += new Date().toISOString().length));
await measure("access log line (JSON.stringify + toISOString + buffer)", (i) =>
  rtOn.log.access({ request_id: `req_${i}`, method: "GET", path: "/v1/blacklist/check", route: "/v1/blacklist/check", status: 200, duration_ms: 0.123, key_id: "key_x" }),
);
await measure("metrics.observe()", () => rtOff.metrics.observe("GET", "/v1/blacklist/check", 200, 0.5));
await measure("store.changes.check(): PRAGMA data_version, every request", () => (sink += rtOff.store.changes.check() ? 1 : 0));

console.log(`\n# what-ifs (bench-only code, for comparison with the pieces above)`);
const byRawKey = new Map([[key, caller]]);
await measure("Map.get(raw key) instead of regex + SHA-256 + Map.get(hash)", () => (sink += byRawKey.get(key) ? 1 : 0));
let lastMs = 0;
let lastIso = "";
let buffer = "";
await measure("access line built by hand, ISO time cached per ms", (i) => {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  buffer +=
    '{"ts":"' + lastIso + '","level":"info","msg":"request","request_id":"req_' + i + '","method":"GET","path":"/v1/blacklist/check","route":"/v1/blacklist/check","status":200,"duration_ms":0.123,"key_id":"key_x"}\n';
  if (buffer.length > 65536) {
    writeSync(devNull, buffer);
    buffer = "";
  }
});
rtOn.log.flush();
rtOff.meter.flush();

console.log(`\n# differences (µs per request, faster pass of each)`);
const d = (a: number, b: number) => ((a - b) / 1000).toFixed(2).padStart(7);
console.log(`Elysia routing/context/mapResponse (bare - ceiling)        ${d(elysiaBare, ceiling)}`);
console.log(`query schema + service call (query - bare)                 ${d(elysiaQuery, elysiaBare)}`);
console.log(`response schema (both - query)                             ${d(elysiaBoth, elysiaQuery)}`);
console.log(`admitKeyed derive (auth - both)                            ${d(elysiaAuth, elysiaBoth)}`);
console.log(`conventions hooks + openapi + other plugins (full - auth)  ${d(full, elysiaAuth)}`);
console.log(`access log (on - off)                                      ${d(fullLog, full)}`);
console.log(`total trustlist (log on) over ceiling                      ${d(fullLog, ceiling)}   (baseline Request/Response alone: ${(baseline / 1000).toFixed(2)} µs)`);
if (sink === -1) console.log(sink);
store.close();
ro.close();
process.exit(0);
