#!/usr/bin/env bun
// The raw ceiling: what one Bun process can answer for GET /v1/blacklist/check on this machine with
// nothing but Bun.serve, one prepared bun:sqlite statement on the same database file and a bearer
// key looked up in a Map. Same verdict rules and JSON shape as trustlist's single check; no
// metering, limits, request ids, logging or schema validation. It runs with the JavaScript engine
// settings `serve` runs with (src/server/engine-settings.ts), so the two differ in their code only.
//
// Usage: bun bench/ceiling.ts --db FILE [--port 18081] [--host 127.0.0.1] [--key-file F]
//   env: CEILING_PORT, CEILING_DB, BENCH_KEY or BENCH_KEY_FILE (the accepted bearer key)
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { Provider } from "../src/domain";
// The same id rules as trustlist, so both servers answer the same queries the same way.
import { normalizeAccountId } from "../src/modules/blacklist/service";
import { MAPPED_BYTES } from "../src/db/pragmas";
import { startWithEngineSettings } from "../src/server/engine-settings";

/**
 * Read-only connection with the page-cache and memory-map settings of trustlist's openStore
 * (src/db/pragmas.ts), so the comparison is about the request path, not storage tuning.
 * CEILING_MMAP_SIZE (bytes, 0 for none) maps another size, to compare the two.
 */
export function openReadOnly(path: string): Database {
  const db = new Database(path, { readonly: true });
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("PRAGMA cache_size = -65536");
  const mmap = Number(process.env.CEILING_MMAP_SIZE ?? MAPPED_BYTES);
  if (mmap > 0) db.exec(`PRAGMA mmap_size = ${Math.floor(mmap)}`);
  return db;
}

type Severity = "warn" | "restrict" | "ban";
interface HitRow {
  id: string;
  severity: Severity;
  scope: "global" | "vertical";
  vertical: string;
  reason_code: string;
  summary: string | null;
  issued_at: number;
  appealable: number;
  high_risk: number;
  watchlist: number;
}
const SUBJECT_SQL = `SELECT id, severity, scope, vertical, reason_code, summary, issued_at, appealable, high_risk, watchlist
  FROM blacklist_entries
  WHERE provider = ?1 AND provider_user_id = ?2 AND status = 'active' AND (expires_at IS NULL OR expires_at > ?3)`;

const PROVIDERS = new Set(["discord", "roblox", "epic", "minecraft", "youtube", "twitch", "twitter", "tiktok", "github"]);
const VERTICALS = new Set(["roblox", "uefn", "minecraft", "all"]);
const RANK: Record<Severity, number> = { warn: 1, restrict: 2, ban: 3 };
const JSON_HEADERS = { "content-type": "application/json" };

export const fail = (status: number, code: string) =>
  new Response(JSON.stringify({ error: { code, message: code, request_id: "ceiling" } }), { status, headers: JSON_HEADERS });

/** The check handler over `db`, accepting the keys in `keys`. */
export function makeCheck(db: Database, keys: Map<string, { account: string }>): (req: Request) => Response {
  const subjectRows = db.prepare<HitRow, [string, string, number]>(SUBJECT_SQL);
  return function check(req: Request): Response {
    const auth = req.headers.get("authorization");
    if (!auth || !auth.startsWith("Bearer ") || !keys.has(auth.slice(7))) return fail(401, "unauthorized");
    const url = req.url;
    const q = url.indexOf("?");
    const params = new URLSearchParams(q < 0 ? "" : url.slice(q + 1));
    const provider = params.get("provider");
    const rawId = params.get("id");
    const vertical = params.get("vertical") ?? "all";
    if (!provider || !PROVIDERS.has(provider) || !rawId) return fail(400, "invalid_request");
    if (!VERTICALS.has(vertical)) return fail(422, "unprocessable");
    const id = normalizeAccountId(provider as Provider, rawId);
    if (id === null) return fail(400, "invalid_request");

    const now = Date.now();
    let hit: HitRow | null = null;
    let highRisk = false;
    let watchlist = false;
    for (const row of subjectRows.all(provider, id, now)) {
      if (!(row.scope === "global" || vertical === "all" || row.vertical === vertical)) continue;
      if (row.high_risk) highRisk = true;
      if (row.watchlist) {
        watchlist = true;
        continue;
      }
      if (
        !hit ||
        RANK[row.severity] > RANK[hit.severity] ||
        (row.severity === hit.severity && (row.issued_at > hit.issued_at || (row.issued_at === hit.issued_at && row.id > hit.id)))
      ) {
        hit = row;
      }
    }
    const result: Record<string, unknown> = { provider, id, banned: hit?.severity === "ban", checked_at: new Date(now).toISOString() };
    if (hit) {
      result.high_risk = highRisk;
      result.watchlist = watchlist;
      result.severity = hit.severity;
      result.scope = hit.scope;
      result.reason_code = hit.reason_code;
      result.summary = hit.summary;
      result.appealable = !!hit.appealable;
      result.entry = { id: hit.id, severity: hit.severity, scope: hit.scope, vertical: hit.vertical, reason_code: hit.reason_code, summary: hit.summary };
    } else if (watchlist || highRisk) {
      result.high_risk = highRisk;
      result.watchlist = watchlist;
    }
    return new Response(JSON.stringify(result), { headers: JSON_HEADERS });
  };
}

if (import.meta.main) {
  startWithEngineSettings((message) => console.error(message));
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      db: { type: "string" },
      port: { type: "string" },
      host: { type: "string", default: "127.0.0.1" },
      "key-file": { type: "string" },
    },
    strict: true,
  });
  const dbPath = values.db ?? process.env.CEILING_DB;
  if (!dbPath) throw new Error("--db FILE is required");
  const port = Number(values.port ?? process.env.CEILING_PORT ?? 18081);
  const keyFile = values["key-file"] ?? process.env.BENCH_KEY_FILE;
  const benchKey = (keyFile ? readFileSync(keyFile, "utf8") : (process.env.BENCH_KEY ?? "")).trim();
  if (!benchKey) throw new Error("give the accepted key with BENCH_KEY, BENCH_KEY_FILE or --key-file");

  const db = openReadOnly(dbPath);
  const check = makeCheck(db, new Map([[benchKey, { account: "bench" }]]));

  const server = Bun.serve({
    port,
    hostname: values.host,
    routes: {
      "/v1/blacklist/check": { GET: check },
      "/healthz": () => Response.json({ ok: true }),
    },
    fetch: () => fail(404, "not_found"),
  });
  console.error(`ceiling listening on http://${server.hostname}:${server.port} (db ${dbPath})`);
  const stop = () => {
    server.stop(true);
    db.close();
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
