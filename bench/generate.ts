#!/usr/bin/env bun
// Writes the benchmark data set, deterministically (seeded PRNG), in the import format of docs/cli.md,
// plus the request lists the wrk scripts cycle through:
//   <out>/dataset.jsonl   in an order `trustlist import` accepts: every creator followed by its
//                         connections, then deals (each completed one followed by its reviews),
//                         vouches and referrals, then the N blacklist entries; a few thousand
//                         entries name a creator's connection or carry `creator: <handle>`
//   <out>/queries.txt     paths of the keyed GET /v1/blacklist/check: half hits, half misses
//   <out>/search.txt      `kind<TAB>q` for GET /v1/public/blacklist/check?q= (handle, username,
//                         id, typo, unknown: ~40/20/20/15/5 %)
//   <out>/directory.txt   `kind<TAB>q<TAB>sort<TAB>page` for GET /v1/public/directory: 3-8
//                         character fragments of handles, display names and usernames
//   <out>/badge.txt       `kind<TAB>handle<TAB>theme` for GET /badge/{handle}: 90% known, half light
//   <out>/meta.json       counts, among them the active confirmed entries a full list walk must see
// The query files hold raw values; the wrk scripts URL-encode them.
//
// Usage: bun bench/generate.ts [--entries 1000000] [--queries 200000] [--creators 100000]
//          [--connections 300000] [--vouches 6000] [--deals 5000] [--referrals 3000]
//          [--linked-entries 4000] [--search-queries 50000] [--directory-queries 30000]
//          [--badge-queries 50000] [--seed 42] [--out bench/data]
//   --creators 0 writes the foundation data set (entries only).
//
// Every timestamp is fixed (no "now"), so the same arguments write byte-identical files. issued_at
// lies in 2023-01-01 .. 2026-10-31; future expiries lie in 2027-07 .. 2030, so they stay "active"
// until mid-2027 (meta.json records the earliest one). Creators joined in the 3 years before
// 2026-11-01.
import { mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

/** Bump when the output changes shape, so run.sh regenerates data written by an older generator. */
const FORMAT = 2;

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    entries: { type: "string", default: "1000000" },
    queries: { type: "string", default: "200000" },
    creators: { type: "string", default: "100000" },
    connections: { type: "string", default: "300000" },
    vouches: { type: "string", default: "6000" },
    deals: { type: "string", default: "5000" },
    referrals: { type: "string", default: "3000" },
    "linked-entries": { type: "string", default: "4000" },
    "search-queries": { type: "string", default: "50000" },
    "directory-queries": { type: "string", default: "30000" },
    "badge-queries": { type: "string", default: "50000" },
    seed: { type: "string", default: "42" },
    out: { type: "string", default: "bench/data" },
  },
  strict: true,
});
const count = (name: keyof typeof values, min = 0) => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}`);
  return n;
};
const N = count("entries", 1);
const Q = count("queries", 2);
const CREATORS = count("creators");
const CONNECTIONS = CREATORS === 0 ? 0 : Math.min(Math.max(count("connections"), CREATORS), 5 * CREATORS);
const VOUCHES = CREATORS < 2 ? 0 : count("vouches");
const DEALS = CREATORS < 2 ? 0 : count("deals");
const REFERRALS = CREATORS < 2 ? 0 : Math.min(count("referrals"), CREATORS - 1);
const LINKED = CREATORS === 0 ? 0 : Math.min(count("linked-entries"), Math.floor(N / 10));
const SEARCH_Q = CREATORS === 0 ? 0 : count("search-queries");
const DIRECTORY_Q = CREATORS === 0 ? 0 : count("directory-queries");
const BADGE_Q = CREATORS === 0 ? 0 : count("badge-queries");
const SEED = count("seed");
const OUT = values.out!;

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

// ---- creators: names --------------------------------------------------------------------------
const WORDS = [
  "shadow", "pixel", "nova", "blox", "craft", "frost", "neon", "lunar", "turbo", "echo", "vortex", "zen", "ember", "storm",
  "byte", "quantum", "crimson", "azure", "iron", "golden", "silver", "mystic", "cosmic", "rapid", "silent", "wild", "brave",
  "lucky", "dark", "epic", "hyper", "mega", "ultra", "retro", "sky", "solar", "moon", "star", "fire", "ice", "stone", "wolf",
  "fox", "bear", "tiger", "dragon", "phoenix", "raven", "falcon", "ninja", "pirate", "wizard", "knight", "rogue", "block",
  "voxel", "cube", "glitch", "nexus", "orbit", "prism", "rune", "spark", "static", "velvet", "aurora", "blaze", "cobalt",
  "drift", "flux", "jade", "karma", "lotus", "maple", "onyx", "pulse", "quest", "ripple", "sage", "thunder", "umbra", "vapor",
  "willow", "zephyr", "atlas", "comet", "delta", "ghost", "harbor", "indigo", "jester", "kraken", "legend", "mango", "nimbus",
];
const TRADES = [
  "builds", "builder", "maker", "studio", "studios", "games", "dev", "devs", "design", "designs", "works", "forge", "lab",
  "plays", "art", "arts", "fx", "gfx", "scripts", "mods", "maps", "tv", "live", "creations", "labs", "craft", "modeling",
  "anims", "sfx", "ui", "worlds", "realms", "tycoon", "obby", "hub", "gaming", "creative", "productions", "media",
];
const FIRST = [
  "alex", "sam", "max", "leo", "mia", "zoe", "liam", "emma", "noah", "ava", "ethan", "luna", "jack", "ella", "ryan", "nora",
  "kai", "ivy", "finn", "ruby", "owen", "lily", "eli", "chloe", "jay", "maya", "luca", "aria", "theo", "isla", "milo", "nina",
  "omar", "sofia", "yuki", "hana", "mateo", "lucas", "jonas", "elena", "marco", "sara", "diego", "ana", "felix", "clara",
];
const LAST = [
  "smith", "garcia", "miller", "nguyen", "kim", "rossi", "muller", "silva", "novak", "tanaka", "brown", "lopez", "khan",
  "ivanov", "dubois", "jensen", "moreau", "costa", "walker", "young", "king", "wright", "hill", "green", "baker", "adams",
];
/** Display names that are not ASCII, so search text and query encoding see UTF-8 too. */
const ACCENTED = ["Zoë", "Renée", "Jürgen", "Søren", "Ñico", "Chloé", "Łukasz", "Ayşe", "Bjørn", "Inès", "José", "Małgorzata"];
const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;

/** A handle as words (joined to form it) and a display name; the caller makes it unique. */
function handleParts(): { parts: string[]; sep: string; display: string } {
  const r = rand();
  if (r < 0.3) {
    const parts = [pick(WORDS), pick(TRADES)];
    return { parts, sep: pick(["", "", "_", "."]), display: parts.map(cap).join(" ") };
  }
  if (r < 0.5) {
    const parts = [pick(WORDS), pick(WORDS)];
    return { parts, sep: pick(["", "", "_"]), display: parts.map(cap).join(" ") };
  }
  if (r < 0.7) {
    const first = pick(FIRST);
    const parts = [first, chance(0.5) ? pick(TRADES) : pick(LAST)];
    const display = chance(0.5) ? `${cap(first)} ${cap(pick(LAST))}` : parts.map(cap).join(" ");
    return { parts, sep: pick(["", "_", "."]), display: chance(0.04) ? `${pick(ACCENTED)} ${cap(pick(LAST))}` : display };
  }
  if (r < 0.85) {
    const parts = [pick(WORDS), String(chance(0.5) ? 1990 + int(20) : int(1000))];
    return { parts, sep: pick(["", "_"]), display: cap(parts[0]!) };
  }
  if (r < 0.93) {
    const parts = ["the", pick(WORDS), pick(TRADES)];
    return { parts, sep: "", display: `The ${cap(parts[1]!)} ${cap(parts[2]!)}` };
  }
  const parts = [pick(["its", "im", "real", "xx", "mr", "not"]), pick(WORDS) + pick(FIRST)];
  return { parts, sep: pick(["", "_"]), display: cap(parts[1]!) };
}

const USERNAME_MAX: Record<Provider, number> = {
  discord: 32, roblox: 20, epic: 16, minecraft: 16, youtube: 30, twitch: 25, twitter: 15, tiktok: 24, github: 39,
};
/** A username on a provider, usually a variant of the creator's handle words, shaped to the provider's rules. */
function usernameFor(p: Provider, parts: string[]): string {
  let name: string;
  const r = rand();
  if (r < 0.35) name = parts.map(cap).join("");
  else if (r < 0.55) name = parts.join("_");
  else if (r < 0.7) name = parts.join("") + pick(["", "yt", "ttv", "hd", "official", "_", "x"]);
  else if (r < 0.85) name = parts.join("") + String(int(100));
  else name = pick(WORDS) + pick(["_", ""]) + pick(TRADES.concat(FIRST)) + (chance(0.5) ? String(int(1000)) : "");
  switch (p) {
    case "discord":
    case "tiktok":
      name = name.toLowerCase().replace(/[^a-z0-9_.]/g, "");
      break;
    case "twitch":
      name = name.toLowerCase().replace(/[^a-z0-9_]/g, "");
      break;
    case "github":
      name = name.replace(/[_.]+/g, "-").replace(/^-+|-+$/g, "");
      break;
    default:
      name = name.replace(/[^A-Za-z0-9_]/g, "");
  }
  name = name.slice(0, USERNAME_MAX[p]);
  while (name.length < 3) name += String(int(10));
  return name;
}

function profileUrl(p: Provider, id: string, username: string): string | undefined {
  switch (p) {
    case "roblox":
      return `https://www.roblox.com/users/${id}/profile`;
    case "youtube":
      return `https://www.youtube.com/channel/${id}`;
    case "twitch":
      return `https://www.twitch.tv/${username}`;
    case "twitter":
      return `https://x.com/${username}`;
    case "tiktok":
      return `https://www.tiktok.com/@${username}`;
    case "github":
      return `https://github.com/${username}`;
    default:
      return undefined;
  }
}

