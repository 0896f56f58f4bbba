#!/usr/bin/env bun
// The raw load of an entries file: the yardstick `trustlist import` of the same file is measured
// against (docs/performance.md, "Import"). What any loader of this file into trustlist's schema
// must do at least, the fastest way SQLite offers, and nothing more: read the file, parse each
// line, insert each entry with its feed row (an active one) into a database `trustlist migrate`
// made, with one prepared statement each, in one transaction, the entries' secondary indexes and
// search-name trigger dropped first and made again after (with the search names counted in one
// statement). No validation, no normalisation, no scores, no audit, no events. Inserting into the
// indexed table row by row instead took 3.6 s for 100k entries, against 1.2 s for the import.
// Prints one JSON object: {entries, seconds (process start to the end of the commit)}.
// Usage: bun bench/raw-load.ts FILE --db PATH (a database `trustlist migrate` made, holding no entries)
import { Database } from "bun:sqlite";
import { parseArgs } from "node:util";
import { INSERT_ENTRY } from "../src/modules/blacklist/store.sqlite";

const { values, positionals } = parseArgs({ args: Bun.argv.slice(2), options: { db: { type: "string" } }, allowPositionals: true });
const file = positionals[0];
if (!file || !values.db) throw new Error("usage: bun bench/raw-load.ts FILE --db PATH");

const db = new Database(values.db);
db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -65536");
const insertEntry = db.prepare(INSERT_ENTRY);
const insertChange = db.prepare("INSERT INTO blacklist_changes (type, entry_id, at) VALUES ('added', ?1, ?2)");
const now = Date.now();
const time = (text: string | null | undefined) => (text ? Date.parse(text) : null);

let entries = 0;
db.exec("BEGIN");
// The entries' secondary indexes and triggers, dropped now and made again after the rows.
const later = db
  .query<{ type: string; name: string; sql: string }, []>("SELECT type, name, sql FROM sqlite_master WHERE tbl_name = 'blacklist_entries' AND type IN ('index', 'trigger') AND sql IS NOT NULL")
  .all();
for (const { type, name } of later) db.exec(`DROP ${type.toUpperCase()} "${name}"`);
// The whole file read at once (350 MB for the bench data set: memory is not what this measures).
for (const line of (await Bun.file(file).text()).split("\n")) {
  if (line === "") continue;
  const e = JSON.parse(line);
  if (e.type !== "entry") continue;
  const id = `bl_raw${String(++entries).padStart(10, "0")}`;
  const status = e.status ?? "active";
  const scope = e.scope ?? (e.vertical && e.vertical !== "all" ? "vertical" : "global");
  insertEntry.run(
    id, e.provider, String(e.provider_user_id), e.username ?? null, e.severity, scope, e.vertical ?? "all", e.reason_code,
    e.summary ?? null, time(e.issued_at) ?? now, time(e.expires_at), e.appealable !== false, !!e.high_risk, !!e.watchlist,
    e.creator ?? null, e.evidence ?? null, "import", status, status === "overturned" ? now : null, now, null, null, null,
  );
  if (status === "active") insertChange.run(id, now);
}
for (const { type, sql } of later) if (type === "index") db.exec(sql);
db.exec(`INSERT INTO search_names (name, entry_refs)
  SELECT lower(username), count(*) FROM blacklist_entries WHERE status = 'active' AND watchlist = 0 AND username IS NOT NULL GROUP BY 1
  ON CONFLICT (name) DO UPDATE SET entry_refs = entry_refs + excluded.entry_refs`);
for (const { type, sql } of later) if (type === "trigger") db.exec(sql);
db.exec("COMMIT");
db.close();
console.log(JSON.stringify({ entries, seconds: Math.round(performance.now()) / 1000 }));

