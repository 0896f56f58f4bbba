#!/usr/bin/env bun
// Writes the benchmark data set, deterministically (seeded PRNG):
//   <out>/entries.jsonl   N blacklist entries in the import format of SPEC section 9
//   <out>/queries.txt     request paths for wrk: half hits (subjects on the list), half misses
//   <out>/meta.json       counts, among them the active confirmed entries a full list walk must see
//
// Usage: bun bench/generate.ts [--entries 1000000] [--queries 200000] [--seed 42] [--out bench/data]
//
// Every timestamp is fixed (no "now"), so the same arguments write byte-identical files. issued_at
// lies in 2023-01-01 .. 2026-10-31; future expiries lie in 2027-07 .. 2030, so they stay "active"
// until mid-2027 (meta.json records the earliest one).
import { mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    entries: { type: "string", default: "1000000" },
    queries: { type: "string", default: "200000" },
    seed: { type: "string", default: "42" },
    out: { type: "string", default: "bench/data" },
  },
  strict: true,
});
const N = Number(values.entries);
const Q = Number(values.queries);
const SEED = Number(values.seed);
const OUT = values.out!;
if (!Number.isInteger(N) || N < 1 || !Number.isInteger(Q) || Q < 2) throw new Error("--entries and --queries must be positive integers");

