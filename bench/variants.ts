#!/usr/bin/env bun
// One HTTP server per variant, from the raw ceiling up to trustlist's full app, so bench/variants.sh
// can put each under the same wrk load and read its CPU per request. Each step adds one thing:
//
//   ceiling           bench/ceiling.ts: Bun.serve routes + one prepared statement + Map key check
//   ceiling-headers   + the five response headers trustlist sends on a keyed 200
//   elysia-bare       the ceiling handler inside Elysia (no schema, no hooks)
//   elysia-schema     Elysia + CheckQuery / CheckResult schemas + BlacklistService.check()
//   elysia-auth       + the requireKey derive (admitKeyed: key lookup, quota, bucket, metering)
//   elysia-after      + an onAfterResponse hook (Elysia defers it with setImmediate per request)
//   hook-reqid        elysia-auth + a global onRequest that only sets X-Request-Id
//   hook-onrequest    elysia-auth + a copy of the conventions plugin's onRequest body
//   hook-onerror      hook-onrequest + an onError hook (never called here)
//   hook-after        hook-onerror + onAfterResponse with the metrics observation: a copy of the
//                     whole conventions plugin, built up step by step
//   conv              trustlist's conventions plugin + blacklistRoutes only (no openapi, no other
//                     routes, no jobs), access log off
//   conv-routes       conventions + every route module of buildApp(), still without openapi
//   app               trustlist's buildApp() without cron jobs, access log off
//   app-log           buildApp(), access log on, written to stdout (send it to /dev/null)
//   app-jobs          buildApp() with the cron jobs, access log on: what `serve` runs
//
// Usage: bun bench/variants.ts VARIANT --db FILE --key-file F [--port 18082]
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Elysia } from "elysia";
import { buildApp } from "../src/app";
import { conventions } from "../src/http/conventions";
import { adminRoutes, usageRoutes } from "../src/modules/accounts";
import { blacklistRoutes, partnerBlacklistRoutes } from "../src/modules/blacklist";
import { healthRoutes, metricsRoutes } from "../src/modules/ops";
import { openStore } from "../src/db/client";
import { admitKeyed } from "../src/http/auth";
import { CheckQuery, CheckResult } from "../src/modules/blacklist/model";
import { createRuntime, type Runtime } from "../src/runtime";
import { createServices } from "../src/services";
import { fail, makeCheck, openReadOnly } from "./ceiling";

const { values, positionals } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    db: { type: "string", default: "bench/data/bench.db" },
    "key-file": { type: "string" },
    port: { type: "string", default: "18082" },
  },
  allowPositionals: true,
  strict: true,
});
const variant = positionals[0] ?? "";
const port = Number(values.port);
const hostname = "127.0.0.1";
const keyFile = values["key-file"] ?? process.env.BENCH_KEY_FILE;
if (!keyFile) throw new Error("--key-file is required");
const key = readFileSync(keyFile, "utf8").trim();
const dbPath = values.db!;

const health = () => Response.json({ ok: true });

/** Pieces of src/http/conventions.ts, copied so each can be measured alone (variants hook-*). */
function conventionsCopy(runtime: Runtime, upTo: string) {
  const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
  let counter = 0;
  const prefix = Math.random().toString(36).slice(2, 8);
  const newRequestId = () => `req_${prefix}${(++counter).toString(36)}`;
  const pathOf = (url: string) => {
    const start = url.indexOf("/", url.indexOf("//") + 2);
    if (start < 0) return "/";
    const query = url.indexOf("?", start);
    return query < 0 ? url.slice(start) : url.slice(start, query);
  };
  const isPublicPath = (path: string) =>
    path.startsWith("/v1/public/") || path === "/v1/stats/public" || path.startsWith("/badge/") || path === "/referrals/leaderboard" || path.startsWith("/widget");
  const isKeyedPath = (path: string) => (path.startsWith("/v1/") && !isPublicPath(path)) || path === "/metrics";
  let plugin: any = new Elysia({ name: "conventions-copy" });
  if (upTo === "hook-reqid") {
    return plugin.onRequest(({ set }: any) => {
      set.headers["x-request-id"] = newRequestId();
    });
  }
  plugin = plugin.onRequest((ctx: any) => {
    const { request, set } = ctx;
    ctx.startedAt = performance.now();
    const incoming = request.headers.get("x-request-id");
    set.headers["x-request-id"] = incoming && REQUEST_ID.test(incoming) ? incoming : newRequestId();
    const path = pathOf(request.url);
    if (isPublicPath(path)) throw new Error("not in this benchmark");
    if (!isKeyedPath(path)) throw new Error("not in this benchmark");
    const length = Number(request.headers.get("content-length") ?? 0);
    if (length > runtime.config.maxBodyBytes) throw new Error("too large");
  });
  if (upTo === "hook-onrequest") return plugin;
  plugin = plugin.onError({ as: "global" }, ({ error, set }: any) => {
    set.status = 500;
    return { error: { code: "internal", message: String(error), request_id: set.headers["x-request-id"] } };
  });
  if (upTo === "hook-onerror") return plugin;
  return plugin.onAfterResponse({ as: "global" }, (ctx: any) => {
    const { request, set, route } = ctx;
    const durationMs = performance.now() - (ctx.startedAt ?? performance.now());
    runtime.metrics.observe(request.method, route || "unmatched", typeof set.status === "number" ? set.status : 200, durationMs);
  });
}
let stop: () => void = () => {};