/** Providers creators link, by popularity; each creator links distinct ones. */
const CREATOR_PROVIDERS = weighted<Provider>([
  ["discord", 24],
  ["roblox", 20],
  ["youtube", 12],
  ["twitter", 10],
  ["twitch", 8],
  ["tiktok", 8],
  ["epic", 6],
  ["minecraft", 6],
  ["github", 6],
]);
const DIGIT_PROVIDERS = new Set<Provider>(["discord", "roblox", "twitch", "twitter", "tiktok", "github"]);

// ---- generation -----------------------------------------------------------------------------
mkdirSync(OUT, { recursive: true });
const datasetPath = join(OUT, "dataset.jsonl");
const started = performance.now();
const PROVIDER_LIST: Provider[] = ["discord", "roblox", "epic", "minecraft", "youtube", "twitch", "twitter", "tiktok", "github"];

/** Every provider account in the data set (connections and entry subjects), so misses stay misses. */
const taken = new Set<string>();
function freshId(p: Provider): string {
  let id: string;
  do id = newAccountId(p);
  while (taken.has(p + ":" + id));
  taken.add(p + ":" + id);
  return id;
}

const tmpDataset = datasetPath + ".tmp";
const writer = Bun.file(tmpDataset).writer({ highWaterMark: 1 << 20 });
const emit = (line: Record<string, unknown>) => writer.write(JSON.stringify(line) + "\n");