// ---- PRNG: sfc32 seeded through splitmix32 --------------------------------------------------
function splitmix32(a: number) {
  return () => {
    a |= 0;
    a = (a + 0x9e3779b9) | 0;
    let t = a ^ (a >>> 16);
    t = Math.imul(t, 0x21f0aaad);
    t = t ^ (t >>> 15);
    t = Math.imul(t, 0x735a2d97);
    return ((t = t ^ (t >>> 15)) >>> 0);
  };
}
function sfc32(seed: number) {
  const sm = splitmix32(seed);
  let a = sm(), b = sm(), c = sm(), d = sm();
  const next = () => {
    a |= 0; b |= 0; c |= 0; d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}
const rand = sfc32(SEED);
const int = (n: number) => Math.floor(rand() * n); // 0 .. n-1
const chance = (p: number) => rand() < p;
function weighted<T>(table: ReadonlyArray<readonly [T, number]>): () => T {
  const total = table.reduce((s, [, w]) => s + w, 0);
  return () => {
    let r = rand() * total;
    for (const [v, w] of table) if ((r -= w) < 0) return v;
    return table[table.length - 1]![0];
  };
}

// ---- id shapes per provider -----------------------------------------------------------------
const HEX = "0123456789abcdef";
const ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const YT = ALNUM + "-_";
function digits(len: number): string {
  let s = String(1 + int(9));
  while (s.length < len) {
    const chunk = String(int(1e9)).padStart(9, "0");
    s += chunk.slice(0, len - s.length);
  }
  return s;
}
function chars(alphabet: string, len: number): string {
  let s = "";
  for (let i = 0; i < len; i++) s += alphabet[int(alphabet.length)];
  return s;
}

type Provider = "discord" | "roblox" | "epic" | "minecraft" | "youtube" | "twitch" | "twitter" | "tiktok" | "github";
const pickProvider = weighted<Provider>([
  ["discord", 45],
  ["roblox", 25],
  ["epic", 8],
  ["minecraft", 8],
  ["youtube", 4],
  ["twitch", 4],
  ["twitter", 2],
  ["tiktok", 2],
  ["github", 2],
]);

/** A fresh id in the provider's stored (normalised) form. */
function newAccountId(p: Provider): string {
  switch (p) {
    case "discord":
      return digits(17 + int(3)); // snowflakes: 17-19 digits
    case "roblox":
      return digits(7 + int(4)); // 7-10 digits
    case "epic":
      return chars(HEX, 32);
    case "minecraft":
      return chars(HEX, 32); // stored without dashes
    case "youtube":
      return "UC" + chars(YT, 22);
    case "twitch":
      return digits(8 + int(2));
    case "twitter":
      return digits(int(2) ? 19 : 9 + int(2));
    case "tiktok":
      return digits(19);
    case "github":
      return digits(5 + int(4));
  }
}

/** How a client might send that id: Minecraft UUIDs often dashed, Epic ids sometimes upper case. */
function asSent(p: Provider, id: string): string {
  if (p === "minecraft" && chance(0.6)) return `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
  if (p === "epic" && chance(0.2)) return id.toUpperCase();
  return id;
}

// ---- entry attributes -----------------------------------------------------------------------
const pickSeverity = weighted([
  ["ban", 55],
  ["restrict", 25],
  ["warn", 20],
] as const);
const REASONS = [
  "scam_trade", "chargeback", "impersonation", "harassment", "doxxing", "account_theft", "payment_fraud",
  "asset_theft", "leaked_assets", "exploit_distribution", "spam", "hate_speech", "underage", "ban_evasion",
  "commission_no_delivery", "fake_vouch", "phishing", "malware",
] as const;
const SUMMARIES = [
  "Took payment for a map and never delivered.",
  "Charged back a completed commission.",
  "Impersonated a verified creator to collect payments.",
  "Shared stolen assets from a paid pack.",
  "Posted phishing links in several community servers.",
  "Sold an account that was later recovered by its owner.",
  "Repeated harassment after a warning.",
  "Distributed an exploit that wiped player data.",
  "Fake vouches from alt accounts.",
  "Left a group project with the shared funds.",
] as const;
const USER_PREFIX = ["shadow", "pixel", "nova", "blox", "crafty", "frost", "neon", "lunar", "turbo", "echo", "vortex", "zen"];
const VERTICAL_OF: Partial<Record<Provider, string>> = { roblox: "roblox", epic: "uefn", minecraft: "minecraft" };
const VERTICALS = ["roblox", "uefn", "minecraft"] as const;

const ISSUED_FROM = Date.parse("2023-01-01T00:00:00.000Z");
const ISSUED_TO = Date.parse("2026-10-31T00:00:00.000Z");
const EXPIRES_FROM = Date.parse("2027-07-01T00:00:00.000Z");
const EXPIRES_SPAN = Date.parse("2030-12-31T00:00:00.000Z") - EXPIRES_FROM;
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

// ---- generation -----------------------------------------------------------------------------
mkdirSync(OUT, { recursive: true });
const entriesPath = join(OUT, "entries.jsonl");
const queriesPath = join(OUT, "queries.txt");
const started = performance.now();

// Subjects: provider index + stored id. About 12% of entries name a subject seen before (repeat
// offenders with 2-3 entries), so the check path reads more than one row for some ids.
const PROVIDER_LIST: Provider[] = ["discord", "roblox", "epic", "minecraft", "youtube", "twitch", "twitter", "tiktok", "github"];
const subjectProvider = new Uint8Array(N);
const subjectId: string[] = [];
const known = new Set<string>();

const counts = {
  entries: 0,
  subjects: 0,
  active_confirmed: 0,
  watchlist: 0,
  high_risk: 0,
  overturned: 0,
  expired: 0,
  with_future_expiry: 0,
  by_provider: {} as Record<string, number>,
  by_severity: {} as Record<string, number>,
  vertical_scope: 0,
};

const tmpEntries = entriesPath + ".tmp";
const writer = Bun.file(tmpEntries).writer({ highWaterMark: 1 << 20 });
let issued = ISSUED_FROM;
const step = (ISSUED_TO - ISSUED_FROM) / N;

for (let i = 0; i < N; i++) {
  let p: Provider;
  let id: string;
  if (counts.subjects > 1000 && chance(0.12)) {
    const s = int(counts.subjects);
    p = PROVIDER_LIST[subjectProvider[s]!]!;
    id = subjectId[s]!;
  } else {
    p = pickProvider();
    do id = newAccountId(p);
    while (known.has(p + ":" + id));
    known.add(p + ":" + id);
    subjectProvider[counts.subjects] = PROVIDER_LIST.indexOf(p);
    subjectId.push(id);
    counts.subjects++;
  }
  // Issue times rise with jitter, like an export from another system.
  issued += Math.floor(rand() * 2 * step);
  const issuedAt = Math.min(issued, ISSUED_TO);

  const severity = pickSeverity();
  const verticalScoped = chance(0.35);
  const vertical = verticalScoped ? (VERTICAL_OF[p] && chance(0.8) ? VERTICAL_OF[p]! : VERTICALS[int(3)]!) : "all";
  const line: Record<string, unknown> = {
    type: "entry",
    provider: p,
    provider_user_id: asSent(p, id),
    severity,
    scope: verticalScoped ? "vertical" : "global",
    vertical,
    reason_code: REASONS[int(REASONS.length)],
    appealable: chance(0.8),
    issued_at: iso(issuedAt),
  };
  if (chance(0.5)) line.username = `${USER_PREFIX[int(USER_PREFIX.length)]}_${int(100000)}`;
  if (chance(0.6)) line.summary = SUMMARIES[int(SUMMARIES.length)];

  const watchlist = chance(0.04);
  const highRisk = chance(0.03);
  if (watchlist) line.watchlist = true;
  if (highRisk) line.high_risk = true;

  // Status: ~2% overturned, ~1% already expired (marked so: no expiry job work during the run).
  const r = rand();
  let status: "active" | "overturned" | "expired" = "active";
  if (r < 0.02) status = "overturned";
  else if (r < 0.03) status = "expired";
  if (status === "expired") {
    line.expires_at = iso(issuedAt + (1 + int(180)) * DAY);
    line.status = "expired";
  } else {
    if (chance(0.15)) {
      line.expires_at = iso(EXPIRES_FROM + Math.floor(rand() * EXPIRES_SPAN));
      counts.with_future_expiry++;
    }
    if (status === "overturned") line.status = "overturned";
  }

  counts.entries++;
  counts.by_provider[p] = (counts.by_provider[p] ?? 0) + 1;
  counts.by_severity[severity] = (counts.by_severity[severity] ?? 0) + 1;
  if (verticalScoped) counts.vertical_scope++;
  if (watchlist) counts.watchlist++;
  if (highRisk) counts.high_risk++;
  if (status === "overturned") counts.overturned++;
  if (status === "expired") counts.expired++;
  if (status === "active" && !watchlist) counts.active_confirmed++;

  writer.write(JSON.stringify(line) + "\n");
}
await writer.end();
renameSync(tmpEntries, entriesPath);
const entriesMs = performance.now() - started;

// ---- queries: alternating hit / miss in shuffled blocks ------------------------------------
const qWriter = Bun.file(queriesPath + ".tmp").writer({ highWaterMark: 1 << 20 });
let hits = 0;
let misses = 0;
for (let i = 0; i < Q; i++) {
  let p: Provider;
  let id: string;
  if (i % 2 === 0) {
    const s = int(counts.subjects);
    p = PROVIDER_LIST[subjectProvider[s]!]!;
    id = subjectId[s]!;
    hits++;
  } else {
    p = pickProvider();
    do id = newAccountId(p);
    while (known.has(p + ":" + id));
    misses++;
  }
  let path = `/v1/blacklist/check?provider=${p}&id=${asSent(p, id)}`;
  if (chance(0.1)) path += `&vertical=${VERTICALS[int(3)]}`;
  qWriter.write(path + "\n");
}
await qWriter.end();
renameSync(queriesPath + ".tmp", queriesPath);

const meta = {
  seed: SEED,
  ...counts,
  queries: Q,
  query_hits: hits,
  query_misses: misses,
  earliest_future_expiry: iso(EXPIRES_FROM),
  generated_ms: Math.round(performance.now() - started),
  entries_ms: Math.round(entriesMs),
};
await Bun.write(join(OUT, "meta.json"), JSON.stringify(meta, null, 2) + "\n");
console.error(
  `generated ${N} entries (${counts.subjects} subjects, ${counts.active_confirmed} active confirmed) and ${Q} queries in ${(meta.generated_ms / 1000).toFixed(1)} s -> ${OUT}`,
);
