#!/usr/bin/env bun
// What a followed source's items cost to write into a database that already holds the bench data
// set's 1M entries, by transaction size and by what is written: the floor under a SQLite
// follower's sync (docs/performance.md, "Sixth sitting"). Each item is an entry shaped like a
// random stored one (a new subject, its username kept so the name triggers count it), optionally
// with its feed row, audit event and source item, written by prepared statements, so no time is
// the server's own JavaScript. Each variant works on a fresh copy of the database.
//
// Usage: bun bench/sqlite-writes.ts [--db bench/data/bench.db] [--items 30000]
//          [--sizes 250,30000] [--cache-kib 65536] [--work DIR]
//          [--only entries (the entry alone) | --without-triggers | --drop-indexes a,b]
import { Database } from "bun:sqlite";
import { copyFileSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    db: { type: "string", default: "bench/data/bench.db" },
    items: { type: "string", default: "30000" },
    sizes: { type: "string", default: "250,30000" },
    "cache-kib": { type: "string", default: "65536" },
    work: { type: "string", default: join("bench", "data", "sqlite-writes") },
    only: { type: "string" },
    "without-triggers": { type: "boolean", default: false },
    "drop-indexes": { type: "string", default: "" },
  },
  strict: true,
});
const N = Number(values.items);
const entriesOnly = values.only === "entries";
mkdirSync(values.work!, { recursive: true });

for (const T of values.sizes!.split(",").map(Number)) {
  const file = join(values.work!, `writes-${T}.db`);
  for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
  copyFileSync(values.db!, file);
  const db = new Database(file);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = OFF; PRAGMA temp_store = MEMORY");
  db.exec(`PRAGMA cache_size = -${Number(values["cache-kib"])}`);
  // No checkpoint during the run: the WAL's size is what the commits wrote.
  db.exec("PRAGMA wal_autocheckpoint = 0");
  if (values["without-triggers"]) for (const trigger of ["search_names_ai", "entries_name_ai"]) db.exec(`DROP TRIGGER IF EXISTS ${trigger}`);
  for (const index of values["drop-indexes"]!.split(",").filter(Boolean)) db.exec(`DROP INDEX ${index}`);
  const samples = db.query("SELECT * FROM blacklist_entries ORDER BY random() LIMIT ?").all(N) as Array<Record<string, any>>;
  const entry = db.prepare(`INSERT INTO blacklist_entries (id, provider, provider_user_id, username, severity, scope, vertical, reason_code, summary, issued_at, expires_at, appealable, high_risk, watchlist, reporter, status, source, upstream_id, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 'source:peer', 'active', 'peer', ?, ?)`);
  const change = db.prepare("INSERT INTO blacklist_changes (type, entry_id, at) VALUES ('added', ?, ?)");
  const audit = db.prepare("INSERT INTO audit_events (id, at, actor_kind, actor_id, action, entry_id, subject, details) VALUES (?, ?, 'source', 'peer', 'entry.added', ?, ?, ?)");
  const item = db.prepare("INSERT INTO federation_items (source_id, upstream_id, entry, received_at) VALUES ('peer', ?, ?, ?)");
  let commitMs = 0;
  const started = performance.now();
  for (let first = 0; first < N; first += T) {
    db.exec("BEGIN IMMEDIATE");
    for (let i = first; i < Math.min(N, first + T); i++) {
      const s = samples[i]!;
      // Ids after every stored one, in order, as this instance's ids are.
      const id = `bl_zz${String(i).padStart(22, "0")}`;
      const upstreamId = `bl_yy${String(i).padStart(22, "0")}`;
      const subjectId = `${s.provider_user_id}x${i}`;
      const at = 1_800_000_000_000 + i;
      entry.run(id, s.provider, subjectId, s.username, s.severity, s.scope, s.vertical, s.reason_code, s.summary, s.issued_at, s.expires_at, s.appealable, s.high_risk, upstreamId, at);
      if (entriesOnly) continue;
      change.run(id, at);
      audit.run(`ev_zz${String(i).padStart(22, "0")}`, at, id, `${s.provider}:${subjectId}`, JSON.stringify({ ...s, id, provider_user_id: subjectId, source: "peer", upstream_id: upstreamId }));
      item.run(upstreamId, JSON.stringify({ ...s, provider_user_id: subjectId }), at);
    }
    const committing = performance.now();
    db.exec("COMMIT");
    commitMs += performance.now() - committing;
  }
  const ms = performance.now() - started;
  const wal = statSync(`${file}-wal`).size;
  console.log(JSON.stringify({
    transaction_items: T,
    items: N,
    written: entriesOnly ? "entries" : "entries, feed rows, audit events, items",
    triggers: !values["without-triggers"],
    dropped_indexes: values["drop-indexes"] || null,
    us_per_item: Math.round((ms * 1000) / N),
    commit_us_per_item: Math.round((commitMs * 1000) / N),
    wal_kib_per_item: Math.round(wal / 1024 / N),
  }));
  db.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
}