const REF = Date.parse("2026-11-01T00:00:00.000Z");
const JOIN_FROM = REF - 3 * 365 * DAY;
const between = (from: number, to: number) => from + Math.floor(rand() * Math.max(1, to - from));

// Creators, each followed by its connections. Handles are unique; names (handles and usernames,
// lower-cased) are remembered so that typos and unknown names can be checked to miss.
const handles: string[] = [];
const displayNames: string[] = [];
const joinedAt = new Float64Array(CREATORS);
const handleSet = new Set<string>();
const knownNames = new Set<string>();
/** Connections: owner index, provider index, stored id, username ("" when none), public. */
const connOwner = new Int32Array(CONNECTIONS);
const connProvider = new Uint8Array(CONNECTIONS);
const connId: string[] = [];
const connUsername: string[] = [];
const connPublic = new Uint8Array(CONNECTIONS);
const connFirst = new Int32Array(CREATORS + 1); // connections of creator c: connFirst[c] .. connFirst[c+1]-1

// 1-5 connections each, uniform, then nudged to the exact total.
const perCreator = new Uint8Array(CREATORS);
let linkTotal = 0;
for (let c = 0; c < CREATORS; c++) linkTotal += perCreator[c] = 1 + int(5);
while (linkTotal !== CONNECTIONS) {
  const c = int(CREATORS);
  if (linkTotal < CONNECTIONS && perCreator[c]! < 5) (perCreator[c]!++, linkTotal++);
  else if (linkTotal > CONNECTIONS && perCreator[c]! > 1) (perCreator[c]!--, linkTotal--);
}

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
  creators: 0,
  connections: 0,
  public_connections: 0,
  verified_connections: 0,
  connections_by_provider: {} as Record<string, number>,
  vouches: 0,
  deals: 0,
  deals_by_status: {} as Record<string, number>,
  reviews: 0,
  referrals: 0,
  linked_entries_by_connection: 0,
  linked_entries_by_creator_field: 0,
  /** Creators an active, confirmed `ban` names: the ones the server must mark blacklisted. */
  blacklisted_creators: 0,
};

