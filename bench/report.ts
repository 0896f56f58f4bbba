#!/usr/bin/env bun
// Turns one run directory of bench/run.sh into a Markdown summary on stdout.
//   facts.txt                      key=value lines written by run.sh
//   meta.json                      the generator's counts
//   import.json, walk.json         outputs of `trustlist import --json` and bench/walk.ts
//   coldstart-empty.json, coldstart-1m.json
//   round-<n>-<target>.txt         wrk output with the RESULT line of bench/check.lua
//   keyless-<n>-<route>.txt        the same for the keyless rounds (check, then every keyless route)
//   probe.json                     bench/keyless-probe.ts: each query kind timed alone
//   jobs.json                      bench/jobs.ts: the worst request wait behind each periodic job
//   outbox.json                    bench/outbox.ts: webhook deliveries/s and commit-to-receipt
//   moderation.json                bench/moderation.ts: keyed check beside open cases and audit events, the queue p99
// Usage: bun bench/report.ts RUN_DIR
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const dir = Bun.argv[2];
if (!dir) throw new Error("usage: bun bench/report.ts RUN_DIR");

const readJson = (name: string): any => {
  const file = join(dir, name);
  if (!existsSync(file)) return null;
  const text = readFileSync(file, "utf8").trim();
  try {
    return JSON.parse(text);
  } catch {
    try {
      return JSON.parse(text.split("\n").pop()!);
    } catch {
      return null;
    }
  }
};
const facts: Record<string, string> = {};
if (existsSync(join(dir, "facts.txt"))) {
  for (const line of readFileSync(join(dir, "facts.txt"), "utf8").split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) facts[line.slice(0, eq)] = line.slice(eq + 1);
  }
}
const meta = readJson("meta.json");
const imp = readJson("import.json");
const walk = readJson("walk.json");
const coldEmpty = readJson("coldstart-empty.json");
const cold1m = readJson("coldstart-1m.json");

interface Round {
  n: number;
  target: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  socketErrors: number;
  valid: boolean;
  why: string;
  /** Server CPU per answered request, microseconds; other processes' CPU during the round, s. */
  cpuUs: number;
  otherS: number;
}
/** One wrk output file: the RESULT line of cycle.lua and the CPU line of run.sh. */
function parseRound(name: string, n: number, target: string): Round {
  const text = readFileSync(join(dir, name), "utf8");
  const line = text.split("\n").find((l) => l.startsWith("RESULT "));
  const kv: Record<string, number> = {};
  for (const part of (line ?? "").split(" ").slice(1)) {
    const [k, v] = part.split("=");
    kv[k!] = Number(v);
  }
  const cpu: Record<string, number> = {};
  for (const part of (text.split("\n").find((l) => l.startsWith("CPU ")) ?? "").split(" ").slice(1)) {
    const [k, v] = part.split("=");
    cpu[k!] = Number(v);
  }
  const requests = kv.requests ?? 0;
  const non2xx = kv.non2xx ?? 0;
  const socketErrors = (kv.connect_errors ?? 0) + (kv.read_errors ?? 0) + (kv.write_errors ?? 0) + (kv.timeouts ?? 0);
  let why = "";
  if (!line) why = "no RESULT line (wrk failed)";
  else if (requests === 0) why = "no requests";
  else if (non2xx / requests > 0.01) why = `${((100 * non2xx) / requests).toFixed(2)}% non-2xx`;
  else if (socketErrors / requests > 0.01) why = `${socketErrors} socket errors`;
  if (kv.status_429) why = [why, `${kv.status_429} answered 429 (limiter)`].filter(Boolean).join("; ");
  return { n, target, requests, rps: kv.rps ?? 0, p50: kv.p50_ms ?? 0, p99: kv.p99_ms ?? 0, non2xx, socketErrors, valid: why === "", why,
    cpuUs: requests > 0 && cpu.server_s !== undefined ? (cpu.server_s * 1e6) / requests : NaN, otherS: cpu.other_s ?? NaN };
}
const rounds: Round[] = [];
const keyless: Round[] = [];
for (const name of readdirSync(dir).sort()) {
  const m = /^round-(\d+)-([a-z-]+)\.txt$/.exec(name);
  if (m) rounds.push(parseRound(name, Number(m[1]), m[2]!));
  const k = /^keyless-(\d+)-([a-z-]+)\.txt$/.exec(name);
  if (k) keyless.push(parseRound(name, Number(k[1]), k[2]!));
}
rounds.sort((a, b) => a.n - b.n || a.target.localeCompare(b.target));