if (variant === "ceiling" || variant === "ceiling-headers") {
  const check = makeCheck(openReadOnly(dbPath), new Map([[key, { account: "bench" }]]));
  let n = 0;
  const handler =
    variant === "ceiling"
      ? check
      : (req: Request) => {
          const res = check(req);
          res.headers.set("content-type", "application/json;charset=utf-8");
          res.headers.set("x-request-id", `req_abcdef${(++n).toString(36)}`);
          res.headers.set("x-ratelimit-limit", "1000000000");
          res.headers.set("x-ratelimit-remaining", String(1_000_000_000 - n));
          res.headers.set("x-ratelimit-reset", "1795392000");
          return res;
        };
  const server = Bun.serve({ port, hostname, routes: { "/v1/blacklist/check": { GET: handler }, "/healthz": health }, fetch: () => fail(404, "not_found") });
  stop = () => server.stop(true);
} else if (variant.startsWith("elysia-") || variant.startsWith("hook-")) {
  const store = openStore(dbPath);
  const runtime = await createRuntime({ store, config: { dbPath, accessLog: false } });
  const { blacklist } = createServices(runtime);
  let app: any;
  if (variant === "elysia-bare") {
    const check = makeCheck(openReadOnly(dbPath), new Map([[key, { account: "bench" }]]));
    app = new Elysia().get("/v1/blacklist/check", ({ request }) => check(request));
  } else {
    const route = { query: CheckQuery, response: { 200: CheckResult } };
    app = new Elysia();
    if (variant === "elysia-after") {
      app = app.onAfterResponse({ as: "global" }, ({ set }: any) => void set.status);
    }
    if (variant.startsWith("hook-")) app = app.use(conventionsCopy(runtime, variant));
    if (variant === "elysia-auth" || variant === "elysia-after" || variant.startsWith("hook-")) {
      app = app.derive({ as: "global" }, ({ request, route, set }: any) => ({
        caller: admitKeyed(runtime, request.headers.get("authorization"), "read", `${request.method} ${route}`, set.headers),
      }));
    } else if (variant !== "elysia-schema") throw new Error(`unknown variant ${variant}`);
    app = app.get("/v1/blacklist/check", ({ query }: any) => blacklist.check(query.provider, query.id, query.vertical), route);
    setInterval(() => runtime.meter.flush(), 1000); // as serve does, so metering does not grow without bound
  }
  app.get("/healthz", health).listen({ port, hostname });
  stop = () => app.stop(true);
} else if (variant === "conv" || variant === "conv-routes") {
  const store = openStore(dbPath);
  const runtime = await createRuntime({ store, config: { dbPath, accessLog: false } });
  const services = createServices(runtime);
  const { plugin, routeTable } = conventions(runtime);
  let app: any = new Elysia().use(plugin).use(healthRoutes(runtime));
  if (variant === "conv-routes") app = app.use(metricsRoutes(runtime, async () => ({})));
  app = app.use(blacklistRoutes(runtime, services.blacklist));
  if (variant === "conv-routes") {
    app = app
      .use(partnerBlacklistRoutes(runtime, services.blacklist))
      .use(usageRoutes(runtime, services.usage))
      .use(adminRoutes(runtime, services.accounts));
  }
  routeTable.routes = app.routes.map((r: any) => ({ method: r.method, path: r.path }));
  setInterval(() => (runtime.meter.flush(), runtime.store.changes.check()), 1000);
  app.listen({ port, hostname });
  stop = () => app.stop(true);
} else if (variant === "app" || variant === "app-log" || variant === "app-jobs") {
  const store = openStore(dbPath);
  const runtime = await createRuntime({ store, config: { dbPath, accessLog: variant !== "app" } });
  const services = createServices(runtime);
  const app = buildApp(runtime, { jobs: variant === "app-jobs", services });
  if (variant !== "app-jobs") setInterval(() => (runtime.meter.flush(), runtime.store.changes.check()), 1000);
  app.listen({ port, hostname });
  stop = () => {
    app.stop(true);
    runtime.meter.flush();
    runtime.log.flush();
  };
} else {
  console.error(`unknown variant '${variant}': ceiling, ceiling-headers, elysia-bare, elysia-schema, elysia-auth, elysia-after, hook-reqid, hook-onrequest, hook-onerror, hook-after, conv, conv-routes, app, app-log, app-jobs`);
  process.exit(2);
}
console.error(`variant ${variant} on http://${hostname}:${port}`);
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    stop();
    process.exit(0);
  });
}
