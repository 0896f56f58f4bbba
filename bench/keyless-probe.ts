#!/usr/bin/env bun
// Times keyless queries one at a time (one connection, nothing else in flight), grouped by the
// kind the generator gave each one (or the variant the route's wrk script makes), to show which kinds make the p99 under load: with N
// connections on one server thread a request waits behind up to N-1 others, so a kind that costs
// a few milliseconds alone dominates the tail. Also lists the slowest queries seen.
//
// Usage: bun bench/keyless-probe.ts [--url http://127.0.0.1:18080] [--data bench/data]
//          [--per-kind 200] [--routes search,directory,directory-deep,resolve,trust,vouches,
//          leaderboard,stats,badge (all, the default)] [--slowest 10]
// Sends one X-Forwarded-For per request, like the wrk scripts (the server needs --trust-proxy).
// Prints one JSON object: {routes: {search: {kinds: {handle: {n, p50_ms, p90_ms, p99_ms, max_ms,
// mean_ms}}, answers: {...same, by what the answer held}, slowest: [{kind, query, ms}]}, ...}}.
// "answers" groups search by found / suggestions given and directory by the match count (`total`),
// which is what the directory's cost follows.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    url: { type: "string", default: "http://127.0.0.1:18080" },
    data: { type: "string", default: "bench/data" },
    "per-kind": { type: "string", default: "200" },
    routes: { type: "string", default: "search,directory,directory-deep,resolve,trust,vouches,leaderboard,stats,badge" },
    slowest: { type: "string", default: "10" },
  },
  strict: true,
});
const base = values.url!.replace(/\/+$/, "");
const perKind = Number(values["per-kind"]);
const slowestN = Number(values.slowest);

const PLATFORMS = ["discord", "roblox", "epic", "tiktok", "twitch", "minecraft", "twitter", "youtube", "github"];
const DEEP_VARIANTS = ["all", "platform", "prefix", "fragment"];

/**
 * The same paths the wrk scripts build from each line's fields (`i` counts the lines kept, from 0);
 * a query's kind is the line's first field unless `kind` says otherwise.
 */
interface Route {
  file: string;
  keep?: (f: string[]) => boolean;
  path: (f: string[], i: number) => string;
  kind?: (f: string[], i: number) => string;
}
const ROUTES: Record<string, Route> = {
  search: { file: "search.txt", path: (f) => `/v1/public/blacklist/check?q=${encodeURIComponent(f[1]!)}` },
  directory: { file: "directory.txt", path: (f) => `/v1/public/directory?q=${encodeURIComponent(f[1]!)}&sort=${f[2]}&page=${f[3]}` },
  // directory-deep.lua: the last pages within the bound (page x limit <= 1000) of four kinds of query.
  "directory-deep": {
    file: "directory.txt",
    path: (f, i) => {
      const variant = i % 4;
      const n = Math.floor(i / 4);
      const limit = [24, 50, 100][n % 3]!;
      const page = Math.floor(1000 / limit) - (i % 3);
      const filter = [
        "",
        `&platform=${PLATFORMS[n % 9]}`,
        `&q=${encodeURIComponent([...f[1]!].slice(0, 2).join(""))}`,
        `&q=${encodeURIComponent(f[1]!)}`,
      ][variant];
      return `/v1/public/directory?sort=${f[2]}&page=${page}&limit=${limit}${filter}`;
    },
    kind: (_f, i) => DEEP_VARIANTS[i % 4]!,
  },
  resolve: {
    file: "search.txt",
    keep: (f) => f[0] === "username" || f[0] === "id_connection",
    path: (f) => (f[0] === "username" ? `/v1/public/resolve?username=${encodeURIComponent(f[1]!)}` : `/v1/public/resolve?id=${encodeURIComponent(f[1]!)}`),
  },
  trust: { file: "badge.txt", path: (f) => `/v1/public/trust/${encodeURIComponent(f[1]!)}` },
  vouches: {
    file: "badge.txt",
    keep: (f) => f[0] === "known",
    path: (f, i) => `/v1/public/users/${encodeURIComponent(f[1]!)}/vouches?limit=${i % 2 === 0 ? 20 : 100}`,
    kind: (_f, i) => `limit ${i % 2 === 0 ? 20 : 100}`,
  },
  leaderboard: { file: "badge.txt", path: (_f, i) => `/referrals/leaderboard?period=${i % 2 === 0 ? "all" : "month"}`, kind: (_f, i) => (i % 2 === 0 ? "all" : "month") },
  stats: { file: "badge.txt", path: () => "/v1/stats/public", kind: () => "stats" },
  badge: { file: "badge.txt", path: (f) => `/badge/${encodeURIComponent(f[1]!)}?theme=${f[2]}` },
};

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
const r3 = (x: number) => Math.round(x * 1000) / 1000;
let ipCounter = 0;