const median = (xs: number[]) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const h = Math.floor(s.length / 2);
  return s.length % 2 ? s[h]! : (s[h - 1]! + s[h]!) / 2;
};
const f = (x: number, d = 0) => (Number.isFinite(x) ? x.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d }) : "n/a");
// A pair (ceiling n, trustlist n) counts when both rounds are valid and neither is noisy (other
// processes used more than noise_max_s CPU seconds during it). With fewer than 3 such pairs the
// medians fall back to every valid round, and the summary says so.
const noiseMax = Number(facts.noise_max_s ?? Infinity);
const noisy = (r: Round) => Number.isFinite(r.otherS) && r.otherS > noiseMax;
const pairOk = (n: number) => {
  const pair = rounds.filter((r) => r.n === n && (r.target === "ceiling" || r.target === "trustlist"));
  return pair.length === 2 && pair.every((r) => r.valid && !noisy(r));
};
const cleanPairs = [...new Set(rounds.filter((r) => r.target === "ceiling" || r.target === "trustlist").map((r) => r.n))].filter(pairOk);
const useClean = cleanPairs.length >= 3;
const mainTarget = (r: Round) => r.target === "ceiling" || r.target === "trustlist";
const counted = (r: Round) => r.valid && (!mainTarget(r) || !useClean || cleanPairs.includes(r.n));
const valid = (target: string) => rounds.filter((r) => r.target === target && counted(r));
const med = (target: string) => ({
  rps: median(valid(target).map((r) => r.rps)),
  p50: median(valid(target).map((r) => r.p50)),
  p99: median(valid(target).map((r) => r.p99)),
  cpuUs: median(valid(target).map((r) => r.cpuUs)),
  n: valid(target).length,
  all: rounds.filter((r) => r.target === target).length,
});
const ce = med("ceiling");
const tl = med("trustlist");
const nolog = med("trustlist-nolog");
const rpsRatio = tl.rps / ce.rps;
const pairNumbers = useClean
  ? cleanPairs
  : [...new Set(rounds.map((r) => r.n))].filter((n) => rounds.filter((r) => r.n === n && r.valid && (r.target === "ceiling" || r.target === "trustlist")).length === 2);
const pairRatio = (pick: (r: Round) => number) =>
  median(
    pairNumbers.map((n) => pick(rounds.find((r) => r.n === n && r.target === "trustlist")!) / pick(rounds.find((r) => r.n === n && r.target === "ceiling")!)),
  );
const p99Ratio = tl.p99 / ce.p99;
const pass = (ok: boolean) => (ok ? "PASS" : "FAIL");