let nConn = 0;
for (let c = 0; c < CREATORS; c++) {
  let { parts, sep, display } = handleParts();
  let handle = parts.join(sep).slice(0, 32);
  while (handleSet.has(handle) || handle.length < 2) {
    const suffix = String(int(10000));
    handle = (parts.join(sep).slice(0, 31 - suffix.length) + (chance(0.5) ? "_" : "") + suffix).slice(0, 32);
    parts = [...parts, suffix];
  }
  handleSet.add(handle);
  knownNames.add(handle);
  handles.push(handle);
  const joined = between(JOIN_FROM, REF);
  joinedAt[c] = joined;
  const line: Record<string, unknown> = { type: "creator", handle };
  if (chance(0.92)) {
    line.display_name = display;
    displayNames.push(display);
  } else displayNames.push("");
  line.verification_level = weighted0to4();
  line.karma = Math.floor(Math.pow(rand(), 3) * 5000) - (chance(0.05) ? int(200) : 0);
  line.joined_at = iso(joined);
  if (chance(0.6)) line.avatar_r2_key = `avatars/${handle}/${chars(HEX, 8)}.png`;
  emit(line);
  counts.creators++;

  connFirst[c] = nConn;
  const providers = new Set<Provider>();
  while (providers.size < perCreator[c]!) providers.add(CREATOR_PROVIDERS());
  for (const p of providers) {
    const id = freshId(p);
    const username = chance(0.95) ? usernameFor(p, parts) : "";
    const isPublic = chance(0.8);
    const conn: Record<string, unknown> = { type: "connection", creator: handle, provider: p, provider_user_id: asSent(p, id) };
    if (username) conn.provider_username = username;
    const url = profileUrl(p, id, username);
    if (url && username && chance(0.7)) conn.provider_url = url;
    if (chance(0.6)) {
      conn.verified_at = iso(between(joined, REF));
      if (isPublic) counts.verified_connections++;
    }
    conn.public = isPublic;
    emit(conn);
    connOwner[nConn] = c;
    connProvider[nConn] = PROVIDER_LIST.indexOf(p);
    connId.push(id);
    connUsername.push(username);
    connPublic[nConn] = isPublic ? 1 : 0;
    if (username && isPublic) knownNames.add(username.toLowerCase());
    nConn++;
    counts.connections++;
    if (isPublic) counts.public_connections++;
    counts.connections_by_provider[p] = (counts.connections_by_provider[p] ?? 0) + 1;
  }
}
connFirst[CREATORS] = nConn;

function weighted0to4(): number {
  const r = rand();
  return r < 0.35 ? 0 : r < 0.65 ? 1 : r < 0.85 ? 2 : r < 0.96 ? 3 : 4;
}
/** A creator index skewed towards a popular few (for vouches and referrals). */
const popular = () => Math.floor(Math.pow(rand(), 3) * CREATORS);
const pairKey = (a: number, b: number) => a * CREATORS + b;
const after = (a: number, b: number) => between(Math.max(joinedAt[a]!, joinedAt[b]!), REF);