async function time(path: string): Promise<{ ms: number; status: number; extra: string; answer: string }> {
  const n = ipCounter++;
  const headers = { "x-forwarded-for": `10.200.${(n >> 8) & 255}.${n & 255}` };
  const t0 = performance.now();
  const res = await fetch(base + path, { headers });
  const body = await res.text();
  const ms = performance.now() - t0;
  let extra = "";
  let answer = `status ${res.status}`;
  if (path.startsWith("/v1/public/directory")) {
    try {
      const total = JSON.parse(body).total as number;
      extra = `total=${total}`;
      answer = total >= 5000 ? "total >= 5000" : total >= 1000 ? "total 1000-4999" : total >= 100 ? "total 100-999" : "total < 100";
    } catch {}
  } else if (path.startsWith("/v1/public/blacklist/check")) {
    try {
      const j = JSON.parse(body);
      extra = j.found ? `hits=${j.platforms.length}` : `suggestions=${j.suggestions.length}`;
      answer = j.found ? "found" : j.suggestions.length > 0 ? "not found, suggestions" : "not found, no suggestions";
    } catch {}
  }
  return { ms, status: res.status, extra, answer };
}

const out: Record<string, unknown> = {};
for (const name of values.routes!.split(",").filter(Boolean)) {
  const route = ROUTES[name];
  if (!route) throw new Error(`unknown route ${name}`);
  const byKind = new Map<string, string[]>();
  let kept = 0;
  for (const line of readFileSync(join(values.data!, route.file), "utf8").split("\n")) {
    if (!line) continue;
    const f = line.split("\t");
    if (route.keep && !route.keep(f)) continue;
    const i = kept++;
    const kind = route.kind ? route.kind(f, i) : f[0]!;
    const list = byKind.get(kind) ?? [];
    if (list.length < perKind) list.push(route.path(f, i));
    byKind.set(kind, list);
  }
  // Warm the route (first-request compilation, page cache) before timing.
  for (const path of [...byKind.values()].flat().slice(0, 50)) await time(path);
  const all: Array<{ kind: string; query: string; ms: number; status: number; extra: string; answer: string }> = [];
  for (const [kind, list] of byKind) {
    for (const path of list) {
      const r = await time(path);
      all.push({ kind, query: path, ...r });
    }
  }
  const stats = (group: (r: (typeof all)[number]) => string) => {
    const groups = new Map<string, typeof all>();
    for (const r of all) groups.set(group(r), [...(groups.get(group(r)) ?? []), r]);
    const result: Record<string, unknown> = {};
    for (const [key, rows] of groups) {
      const ms = rows.map((r) => r.ms).sort((a, b) => a - b);
      result[key] = {
        n: ms.length,
        mean_ms: r3(ms.reduce((s, x) => s + x, 0) / ms.length),
        p50_ms: r3(pct(ms, 50)),
        p90_ms: r3(pct(ms, 90)),
        p99_ms: r3(pct(ms, 99)),
        max_ms: r3(ms[ms.length - 1]!),
        non2xx: rows.filter((r) => r.status < 200 || r.status > 299).length,
      };
    }
    return result;
  };
  const slowest = [...all].sort((a, b) => b.ms - a.ms).slice(0, slowestN).map(({ answer: _, ...r }) => ({ ...r, ms: r3(r.ms) }));
  out[name] = { kinds: stats((r) => r.kind), answers: stats((r) => r.answer), slowest };
}
console.log(JSON.stringify({ url: base, per_kind: perKind, routes: out }, null, 2));