const out: string[] = [];
out.push(`# trustlist load benchmark`);
out.push("");
out.push(`- when: ${facts.started_at ?? "?"} (total ${facts.total_seconds ?? "?"} s)`);
out.push(`- machine: ${facts.cpu ?? "?"}, ${facts.cores ?? "?"} cores; bun ${facts.bun ?? "?"}; ${facts.wrk ?? "wrk"}`);
out.push(`- source: ${facts.git ?? "?"}; load average before / after: ${facts.loadavg_before ?? "?"} / ${facts.loadavg_after ?? "?"} (other work on the machine skews the figures)`);
out.push(
  `- load: wrk ${facts.threads}t/${facts.connections}c, ${facts.duration}s per round, ${facts.rounds} alternating rounds per server after a ${facts.warmup}s warm-up each; queries: ${meta ? f(meta.queries) : "?"} paths of GET /v1/blacklist/check, half hits, half misses, 10% with a vertical`,
);
out.push(`- trustlist: \`dist/trustlist serve\` with the access log ON (stdout to /dev/null), key of rate tier partner with --burst 1000000, account quota 1e9`);
out.push(`- ceiling: \`bun bench/ceiling.ts\` (Bun.serve + one prepared statement + Map key check, same SQLite file, same JSON, the engine settings \`serve\` runs with)`);
out.push("");
out.push(`## Data and import`);
out.push("");
if (meta) {
  out.push(
    `- data set: ${f(meta.entries)} entries (${f((meta.linked_entries_by_connection ?? 0) + (meta.linked_entries_by_creator_field ?? 0))} of them naming a creator), ${f(meta.subjects)} subjects, ${f(meta.active_confirmed)} active confirmed, ${f(meta.watchlist)} watchlist, ${f(meta.high_risk)} high-risk, ${f(meta.overturned)} overturned, ${f(meta.expired)} expired, ${f(meta.with_future_expiry)} with a future expiry (${facts.generated === "reused" ? "reused from bench/data, generated earlier" : "generated"} in ${f(meta.generated_ms / 1000, 1)} s)`,
  );
}
if (meta?.creators) {
  out.push(
    `- creators: ${f(meta.creators)} creators, ${f(meta.connections)} connections (${f(meta.public_connections)} public, ${f(meta.verified_connections)} public and verified), ${f(meta.deals)} deals (${Object.entries(meta.deals_by_status ?? {}).map(([k, v]) => `${f(v as number)} ${k}`).join(", ")}), ${f(meta.reviews)} reviews, ${f(meta.vouches)} vouches, ${f(meta.referrals)} referrals; blacklisted creators: ${f(meta.blacklisted_creators)} expected by the generator, ${facts.creators_blacklisted_db ? f(Number(facts.creators_blacklisted_db)) : "?"} in the database`,
  );
}
if (imp) {
  const what = meta?.creators ? `the whole data set (${f(imp.lines)} lines: ${f(imp.creators)} creators, ${f(imp.connections)} connections, ${f(imp.deals + imp.reviews + imp.vouches + imp.referrals)} deals/reviews/vouches/referrals, ${f(imp.entries)} entries)` : `${f(imp.entries)} entries`;
  out.push(
    `- import of ${what} into a fresh database: **${f(Number(facts.import_wall_s), 1)} s** wall, median of ${String(facts.import_walls_s ?? facts.import_wall_s).split(",").map((s) => f(Number(s), 1)).join(", ")} s (process start to exit; ${f(imp.seconds, 1)} s inside the last one's transaction), ${f(imp.lines / Number(facts.import_wall_s))} lines/s; database **${f(Number(facts.db_bytes) / 1048576)} MiB**${Number(facts.db_wal_bytes) > 0 ? ` (+ ${f(Number(facts.db_wal_bytes) / 1048576)} MiB WAL)` : ""}`,
  );
} else out.push(`- import: FAILED (see import.err)`);
if (facts.import_entries_wall_s && facts.raw_load_wall_s) {
  // The import's target is a ratio to the raw load of the same file, measured in the same run.
  const ratio = Number(facts.import_entries_wall_s) / Number(facts.raw_load_wall_s);
  out.push(
    `- the entries alone (${meta ? f(meta.entries) : "?"}, without the creators): import **${f(Number(facts.import_entries_wall_s), 1)} s** (${facts.import_entries_walls_s} s), raw load (bench/raw-load.ts) **${f(Number(facts.raw_load_wall_s), 1)} s** (${facts.raw_load_walls_s} s): import / raw load **${f(ratio, 2)}** (target <= 1.5): **${pass(ratio <= 1.5)}**`,
  );
}
out.push("");
out.push(`## Start and memory`);
out.push("");
if (coldEmpty) out.push(`- cold start to first 200 on /healthz, empty database: **${f(coldEmpty.median_ms, 1)} ms** median of ${coldEmpty.runs_ms.join(", ")} ms (server-logged startup ${coldEmpty.server_startup_ms.join(", ")} ms)`);
if (cold1m) out.push(`- cold start to first 200 on /healthz, full database: **${f(cold1m.median_ms, 1)} ms** median of ${cold1m.runs_ms.join(", ")} ms (server-logged startup ${cold1m.server_startup_ms.join(", ")} ms)`);
{
  // The target is a ratio to the raw ceiling's peak on the same data, measured in the same run.
  const rssRatio = Number(facts.trustlist_vmhwm_kb) / Number(facts.ceiling_vmhwm_kb);
  out.push(
    `- peak RSS (VmHWM) of the trustlist server over the load rounds and the walk: **${f(Number(facts.trustlist_vmhwm_kb) / 1024)} MiB** (VmRSS at the end ${f(Number(facts.trustlist_vmrss_kb) / 1024)} MiB); ceiling server: ${f(Number(facts.ceiling_vmhwm_kb) / 1024)} MiB; trustlist / ceiling **${f(rssRatio, 2)}** (target <= 2): **${pass(rssRatio <= 2)}**`,
    ...(facts.trustlist_rssanon_kb
      ? [`  - at the end, the process's own memory (RssAnon) and its file pages (RssFile: the binary's code and the database's mapped pages): trustlist ${f(Number(facts.trustlist_rssanon_kb) / 1024)} + ${f(Number(facts.trustlist_rssfile_kb) / 1024)} MiB, ceiling ${f(Number(facts.ceiling_rssanon_kb) / 1024)} + ${f(Number(facts.ceiling_rssfile_kb) / 1024)} MiB`]
      : []),
  );
}
out.push("");
out.push(`## GET /v1/blacklist/check under load`);
out.push("");
out.push(`| round | ceiling rps | ceiling p50 ms | ceiling p99 ms | trustlist rps | trustlist p50 ms | trustlist p99 ms | rps ratio | p99 ratio | server CPU µs/req ceiling / trustlist | other CPU s | notes |`);
out.push(`|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|`);
const maxRound = Math.max(0, ...rounds.filter((r) => r.target === "ceiling" || r.target === "trustlist").map((r) => r.n));
for (let n = 1; n <= maxRound; n++) {
  const c = rounds.find((r) => r.n === n && r.target === "ceiling");
  const t = rounds.find((r) => r.n === n && r.target === "trustlist");
  const notes = [
    c && !c.valid ? `ceiling INVALID: ${c.why}` : "",
    t && !t.valid ? `trustlist INVALID: ${t.why}` : "",
    t && t.non2xx ? `${t.non2xx} non-2xx` : "",
    (c && noisy(c)) || (t && noisy(t)) ? `noisy (other CPU > ${noiseMax} s)${useClean ? ": not in medians" : ""}` : "",
  ]
    .filter(Boolean)
    .join("; ");
  out.push(
    `| ${n} | ${c ? f(c.rps) : "-"} | ${c ? f(c.p50, 3) : "-"} | ${c ? f(c.p99, 3) : "-"} | ${t ? f(t.rps) : "-"} | ${t ? f(t.p50, 3) : "-"} | ${t ? f(t.p99, 3) : "-"} | ${c && t ? f(t.rps / c.rps, 3) : "-"} | ${c && t ? f(t.p99 / c.p99, 3) : "-"} | ${c ? f(c.cpuUs, 1) : "-"} / ${t ? f(t.cpuUs, 1) : "-"} | ${c ? f(c.otherS, 1) : "-"} / ${t ? f(t.otherS, 1) : "-"} | ${notes} |`,
  );
}
out.push(
  `| **median** | **${f(ce.rps)}** | ${f(ce.p50, 3)} | **${f(ce.p99, 3)}** | **${f(tl.rps)}** | ${f(tl.p50, 3)} | **${f(tl.p99, 3)}** | **${f(pairRatio((r) => r.rps), 3)}** | **${f(pairRatio((r) => r.p99), 3)}** | ${f(ce.cpuUs, 1)} / ${f(tl.cpuUs, 1)} | | rounds in medians: ceiling ${ce.n}/${ce.all}, trustlist ${tl.n}/${tl.all} |`,
);
out.push("");
const pairRps = pairRatio((r) => r.rps);
const pairP99 = pairRatio((r) => r.p99);
const caveat = useClean ? "" : " (unreliable: noisy machine, see below)";
out.push(
  `- throughput ratio trustlist/ceiling, median of the per-pair ratios (each pair ran back to back): **${f(pairRps, 3)}** (target >= 0.8): **${pass(pairRps >= 0.8)}**${caveat}; ratio of the medians: ${f(rpsRatio, 3)}`,
);
out.push(
  `- p99 ratio trustlist/ceiling, median of the per-pair ratios: **${f(pairP99, 3)}** (target <= 1.25): **${pass(pairP99 <= 1.25)}**${caveat}; ratio of the medians: ${f(p99Ratio, 3)}`,
);
out.push(
  `- server CPU per request (medians): ceiling ${f(ce.cpuUs, 1)} µs, trustlist ${f(tl.cpuUs, 1)} µs (${f(tl.cpuUs / ce.cpuUs, 2)}x); "other CPU" is machine CPU outside the server and wrk during the round (the idle server's timers, anything else running; a few tenths below zero is accounting bias), and a round with more than ${noiseMax} s of it is "noisy"`,
);
out.push(`- pairs in the ratios: ${pairNumbers.join(", ") || "none"}`);
if (!useClean) out.push(`- WARNING: fewer than 3 quiet pairs (other CPU <= ${noiseMax} s); the medians include noisy rounds: rerun on a quiet machine`);
const invalid = rounds.filter((r) => !r.valid);
if (invalid.length) out.push(`- INVALID rounds (excluded from medians): ${invalid.map((r) => `${r.target} #${r.n} (${r.why})`).join(", ")}`);
if (nolog.all > 0) {
  const quietPair = (n: number) =>
    ["ceiling-for-nolog", "trustlist-nolog"].every((target) => rounds.some((r) => r.n === n && r.target === target && r.valid && !noisy(r)));
  const nologPairs = [...new Set(rounds.filter((r) => r.target === "trustlist-nolog").map((r) => r.n))].filter(quietPair);
  const nologRatio = (pick: (r: Round) => number) =>
    median(
      nologPairs.map(
        (n) => pick(rounds.find((r) => r.n === n && r.target === "trustlist-nolog")!) / pick(rounds.find((r) => r.n === n && r.target === "ceiling-for-nolog")!),
      ),
    );
  const ce2 = med("ceiling-for-nolog");
  out.push(
    `- same binary restarted with \`--access-log off\`, ${nolog.all} more pair(s) of rounds (ceiling, trustlist): trustlist median ${f(nolog.rps)} rps, p99 ${f(nolog.p99, 3)} ms, ${f(nolog.cpuUs, 1)} µs server CPU per request; ceiling in those pairs ${f(ce2.rps)} rps, ${f(ce2.cpuUs, 1)} µs; per-pair ratios over the ${nologPairs.length} quiet pair(s): rps **${f(nologRatio((r) => r.rps), 3)}**, p99 **${f(nologRatio((r) => r.p99), 3)}**`,
  );
  for (const n of [...new Set(rounds.filter((r) => r.target === "trustlist-nolog").map((r) => r.n))]) {
    const c = rounds.find((r) => r.n === n && r.target === "ceiling-for-nolog");
    const t = rounds.find((r) => r.n === n && r.target === "trustlist-nolog")!;
    out.push(
      `  - pair ${n}: ceiling ${c ? f(c.rps) : "-"} rps / p99 ${c ? f(c.p99, 3) : "-"} ms; trustlist (log off) ${f(t.rps)} rps / p99 ${f(t.p99, 3)} ms${!t.valid ? ` INVALID: ${t.why}` : ""}${(c && noisy(c)) || noisy(t) ? ` (noisy: other CPU ${c ? f(c.otherS, 1) : "-"} / ${f(t.otherS, 1)} s)` : ""}`,
    );
  }
}
out.push("");
// ---- keyless routes ------------------------------------------------------------------------
if (keyless.length > 0) {
  // Targets are ratios to the keyed check measured in the same round, so they mean the same on
  // any machine: every keyless route's p99 at most P99_RATIO_TARGET times the keyed check's; the
  // search and the directory's server CPU per request at most CPU_RATIO_TARGET times its.
  const P99_RATIO_TARGET = 2;
  const CPU_RATIO_TARGET = 4;
  const BADGE_RATIO_TARGET = 0.5;
  const kConns = facts.keyless_connections ?? "16";
  const kMed = (target: string) => {
    const all = keyless.filter((r) => r.target === target);
    const ok = all.filter((r) => r.valid);
    return {
      rps: median(ok.map((r) => r.rps)),
      p50: median(ok.map((r) => r.p50)),
      p99: median(ok.map((r) => r.p99)),
      worstP99: Math.max(...ok.map((r) => r.p99)),
      cpuUs: median(ok.map((r) => r.cpuUs)),
      n: ok.length,
      all: all.length,
    };
  };
  /** The median over rounds of a route's figure divided by the keyed check's in the same round. */
  const toCheck = (target: string, pick: (r: Round) => number) =>
    median(
      [...new Set(keyless.map((r) => r.n))]
        .map((n) => [keyless.find((r) => r.n === n && r.target === target), keyless.find((r) => r.n === n && r.target === "check")] as const)
        .filter(([route, c]) => route?.valid && c?.valid)
        .map(([route, c]) => pick(route!) / pick(c!)),
    );
  const check = kMed("check");
  const badge = kMed("badge");
  const badgePairs = [...new Set(keyless.map((r) => r.n))]
    .map((n) => [keyless.find((r) => r.n === n && r.target === "badge"), keyless.find((r) => r.n === n && r.target === "check")] as const)
    .filter(([b, c]) => b?.valid && c?.valid)
    .map(([b, c]) => b!.rps / c!.rps);
  const badgeRatio = median(badgePairs);
  const p99Ok = (target: string) => toCheck(target, (r) => r.p99) <= P99_RATIO_TARGET;
  const cpuOk = (target: string) => toCheck(target, (r) => r.cpuUs) <= CPU_RATIO_TARGET;
  const p99Goal = (target: string) => ({ target, goal: `p99 <= ${P99_RATIO_TARGET}x keyed`, ok: () => p99Ok(target) });
  const tailGoal = (target: string) => ({ target, goal: `p99 <= ${P99_RATIO_TARGET}x, CPU <= ${CPU_RATIO_TARGET}x keyed`, ok: () => p99Ok(target) && cpuOk(target) });
  const ROUTES: Array<{ target: string; route: string; goal: string; ok: () => boolean | null }> = [
    { target: "check", route: "GET /v1/blacklist/check (keyed, the yardstick)", goal: "-", ok: () => null },
    { route: "GET /v1/public/blacklist/check?q=", ...tailGoal("search") },
    { route: "GET /v1/public/directory?q= (pages 1-3)", ...tailGoal("directory") },
    { route: "GET /v1/public/directory (last pages within page x limit <= 1000)", ...tailGoal("directory-deep") },
    { route: "GET /v1/public/resolve", ...p99Goal("resolve") },
    { route: "GET /v1/public/trust/{handle}", ...p99Goal("trust") },
    { route: "GET /v1/public/users/{handle}/vouches", ...p99Goal("vouches") },
    { route: "GET /referrals/leaderboard", ...p99Goal("leaderboard") },
    { route: "GET /v1/stats/public", ...p99Goal("stats") },
    {
      target: "badge",
      route: "GET /badge/{handle}",
      goal: `p99 <= ${P99_RATIO_TARGET}x keyed, rps >= ${BADGE_RATIO_TARGET}x keyed`,
      ok: () => p99Ok("badge") && badgeRatio >= BADGE_RATIO_TARGET,
    },
  ];
  out.push(`## Keyless routes under load (${facts.threads}t/${kConns}c, same server process and data)`);
  out.push("");
  out.push(
    `Each of ${facts.keyless_rounds} round(s) runs the keyed check, then each keyless route below, ${facts.duration}s each, against the server of the rounds above (started with \`--trust-proxy\`; every keyless request carries its own X-Forwarded-For, so the per-IP limit is not what is measured). Figures are medians over the valid rounds.`,
  );
  out.push("");
  out.push(`| route | requests/s | p50 ms | p99 ms | worst round p99 ms | server CPU µs/req | p99 / keyed | CPU / keyed | target | result | rounds |`);
  out.push(`|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|`);
  for (const r of ROUTES) {
    const m = kMed(r.target);
    const verdict = m.n === 0 ? "**FAIL** (no valid round)" : (() => {
      const ok = r.ok();
      return ok === null ? "-" : `**${pass(ok)}**`;
    })();
    const ratios = r.target === "check" ? "1 | 1" : `${f(toCheck(r.target, (x) => x.p99), 2)} | ${f(toCheck(r.target, (x) => x.cpuUs), 2)}`;
    out.push(`| ${r.route} | ${f(m.rps)} | ${f(m.p50, 3)} | ${f(m.p99, 3)} | ${f(m.worstP99, 3)} | ${f(m.cpuUs, 1)} | ${ratios} | ${r.goal} | ${verdict} | ${m.n}/${m.all} |`);
  }
  out.push("");
  out.push(
    `- badge / keyed check requests/s at ${kConns} connections: **${f(badgeRatio, 3)}** (median of the per-round ratios ${badgePairs.map((x) => f(x, 3)).join(", ") || "none"}; ratio of the medians ${f(badge.rps / check.rps, 3)}); target >= ${BADGE_RATIO_TARGET}: **${pass(badgeRatio >= BADGE_RATIO_TARGET)}**`,
  );
  out.push(`- keyed check at 32 connections in the rounds above: ${f(tl.rps)} requests/s, p99 ${f(tl.p99, 3)} ms`);
  const routeStatus = ROUTES.map((r) => r.target).filter((r) => facts[`route_status_${r}`] && facts[`route_status_${r}`] !== "200");
  if (routeStatus.length) out.push(`- WARNING: before the rounds ${routeStatus.map((r) => `${r} answered ${facts[`route_status_${r}`]}`).join(", ")}`);
  const badRounds = keyless.filter((r) => !r.valid);
  if (badRounds.length) out.push(`- INVALID rounds (excluded): ${badRounds.map((r) => `${r.target} #${r.n} (${r.why})`).join(", ")}`);
  const noisyRounds = keyless.filter((r) => r.valid && noisy(r));
  if (noisyRounds.length) out.push(`- noisy rounds (other CPU > ${noiseMax} s; kept in the medians): ${noisyRounds.map((r) => `${r.target} #${r.n} (${f(r.otherS, 1)} s)`).join(", ")}`);
  out.push("");
  out.push(`| round | ${ROUTES.map((r) => `${r.target} rps / p99 ms`).join(" | ")} |`);
  out.push(`|---|${ROUTES.map(() => "---:").join("|")}|`);
  for (const n of [...new Set(keyless.map((r) => r.n))].sort((a, b) => a - b)) {
    const cell = (target: string) => {
      const r = keyless.find((x) => x.n === n && x.target === target);
      return r ? `${f(r.rps)} / ${f(r.p99, 3)}${r.valid ? "" : " INVALID"}${noisy(r) ? " (noisy)" : ""}` : "-";
    };
    out.push(`| ${n} | ${ROUTES.map((r) => cell(r.target)).join(" | ")} |`);
  }
  out.push("");

  const probe = readJson("probe.json");
  if (probe?.routes) {
    out.push(`### Each query kind timed alone (one connection, nothing else in flight; ${probe.per_kind} queries per kind)`);
    out.push("");
    out.push(
      `Under load a request waits behind the ones ahead of it on the single server thread, so kinds that cost milliseconds alone make the p99 at ${kConns} connections. Latency here is client-side, loopback, including HTTP.`,
    );
    out.push("");
    out.push(`| route | kind | share of the wrk list | mean ms | p50 ms | p90 ms | p99 ms | max ms |`);
    out.push(`|---|---|---:|---:|---:|---:|---:|---:|`);
    const shares: Record<string, Record<string, number>> = { search: meta?.search_kinds ?? {}, directory: meta?.directory_kinds ?? {}, badge: meta?.badge_kinds ?? {} };
    const totals: Record<string, number> = { search: meta?.search_queries, directory: meta?.directory_queries, badge: meta?.badge_queries };
    for (const [route, data] of Object.entries<any>(probe.routes)) {
      const kinds = Object.entries<any>(data.kinds).sort((a, b) => b[1].mean_ms - a[1].mean_ms);
      for (const [kind, k] of kinds) {
        const share = shares[route]?.[kind];
        out.push(
          `| ${route} | ${kind} | ${share !== undefined && totals[route] ? `${f((100 * share) / totals[route]!, 0)}%` : "-"} | ${f(k.mean_ms, 3)} | ${f(k.p50_ms, 3)} | ${f(k.p90_ms, 3)} | ${f(k.p99_ms, 3)} | ${f(k.max_ms, 3)} |`,
        );
      }
    }
    if (probe.routes.search?.answers || probe.routes.directory?.answers) {
      out.push("");
      out.push(`The same timings grouped by what the answer held (search: found or not; directory: how many creators matched):`);
      out.push("");
      out.push(`| route | answer | queries | mean ms | p50 ms | p90 ms | p99 ms | max ms |`);
      out.push(`|---|---|---:|---:|---:|---:|---:|---:|`);
      for (const route of ["search", "directory"]) {
        const answers = probe.routes[route]?.answers ?? {};
        for (const [answer, k] of Object.entries<any>(answers).sort((a, b) => b[1].mean_ms - a[1].mean_ms)) {
          out.push(`| ${route} | ${answer} | ${f(k.n)} | ${f(k.mean_ms, 3)} | ${f(k.p50_ms, 3)} | ${f(k.p90_ms, 3)} | ${f(k.p99_ms, 3)} | ${f(k.max_ms, 3)} |`);
        }
      }
    }
    out.push("");
    for (const [route, data] of Object.entries<any>(probe.routes)) {
      if (!data.slowest?.length) continue;
      out.push(`- slowest ${route} queries: ${data.slowest.slice(0, 6).map((q: any) => `\`${q.query}\` (${q.kind}, ${f(q.ms, 1)} ms${q.extra ? `, ${q.extra}` : ""})`).join("; ")}`);
    }
    out.push("");
  }
}
const jobs = readJson("jobs.json");
out.push(`## Requests behind jobs (bench/jobs.ts)`);
out.push("");
if (jobs?.jobs) {
  const budget = (ms: number) => (ms <= 100 ? "PASS" : "FAIL");
  const kinds = (w: any) => Object.entries<number>(w.worst_by_kind ?? {}).map(([k, ms]) => `${k} ${f(ms, 1)}`).join(", ");
  out.push(
    `Each job run now through \`POST /v1/admin/jobs/{name}\` while ${jobs.connections} lanes each send /healthz, the keyed check and a directory query (2 ms apart); a wait counts for a job when the request was in flight while it ran. Target: no request waits more than 100 ms behind a job. The idle row is the same stream with no job running: this machine's noise floor.`,
  );
  out.push("");
  out.push(`| job | worked | duration | requests | p50 ms | p99 ms | worst ms | worst by kind (ms) | budget |`);
  out.push(`|---|---:|---:|---:|---:|---:|---:|---|---|`);
  const row = (name: string, w: any, worked: string, duration: string, judged: boolean) =>
    out.push(
      `| ${name} | ${worked} | ${duration} | ${f(w.requests)} | ${f(w.p50_ms, 1)} | ${f(w.p99_ms, 1)} | ${f(w.worst_ms, 1)} | ${kinds(w)} | ${judged ? budget(w.worst_ms) : "-"} |`,
    );
  if (jobs.startup) row(`start (warm-ups, first ${jobs.startup.window_s} s)`, jobs.startup, "-", `first answer ${f(jobs.startup.first_answer_ms)} ms`, false);
  if (jobs.idle) row("idle (no job)", jobs.idle, "-", "-", false);
  for (const j of jobs.jobs) row(j.job, j, j.worked === null ? "-" : f(j.worked), `${f(j.duration_ms / 1000, 1)} s`, true);
  out.push("");
  if (jobs.loadavg) out.push(`- load average at the end: ${jobs.loadavg}; ${f(jobs.due_entries)} entries made to lapse for expire-entries`);
  out.push("");
} else out.push(`- jobs bench did not run or failed (see jobs.err)`);
out.push("");
const outbox = readJson("outbox.json");
out.push(`## Webhook outbox (bench/outbox.ts)`);
out.push("");
if (outbox?.healthy) {
  out.push(
    `${f(outbox.events)} \`blacklist.added\` events per phase to a receiver on loopback while wrk sends the keyed check on ${outbox.connections} connections: a backlog committed at once (how fast it drains), then events committed at a steady rate, with and without a hanging receiver beside the healthy one. Targets: at least 500 deliveries/s, p99 commit-to-receipt under 1 s, the check's throughput down by no more than 20 %, and the hanging receiver changing neither.`,
  );
  out.push("");
  out.push(`| phase | committed/s | deliveries/s | p50 ms | p99 ms | max ms | checks/s meanwhile (idle ${f(outbox.checks_per_s_idle)}) |`);
  out.push(`|---|---:|---:|---:|---:|---:|---:|`);
  for (const p of [outbox.backlog, outbox.healthy, outbox.with_hanging_receiver].filter(Boolean)) {
    const committed = typeof p.committed_per_s === "number" ? f(p.committed_per_s) : (p.committed_per_s ?? "all at once");
    out.push(`| ${p.phase} | ${committed} | ${f(p.deliveries_per_s)} | ${f(p.commit_to_receipt_ms.p50)} | ${f(p.commit_to_receipt_ms.p99)} | ${f(p.commit_to_receipt_ms.max)} | ${f(p.checks_per_s_while_draining)} |`);
  }
  if (outbox.loadavg) out.push(`\n- load average at the end: ${outbox.loadavg}`);
} else out.push(`- outbox bench did not run or failed (see outbox.err)`);
out.push("");
const moderation = readJson("moderation.json");
out.push(`## Moderation (bench/moderation.ts)`);
out.push("");
if (moderation?.queue_alone) {
  out.push(
    `The keyed check (wrk, ${moderation.connections} connections, alternating rounds) on the bench database as imported and on a copy holding ${f(moderation.cases)} open cases and ${f(moderation.audit_events)} audit events; then the moderation queue (\`GET /v1/moderation/cases?status=open&limit=50\`, walked page by page through the cursor) alone and while checks run. Targets: checks no slower (ratio at least 0.95, the rounds' spread); queue p99 under 50 ms both ways.`,
  );
  out.push("");
  out.push(`| | plain | with moderation | ratio |`);
  out.push(`|---|---:|---:|---:|`);
  out.push(`| keyed check req/s (median of ${moderation.rounds.length}) | ${f(moderation.check_rps_plain)} | ${f(moderation.check_rps_moderated)} | ${moderation.check_ratio} |`);
  out.push(`| keyed check p99 ms | ${moderation.check_p99_plain_ms} | ${moderation.check_p99_moderated_ms} | |`);
  out.push("");
  out.push(`| queue pages | requests | deepest page | p50 ms | p99 ms | max ms |`);
  out.push(`|---|---:|---:|---:|---:|---:|`);
  for (const [name, q] of [["alone", moderation.queue_alone], [`under checks (${f(moderation.queue_under_checks.checks_per_s)}/s)`, moderation.queue_under_checks]] as const) {
    out.push(`| ${name} | ${q.requests} | ${q.deepest_page} | ${q.p50_ms} | ${q.p99_ms} | ${q.max_ms} |`);
  }
  if (moderation.loadavg) out.push(`\n- load average at the end: ${moderation.loadavg}`);
} else out.push(`- moderation bench did not run or failed (see moderation.err)`);
out.push("");
out.push(`## Full list walk (GET /v1/blacklist?limit=100 following next_cursor)`);
out.push("");
if (walk) {
  out.push(
    `- ${walk.ok ? "OK" : "FAILED"}: **${f(walk.seconds, 2)} s** for ${f(walk.pages)} pages, ${f(walk.entries)} entries seen (${f(walk.unique)} unique, ${walk.duplicates} duplicates, ${walk.out_of_order} out of order); expected active confirmed: ${f(walk.expected_from_db)} (database), ${f(walk.expected_from_generator)} (generator): ${walk.entries === walk.expected_from_db ? "match" : "MISMATCH"}`,
  );
  out.push(`- ${f(walk.pages_per_s)} pages/s, mean ${f(walk.mean_page_ms, 3)} ms per page (sequential, one connection), slowest page ${f(walk.slowest_page_ms, 1)} ms${walk.error ? `; error: ${walk.error}` : ""}`);
} else out.push(`- walk did not run or failed (see walk.err)`);
out.push("");
console.log(out.join("\n"));