// Deals between distinct unordered pairs, mixed statuses; each completed deal is followed by
// reviews from one or both parties (rating skewed high).
const pickDealStatus = weighted([
  ["completed", 50],
  ["confirmed", 15],
  ["pending", 20],
  ["declined", 15],
] as const);
const dealPairs = new Set<number>();
for (let i = 0; i < DEALS; i++) {
  let a: number, b: number;
  do {
    a = int(CREATORS);
    b = int(CREATORS);
  } while (a === b || dealPairs.has(pairKey(Math.min(a, b), Math.max(a, b))));
  dealPairs.add(pairKey(Math.min(a, b), Math.max(a, b)));
  const status = pickDealStatus();
  const created = after(a, b);
  emit({ type: "deal", from: handles[a], to: handles[b], status, created_at: iso(created) });
  counts.deals++;
  counts.deals_by_status[status] = (counts.deals_by_status[status] ?? 0) + 1;
  if (status !== "completed") continue;
  const rating = () => (chance(0.8) ? 4 + int(2) : 1 + int(3));
  const reviewAt = () => iso(Math.min(REF, created + (1 + int(30)) * DAY));
  const r = rand();
  if (r < 0.7) (emit({ type: "review", from: handles[a], to: handles[b], rating: rating(), created_at: reviewAt() }), counts.reviews++);
  if (r > 0.4) (emit({ type: "review", from: handles[b], to: handles[a], rating: rating(), created_at: reviewAt() }), counts.reviews++);
}

// Vouches: unique (from, to) pairs, receivers skewed to popular creators.
const MESSAGES = ["Delivered on time.", "Great to work with!", "Paid fast, would trade again.", "Solid scripter.", "Legit, 10/10.", "Helped with my map."];
const vouchPairs = new Set<number>();
for (let i = 0; i < VOUCHES; i++) {
  let from: number, to: number;
  let tries = 0;
  do {
    from = int(CREATORS);
    to = popular();
  } while ((from === to || vouchPairs.has(pairKey(from, to))) && ++tries < 100);
  if (from === to || vouchPairs.has(pairKey(from, to))) continue;
  vouchPairs.add(pairKey(from, to));
  const line: Record<string, unknown> = { type: "vouch", from: handles[from], to: handles[to], created_at: iso(after(from, to)) };
  if (chance(0.6)) line.message = pick(MESSAGES);
  emit(line);
  counts.vouches++;
}

// Referrals: each creator referred at most once, referrers skewed so a few reach the badge tiers.
const referred = new Set<number>();
for (let i = 0; i < REFERRALS; i++) {
  let who: number, by: number;
  let tries = 0;
  do {
    who = int(CREATORS);
    by = Math.floor(Math.pow(rand(), 6) * CREATORS);
  } while ((who === by || referred.has(who)) && ++tries < 100);
  if (who === by || referred.has(who)) continue;
  referred.add(who);
  emit({ type: "referral", referrer: handles[by], referred: handles[who], created_at: iso(after(who, by)) });
  counts.referrals++;
}
const creatorsMs = performance.now() - started;

// Entries. Subjects: provider index + stored id. About 12% of entries name a subject seen before
// (repeat offenders with 2-3 entries), so the check path reads more than one row for some ids.
// LINKED of them (spread evenly) name a creator: through one of its connections (70%) or with
// `creator: <handle>` on a fresh subject (30%).
const subjectProvider = new Uint8Array(N + LINKED);
const subjectId: string[] = [];
const subjectSeen = new Set<string>();
const addSubject = (p: Provider, id: string) => {
  if (subjectSeen.has(p + ":" + id)) return;
  subjectSeen.add(p + ":" + id);
  subjectProvider[counts.subjects] = PROVIDER_LIST.indexOf(p);
  subjectId.push(id);
  counts.subjects++;
};
const blacklistedCreators = new Set<number>();
/** Subjects that are a creator's connection: a repeat entry on one names that creator too. */
const subjectCreator = new Map<string, number>();
let issued = ISSUED_FROM;
const step = (ISSUED_TO - ISSUED_FROM) / N;
const linkEvery = LINKED > 0 ? N / LINKED : Infinity;
let nextLink = linkEvery / 2;

