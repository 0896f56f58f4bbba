#!/usr/bin/env bun
// Walks the whole list: GET /v1/blacklist?limit=100, following next_cursor until it is null, one
// request at a time. Checks every entry is seen exactly once and in (issued_at, id) order, and
// compares the count with the active confirmed entries counted straight from the database.
//
// Usage: bun bench/walk.ts --url http://127.0.0.1:18080 --db FILE [--limit 100] [--expect N]
//   env: BENCH_KEY or BENCH_KEY_FILE
// Prints one JSON object on stdout; exits 1 when the walk fails or the count does not match.
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    url: { type: "string", default: "http://127.0.0.1:18080" },
    db: { type: "string" },
    limit: { type: "string", default: "100" },
    expect: { type: "string" },
  },
  strict: true,
});
const keyFile = process.env.BENCH_KEY_FILE;
const key = (keyFile ? readFileSync(keyFile, "utf8") : (process.env.BENCH_KEY ?? "")).trim();
if (!key) throw new Error("set BENCH_KEY or BENCH_KEY_FILE");
const headers = { authorization: `Bearer ${key}` };
const base = `${values.url!.replace(/\/+$/, "")}/v1/blacklist?limit=${Number(values.limit)}`;

// The server's own definition of "active confirmed", counted before the walk.
let expectedFromDb: number | null = null;
if (values.db) {
  const db = new Database(values.db, { readonly: true });
  expectedFromDb = (
    db
      .query("SELECT count(*) AS n FROM blacklist_entries WHERE status = 'active' AND watchlist = 0 AND (expires_at IS NULL OR expires_at > ?)")
      .get(Date.now()) as { n: number }
  ).n;
  db.close();
}
const expectedFromGenerator = values.expect !== undefined ? Number(values.expect) : null;

const seen = new Set<string>();
let entries = 0;
let pages = 0;
let duplicates = 0;
let outOfOrder = 0;
let lastKey = "";
let cursor: string | null = null;
let error: string | null = null;
let slowestPageMs = 0;
const started = performance.now();
for (;;) {
  const url: string = cursor === null ? base : `${base}&cursor=${encodeURIComponent(cursor)}`;
  const t0 = performance.now();
  const res = await fetch(url, { headers });
  if (res.status !== 200) {
    error = `page ${pages + 1}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`;
    break;
  }
  const page = (await res.json()) as { data: Array<{ id: string; issued_at: string }>; next_cursor: string | null; has_more: boolean };
  slowestPageMs = Math.max(slowestPageMs, performance.now() - t0);
  pages++;
  for (const entry of page.data) {
    entries++;
    if (seen.has(entry.id)) duplicates++;
    else seen.add(entry.id);
    const orderKey = `${entry.issued_at} ${entry.id}`;
    if (orderKey <= lastKey) outOfOrder++;
    lastKey = orderKey;
  }
  if (page.next_cursor === null) break;
  cursor = page.next_cursor;
}
const seconds = (performance.now() - started) / 1000;
const expected = expectedFromDb ?? expectedFromGenerator;
const ok = error === null && duplicates === 0 && outOfOrder === 0 && (expected === null || entries === expected);
console.log(
  JSON.stringify({
    ok,
    seconds: Math.round(seconds * 1000) / 1000,
    pages,
    entries,
    unique: seen.size,
    expected_from_db: expectedFromDb,
    expected_from_generator: expectedFromGenerator,
    duplicates,
    out_of_order: outOfOrder,
    pages_per_s: Math.round(pages / seconds),
    mean_page_ms: Math.round(((seconds * 1000) / Math.max(1, pages)) * 1000) / 1000,
    slowest_page_ms: Math.round(slowestPageMs * 1000) / 1000,
    error,
  }),
);
process.exit(ok ? 0 : 1);