for (let i = 0; i < N; i++) {
  let p: Provider;
  let id: string;
  let namedCreator = -1;
  let viaField = false;
  let username: string | undefined;
  if (i >= nextLink) {
    nextLink += linkEvery;
    namedCreator = int(CREATORS);
    if (chance(0.7)) {
      const k = connFirst[namedCreator]! + int(connFirst[namedCreator + 1]! - connFirst[namedCreator]!);
      p = PROVIDER_LIST[connProvider[k]!]!;
      id = connId[k]!;
      if (connUsername[k] && chance(0.7)) username = connUsername[k];
      subjectCreator.set(p + ":" + id, namedCreator);
      counts.linked_entries_by_connection++;
    } else {
      p = pickProvider();
      id = freshId(p);
      viaField = true;
      counts.linked_entries_by_creator_field++;
    }
    addSubject(p, id);
  } else if (counts.subjects > 1000 && chance(0.12)) {
    const s = int(counts.subjects);
    p = PROVIDER_LIST[subjectProvider[s]!]!;
    id = subjectId[s]!;
    namedCreator = subjectCreator.get(p + ":" + id) ?? -1;
  } else {
    p = pickProvider();
    id = freshId(p);
    addSubject(p, id);
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
  if (username !== undefined) line.username = username;
  else if (chance(0.5)) line.username = `${USER_PREFIX[int(USER_PREFIX.length)]}_${int(100000)}`;
  if (chance(0.6)) line.summary = SUMMARIES[int(SUMMARIES.length)];
  if (viaField) line.creator = handles[namedCreator];

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
  if (status === "active" && !watchlist) {
    counts.active_confirmed++;
    if (severity === "ban" && namedCreator >= 0) blacklistedCreators.add(namedCreator);
  }
  if (status === "active" && typeof line.username === "string") knownNames.add(line.username.toLowerCase());

  emit(line);
}
counts.blacklisted_creators = blacklistedCreators.size;
await writer.end();
renameSync(tmpDataset, datasetPath);
const datasetMs = performance.now() - started;

// ---- keyed check queries: alternating hit / miss ---------------------------------------------
async function writeLines(name: string, n: number, line: (i: number) => string): Promise<void> {
  const path = join(OUT, name);
  const w = Bun.file(path + ".tmp").writer({ highWaterMark: 1 << 20 });
  for (let i = 0; i < n; i++) w.write(line(i) + "\n");
  await w.end();
  renameSync(path + ".tmp", path);
}
let hits = 0;
let misses = 0;
await writeLines("queries.txt", Q, (i) => {
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
    while (taken.has(p + ":" + id));
    misses++;
  }
  let path = `/v1/blacklist/check?provider=${p}&id=${asSent(p, id)}`;
  if (chance(0.1)) path += `&vertical=${VERTICALS[int(3)]}`;
  return path;
});

// ---- keyless query lists ------------------------------------------------------------------------
const randomConnection = (filter: (k: number) => boolean) => {
  for (;;) {
    const k = int(nConn);
    if (filter(k)) return k;
  }
};
const LETTERS = "abcdefghijklmnopqrstuvwxyz";
/** One edit (substitute, drop, swap, insert) that lands on no known name. */
function typo(name: string): string | null {
  for (let tries = 0; tries < 10; tries++) {
    const at = int(name.length);
    let out: string;
    switch (int(4)) {
      case 0:
        out = name.slice(0, at) + LETTERS[int(26)] + name.slice(at + 1);
        break;
      case 1:
        out = name.slice(0, at) + name.slice(at + 1);
        break;
      case 2:
        out = at + 1 < name.length ? name.slice(0, at) + name[at + 1] + name[at] + name.slice(at + 2) : name + LETTERS[int(26)];
        break;
      default:
        out = name.slice(0, at) + LETTERS[int(26)] + name.slice(at);
    }
    if (out.length >= 2 && !knownNames.has(out.toLowerCase())) return out;
  }
  return null;
}
function unknownName(): string {
  for (;;) {
    const name = pick(WORDS) + pick(["", "_", "."]) + pick(FIRST.concat(TRADES)) + String(100 + int(900));
    if (!knownNames.has(name) && !handleSet.has(name)) return name;
  }
}

const searchKinds: Record<string, number> = {};
await writeLines("search.txt", SEARCH_Q, () => {
  const r = rand();
  let kind: string;
  let q: string;
  if (r < 0.4) {
    kind = "handle";
    q = handles[int(CREATORS)]!;
    if (chance(0.1)) q = "@" + q;
    else if (chance(0.1)) q = q.toUpperCase();
  } else if (r < 0.6) {
    kind = "username";
    q = connUsername[randomConnection((k) => connUsername[k] !== "" && connPublic[k] === 1)]!;
  } else if (r < 0.8) {
    // Numeric ids: half linked accounts, half blacklist subjects, of providers with digit ids.
    if (chance(0.5)) {
      kind = "id_connection";
      q = connId[randomConnection((k) => DIGIT_PROVIDERS.has(PROVIDER_LIST[connProvider[k]!]!))]!;
    } else {
      kind = "id_entry";
      let s: number;
      do s = int(counts.subjects);
      while (!DIGIT_PROVIDERS.has(PROVIDER_LIST[subjectProvider[s]!]!));
      q = subjectId[s]!;
    }
  } else if (r < 0.95) {
    kind = "typo";
    const base = chance(0.7) ? handles[int(CREATORS)]! : connUsername[randomConnection((k) => connUsername[k] !== "")]!.toLowerCase();
    q = typo(base) ?? unknownName();
  } else {
    kind = "unknown";
    q = unknownName();
  }
  searchKinds[kind] = (searchKinds[kind] ?? 0) + 1;
  return `${kind}\t${q}`;
});

/** A 3-8 character piece of `text` from a random place. */
function fragment(text: string): string {
  const chars = [...text];
  const len = Math.min(chars.length, 3 + int(6));
  const at = int(chars.length - len + 1);
  return chars.slice(at, at + len).join("");
}
const SORTS = ["newest", "trust", "vouches", "deals"] as const;
const directoryKinds: Record<string, number> = {};
await writeLines("directory.txt", DIRECTORY_Q, () => {
  const r = rand();
  let kind: string;
  let q: string;
  do {
    if (r < 0.45) {
      kind = "handle_fragment";
      q = fragment(handles[int(CREATORS)]!);
    } else if (r < 0.7) {
      kind = "display_fragment";
      let c: number;
      do c = int(CREATORS);
      while (displayNames[c] === "");
      q = fragment(displayNames[c]!);
    } else {
      kind = "username_fragment";
      q = fragment(connUsername[randomConnection((k) => connUsername[k] !== "" && connPublic[k] === 1)]!);
    }
  } while (q.trim().length < 3);
  const sort = pick(SORTS);
  const page = chance(0.6) ? 1 : chance(0.6) ? 2 : 3;
  directoryKinds[kind] = (directoryKinds[kind] ?? 0) + 1;
  return `${kind}\t${q}\t${sort}\t${page}`;
});

const badgeKinds: Record<string, number> = {};
await writeLines("badge.txt", BADGE_Q, () => {
  const known = chance(0.9);
  const kind = known ? "known" : "unknown";
  const handle = known ? handles[int(CREATORS)]! : unknownName();
  badgeKinds[kind] = (badgeKinds[kind] ?? 0) + 1;
  return `${kind}\t${handle}\t${chance(0.5) ? "light" : "dark"}`;
});

const meta = {
  format: FORMAT,
  seed: SEED,
  ...counts,
  queries: Q,
  query_hits: hits,
  query_misses: misses,
  search_queries: SEARCH_Q,
  search_kinds: searchKinds,
  directory_queries: DIRECTORY_Q,
  directory_kinds: directoryKinds,
  badge_queries: BADGE_Q,
  badge_kinds: badgeKinds,
  dataset_lines: counts.creators + counts.connections + counts.deals + counts.reviews + counts.vouches + counts.referrals + counts.entries,
  earliest_future_expiry: iso(EXPIRES_FROM),
  generated_ms: Math.round(performance.now() - started),
  creators_ms: Math.round(creatorsMs),
  dataset_ms: Math.round(datasetMs),
};
await Bun.write(join(OUT, "meta.json"), JSON.stringify(meta, null, 2) + "\n");
console.error(
  `generated ${counts.creators} creators, ${counts.connections} connections, ${counts.deals} deals, ${counts.reviews} reviews, ${counts.vouches} vouches, ` +
    `${counts.referrals} referrals, ${N} entries (${counts.subjects} subjects, ${counts.active_confirmed} active confirmed, ` +
    `${LINKED} naming creators) and ${Q} check / ${SEARCH_Q} search / ${DIRECTORY_Q} directory / ${BADGE_Q} badge queries ` +
    `in ${(meta.generated_ms / 1000).toFixed(1)} s -> ${OUT}`,
);
