// Large imports suspend the suggestion index's triggers and rebuild it once at the end: what is
// searchable afterwards must be exactly what row-by-row indexing would give, and a failed import
// must leave the triggers in place.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TransferService } from "../../src/modules/transfer/service";
import { sqliteOnly } from "../backend";
import { createTestApp, type TestApp } from "../helpers";

let t: TestApp;
let writer: string;
beforeEach(async () => {
  t = await createTestApp();
  writer = (await t.account({ scope: "write", burst: 10_000 })).key;
});
afterEach(() => t.close());

const lines = [
  { type: "creator", handle: "lotusforge", display_name: "Lotus Forge Studio", verification_level: 1, joined_at: "2026-01-01T00:00:00Z" },
  { type: "connection", creator: "lotusforge", provider: "roblox", provider_user_id: "777", provider_username: "LotusRBX", public: true },
  { type: "entry", provider: "discord", provider_user_id: "4242", username: "ScamHydra", severity: "ban", scope: "global", vertical: "all", reason_code: "scam", appealable: true },
];

function importLines(rows: unknown[], rebuildIndexesFromBytes: number) {
  const file = join(t.dir, `import-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return new TransferService(t.runtime.store, t.services, t.clock, { rebuildIndexesFromBytes, checkLinesApartFromBytes: rebuildIndexesFromBytes }).importFile(file);
}

/** The connection's settings an import switches for its own transaction and must put back. */
const connectionSettings = (db: Database) =>
  db.query("SELECT * FROM pragma_cache_size, pragma_cache_spill, pragma_threads, pragma_temp_store, pragma_foreign_keys, pragma_synchronous").get();
const journalMode = (db: Database) => db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()!.journal_mode;
const indexNames = () => t.sqlite.query("SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name").all();
const triggerCount = () => (t.sqlite.query("SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger'").get() as { n: number }).n;
const search = async (q: string) => (await t.json("GET", `/v1/public/blacklist/check?q=${q}`)).body;
const directory = async (q: string) => (await t.json("GET", `/v1/public/directory?q=${q}`)).body;

sqliteOnly("a bulk import rebuilds the suggestion index: names, usernames and haystacks are all searchable", async () => {
  const before = triggerCount();
  const indexes = indexNames();
  expect(await importLines(lines, 0)).toMatchObject({ creators: 1, connections: 1, entries: 1 });
  expect(triggerCount()).toBe(before);
  expect(indexNames()).toEqual(indexes);
  expect((await directory("forge%20studio")).items.map((i: any) => i.handle)).toEqual(["lotusforge"]);
  expect((await directory("lotusrbx")).total).toBe(1);
  expect((await search("scamhydr")).suggestions).toContain("scamhydra");
  expect((await search("lotusforg")).suggestions).toContain("lotusforge");
  t.sqlite.run("INSERT INTO search_names_fts(search_names_fts) VALUES ('integrity-check')");

  // The triggers are back: later writes are indexed row by row again.
  await t.json("PUT", "/v1/partner/creators/nightowl", { key: writer, body: { display_name: "Night Owl Builds" } });
  expect((await directory("owl%20build")).items.map((i: any) => i.handle)).toEqual(["nightowl"]);
});

sqliteOnly("a bulk import leaves the suggestion index in one segment, so later deletes do no merge work", async () => {
  const sqlite = t.sqlite;
  // A small flush size makes the rebuild write many segments, as a million names do.
  sqlite.run("INSERT INTO search_names_fts(search_names_fts, rank) VALUES ('hashsize', 512)");
  const many = Array.from({ length: 300 }, (_, i) => ({ ...lines[2], provider_user_id: String(9000 + i), username: `suspect_${i}_name` }));
  expect(await importLines([...lines, ...many], 0)).toMatchObject({ entries: 301 });
  expect(sqlite.query("SELECT count(DISTINCT segid) AS n FROM search_names_fts_idx").get()).toEqual({ n: 1 });
  expect((await search("suspect_12")).suggestions).toContain("suspect_12_name");
  sqlite.run("INSERT INTO search_names_fts(search_names_fts) VALUES ('integrity-check')");
});

sqliteOnly("a failed bulk import leaves triggers, indexes and data as they were", async () => {
  const before = triggerCount();
  const indexes = indexNames();
  const settings = connectionSettings(t.sqlite);
  await expect(importLines([...lines, { type: "vouch", from: "lotusforge", to: "lotusforge" }], 0)).rejects.toThrow("line 4");
  expect(journalMode(t.sqlite)).toBe("wal");
  expect(connectionSettings(t.sqlite)).toEqual(settings);
  expect(triggerCount()).toBe(before);
  expect(indexNames()).toEqual(indexes);
  expect((await directory("lotus")).total).toBe(0);
  await t.json("PUT", "/v1/partner/creators/nightowl", { key: writer, body: { display_name: "Night Owl Builds" } });
  expect((await directory("night%20owl")).total).toBe(1);
  expect((await search("nightow")).suggestions).toContain("nightowl");
});

sqliteOnly("an import beside another open connection keeps WAL, and one alone leaves the file in WAL again", async () => {
  // Alone, the import writes through a rollback journal; another connection (a server, a backup)
  // keeps the file in WAL, which that connection's reads rely on.
  const other = new Database(t.dbPath);
  other.query("SELECT count(*) FROM creators").get();
  expect(await importLines(lines.slice(0, 2), 0)).toMatchObject({ creators: 1, connections: 1 });
  expect(journalMode(other)).toBe("wal");
  other.close();
  expect(await importLines(lines.slice(2), 0)).toMatchObject({ entries: 1 });
  expect(journalMode(t.sqlite)).toBe("wal");
  expect((await directory("lotusrbx")).total).toBe(1);
  expect((await search("scamhydr")).suggestions).toContain("scamhydra");
});

sqliteOnly("a large import computes every creator, the feed and the indexes exactly as line-by-line writes would", async () => {
  // Enough creators for the grouped recomputation, with every input of the score present.
  const rows: unknown[] = [];
  const N = 1_200;
  for (let i = 0; i < N; i++) {
    rows.push({ type: "creator", handle: `maker${i}`, display_name: `Maker Number ${i}`, verification_level: i % 5, joined_at: "2025-01-01T00:00:00Z" });
    rows.push({ type: "connection", creator: `maker${i}`, provider: "roblox", provider_user_id: String(100_000 + i), provider_username: `rbx_maker${i}`, verified_at: "2025-06-01T00:00:00Z", public: i % 3 !== 0 });
    if (i % 4 === 0) rows.push({ type: "connection", creator: `maker${i}`, provider: "twitch", provider_user_id: String(200_000 + i), provider_username: `tw${i}`, public: true });
  }
  for (let i = 0; i + 1 < N; i += 7) {
    rows.push({ type: "deal", from: `maker${i}`, to: `maker${i + 1}`, status: i % 2 ? "completed" : "pending" });
    if (i % 2) rows.push({ type: "review", from: `maker${i}`, to: `maker${i + 1}`, rating: 1 + (i % 5) });
    rows.push({ type: "vouch", from: `maker${i}`, to: `maker${i + 1}` });
  }
  const entries: Array<{ provider_user_id: string; watchlist: boolean; status: string }> = [];
  for (let i = 0; i < N; i += 5) {
    const severity = ["ban", "warn", "restrict"][i % 3]!;
    const watchlist = i % 25 === 0;
    const status = i % 35 === 0 ? "overturned" : "active";
    const entry = { type: "entry", provider: "roblox", provider_user_id: String(100_000 + i), username: `alt_of_${i}`, severity, scope: "global", vertical: "all", reason_code: "scam", appealable: true, watchlist, status };
    rows.push(entry);
    entries.push(entry);
    // Named through the creator field too: counted once.
    if (i % 10 === 0) rows.push({ ...entry, provider_user_id: String(900_000 + i), creator: `maker${i}`, high_risk: true });
    if (i % 10 === 0) entries.push({ provider_user_id: String(900_000 + i), watchlist, status });
  }
  // A link given twice (the second line updates it) and a creator without links.
  rows.push({ type: "connection", creator: "maker7", provider: "roblox", provider_user_id: "100007", provider_username: "renamed_seven", public: true });
  rows.push({ type: "creator", handle: "loner", verification_level: 0, joined_at: "2025-01-01T00:00:00Z" });
  const settings = connectionSettings(t.sqlite);
  expect(await importLines(rows, 0)).toMatchObject({ creators: N + 1, entries: entries.length });
  // The import's own page cache, sorter and temporary files were its transaction's only.
  expect(connectionSettings(t.sqlite)).toEqual(settings);

  const sqlite = t.sqlite;
  const columns =
    "handle, trust_score, trust_band, blacklisted, linked_accounts, verified_connections, vouch_count, deal_count, review_count, review_sum, search_text, platforms";
  const imported = sqlite.query(`SELECT ${columns} FROM creators ORDER BY handle`).all();
  expect(imported.some((c: any) => c.blacklisted)).toBe(true);
  expect(imported.some((c: any) => c.review_count > 0 && c.deal_count > 0 && c.vouch_count > 0)).toBe(true);
  // Recomputing each creator on its own, as every single write does, changes nothing.
  await t.services.creators.refreshAll();
  expect(sqlite.query(`SELECT ${columns} FROM creators ORDER BY handle`).all()).toEqual(imported);

  // One `added` per active entry, in file order: watchlist rows too, which only the signed
  // federation feed publishes (as a single write would store them).
  const feed = sqlite
    .query<{ provider_user_id: string }, []>(
      "SELECT e.provider_user_id FROM blacklist_changes c JOIN blacklist_entries e ON e.id = c.entry_id WHERE c.type = 'added' ORDER BY c.seq",
    )
    .all()
    .map((r) => r.provider_user_id);
  expect(feed).toEqual(entries.filter((e) => e.status === "active").map((e) => e.provider_user_id));
  expect(entries.some((e) => e.watchlist && e.status === "active")).toBe(true);
  sqlite.run("INSERT INTO search_names_fts(search_names_fts) VALUES ('integrity-check')");
  expect(sqlite.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
  // SQLite does not check references during an import: every one it wrote resolves, and later
  // writes are checked again.
  expect(sqlite.query("PRAGMA foreign_key_check").all()).toEqual([]);
  expect(sqlite.query("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 1 });

  // The suggestion names, recounted from the tables, are what the row-by-row triggers keep: every
  // count column, whatever the table's shape.
  const names = (db: typeof sqlite) => db.query<{ id: number }, []>("SELECT * FROM search_names ORDER BY name").all().map(({ id: _, ...row }) => row);
  const rowByRow = await createTestApp();
  try {
    const file = join(rowByRow.dir, "same.jsonl");
    writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    await new TransferService(rowByRow.runtime.store, rowByRow.services, rowByRow.clock, { rebuildIndexesFromBytes: Infinity }).importFile(file);
    expect(names(sqlite)).toEqual(names(rowByRow.sqlite));
    // The entries, prepared on the second thread, are the rows the import thread would write, in file order.
    const entryRows = (db: typeof sqlite) =>
      db.query<{ id: string; created_at: number }, []>("SELECT * FROM blacklist_entries ORDER BY rowid").all().map(({ id: _, created_at: __, ...row }) => row);
    expect(entryRows(sqlite)).toEqual(entryRows(rowByRow.sqlite));
    // And the same feed rows, watchlist rows included.
    const feedRows = (db: typeof sqlite) =>
      db.query("SELECT c.type, e.provider_user_id, e.watchlist FROM blacklist_changes c JOIN blacklist_entries e ON e.id = c.entry_id ORDER BY c.seq").all();
    expect(feedRows(sqlite)).toEqual(feedRows(rowByRow.sqlite));
  } finally {
    rowByRow.close();
  }

  // Search, suggestions and the directory find what was imported.
  const hit = await search("rbx_maker1");
  expect(hit.platforms.map((p: any) => p.id)).toEqual(["100001"]);
  expect((await search("rbx_maker1x")).suggestions).toContain("rbx_maker1");
  expect((await search("alt_of_5")).platforms[0]).toMatchObject({ id: "100005", severity: "restrict" });
  expect((await directory("maker%20number%201199")).items.map((i: any) => i.handle)).toEqual(["maker1199"]);
  expect((await t.json("GET", "/v1/blacklist/check?provider=roblox&id=900030", { key: writer })).body.severity).toBe("ban");
});

test("an import moves creators_version once, and later creator writes move it again", async () => {
  const version = async () => Number((await t.rows<{ value: string }>("SELECT value FROM meta WHERE key = 'creators_version'"))[0]!.value);
  const before = await version();
  const many = Array.from({ length: 50 }, (_, i) => ({ ...lines[0], handle: `maker${i}` }));
  expect(await importLines([...lines, ...many], 0)).toMatchObject({ creators: 51 });
  expect(await version()).toBe(before + 1);
  expect((await directory("maker49")).total).toBe(1);
  await t.json("PUT", "/v1/partner/creators/nightowl", { key: writer, body: { display_name: "Night Owl Builds" } });
  expect(await version()).toBeGreaterThan(before + 1);
});

test("an import naming a creator twice, or an account linked to another creator, fails at that line", async () => {
  const other = { type: "creator", handle: "othermaker", verification_level: 0, joined_at: "2025-01-01T00:00:00Z" };
  await expect(importLines([...lines, other, { ...lines[0], display_name: "Again" }], 0)).rejects.toThrow("line 5: creator 'lotusforge' appears twice");
  await expect(importLines([...lines, other, { ...lines[1], creator: "othermaker" }], 0)).rejects.toThrow(/line 5: .*already linked to another creator/);
  expect((await directory("lotus")).total).toBe(0);
});

sqliteOnly("an import of entries alone rescores the stored creators they name, by handle or by linked account", async () => {
  await importLines(
    [
      ...lines.slice(0, 2),
      { type: "creator", handle: "quietmaker", verification_level: 1, joined_at: "2026-01-01T00:00:00Z" },
      { type: "creator", handle: "bystander", verification_level: 1, joined_at: "2026-01-01T00:00:00Z" },
    ],
    Infinity,
  );
  const row = (handle: string) => t.sqlite.query("SELECT trust_score, blacklisted FROM creators WHERE handle = ?").get(handle) as { trust_score: number; blacklisted: number };
  const bystander = row("bystander");
  expect(row("lotusforge").blacklisted).toBe(0);
  // A bulk import (indexes rebuilt, creators scored at the end) that brings no creator of its own.
  const entry = { type: "entry", severity: "ban", scope: "global", vertical: "all", reason_code: "scam", appealable: true };
  expect(
    await importLines(
      [
        { ...entry, provider: "roblox", provider_user_id: "777" },
        { ...entry, provider: "discord", provider_user_id: "5151", creator: "quietmaker", severity: "warn" },
      ],
      0,
    ),
  ).toMatchObject({ entries: 2 });
  expect(row("lotusforge").blacklisted).toBe(1);
  expect(row("quietmaker").trust_score).toBeLessThan(bystander.trust_score);
  expect(row("bystander")).toEqual(bystander);
  // One that brings enough creators to score them before its entries are stored: the entries
  // still rescore the creators stored before it and its own, by handle or by linked account.
  const makers = Array.from({ length: 1_000 }, (_, i) => [
    { type: "creator", handle: `maker${i}`, verification_level: 1, joined_at: "2026-01-01T00:00:00Z" },
    { type: "connection", creator: `maker${i}`, provider: "roblox", provider_user_id: String(50_000 + i), public: true },
  ]).flat();
  expect(
    await importLines(
      [
        ...makers,
        { ...entry, provider: "discord", provider_user_id: "5152", creator: "bystander" },
        { ...entry, provider: "roblox", provider_user_id: "50007", severity: "restrict" },
      ],
      0,
    ),
  ).toMatchObject({ creators: 1_000, entries: 2 });
  expect(row("bystander").blacklisted).toBe(1);
  expect(row("maker7").trust_score).toBeLessThan(row("maker8").trust_score);
  const scored = t.sqlite.query("SELECT handle, trust_score, blacklisted FROM creators ORDER BY handle").all();
  await t.services.creators.refreshAll();
  expect(t.sqlite.query("SELECT handle, trust_score, blacklisted FROM creators ORDER BY handle").all()).toEqual(scored);
});

sqliteOnly("a large import checking its lines on a second thread fails at the same first bad line, with the same words", async () => {
  const entry = { type: "entry", provider: "discord", provider_user_id: "4242", severity: "ban", scope: "global", vertical: "all", reason_code: "scam", appealable: true };
  const good = (i: number) => ({ ...entry, provider_user_id: String(10_000 + i) });
  const schemaBad = { ...entry, provider_user_id: "31", severity: "nuke" };
  // Passes its schema; refused only where it is written (no earlier creator line).
  const writeBad = { type: "connection", creator: "nobody_here", provider: "roblox", provider_user_id: "5", public: true };
  // Fails both: the schema's words win, as when the line is checked before it is written.
  const bothBad = { ...entry, provider_user_id: "not-a-snowflake", extra: 1 };
  const files: Array<{ rows: unknown[] | string; line: number }> = [
    { rows: [good(1), good(2), schemaBad, good(3)], line: 3 },
    { rows: [good(1), writeBad, good(2), schemaBad], line: 2 },
    { rows: [good(1), schemaBad, good(2), writeBad], line: 2 },
    { rows: [good(1), bothBad], line: 2 },
    { rows: [JSON.stringify(good(1)), "{not json", JSON.stringify(schemaBad)].join("\n"), line: 2 },
    // Far into a file: the thread has reported progress several times before the bad line.
    { rows: [...Array.from({ length: 25_000 }, (_, i) => good(i)), schemaBad, good(-1)], line: 25_001 },
    { rows: [...Array.from({ length: 25_000 }, (_, i) => good(i)), writeBad, schemaBad], line: 25_001 },
    // Entry lines go to the second thread unparsed: its words for broken JSON, a refused value and a repeated id.
    { rows: [JSON.stringify(good(1)), '{"type":"entry","provider":"discord",', JSON.stringify(schemaBad)].join("\n"), line: 2 },
    { rows: [good(1), { ...entry, provider_user_id: "not-a-snowflake" }, schemaBad], line: 2 },
    { rows: [good(1), { ...good(2), id: "bl_twice" }, writeBad, { ...good(3), id: "bl_twice" }], line: 3 },
    { rows: [good(1), { ...good(2), id: "bl_twice" }, { ...good(3), id: "bl_twice" }, writeBad], line: 3 },
    // An entry line that does not start with its type, and lines whose repeated "type" key makes them another kind.
    { rows: [good(1), { provider: "discord", type: "entry", provider_user_id: "77", severity: "nuke" }], line: 2 },
    { rows: [JSON.stringify(good(1)), '{"type":"entry","type":"creator","handle":"x"}'].join("\n"), line: 2 },
    { rows: [JSON.stringify(good(1)), `{"type":"creator","type":"entry",${JSON.stringify(good(2)).slice(1)}`].join("\n"), line: 2 },
    // An id given again in the file's last part (whose entries the import thread prepares itself): the later line.
    { rows: [{ ...good(1), id: "bl_early" }, ...Array.from({ length: 20 }, (_, i) => good(100 + i)), { ...good(2), id: "bl_early" }], line: 22 },
    { rows: [...Array.from({ length: 20 }, (_, i) => good(100 + i)), { ...good(1), id: "bl_late" }, { ...good(2), id: "bl_late" }], line: 22 },
    // A creator line refused by its schema, checked on the import thread when the entries are apart.
    { rows: [good(1), { type: "creator", handle: "fine_handle", verification_level: 9, joined_at: "2026-01-01T00:00:00Z" }, schemaBad], line: 2 },
  ];
  // The imports' scratch directories (entries-apart.ts) are all gone again; another process's are not this test's.
  const scratchDirs = () => readdirSync(tmpdir()).filter((name) => name.startsWith("trustlist-import-"));
  const scratchBefore = new Set(scratchDirs());
  const failure = (rows: unknown[] | string, checkLinesApartFromBytes: number) => {
    const file = join(t.dir, `bad-${Math.random().toString(36).slice(2)}.jsonl`);
    writeFileSync(file, typeof rows === "string" ? rows : rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    return new TransferService(t.runtime.store, t.services, t.clock, { rebuildIndexesFromBytes: 0, checkLinesApartFromBytes })
      .importFile(file)
      .then(() => null, (error: Error) => error.message);
  };
  const settings = connectionSettings(t.sqlite);
  for (const { rows, line } of files) {
    const inLine = await failure(rows, Infinity);
    expect(inLine).toStartWith(`line ${line}: `);
    expect(await failure(rows, 0)).toBe(inLine);
  }
  // Some of those failed while the indexes were being built, with the sorter switched: it is back.
  expect(connectionSettings(t.sqlite)).toEqual(settings);
  expect(t.sqlite.query("SELECT count(*) AS n FROM blacklist_entries").get()).toEqual({ n: 0 });
  // And a good file goes through with its lines checked apart.
  expect(await importLines([...lines, good(1), { ...good(2), id: "bl_stored" }], 0)).toMatchObject({ entries: 3, creators: 1, connections: 1 });
  // An id stored before is found when the entries are stored, and named by its line.
  const again = [good(3), { type: "creator", handle: "laterone", verification_level: 0, joined_at: "2026-01-01T00:00:00Z" }, { ...good(4), id: "bl_stored" }];
  const stored = await failure(again, Infinity);
  expect(stored).toBe("line 3: a record with this id or key already exists");
  expect(await failure(again, 0)).toBe(stored);
  expect(t.sqlite.query("SELECT count(*) AS n FROM blacklist_entries").get()).toEqual({ n: 3 });
  expect(scratchDirs().filter((name) => !scratchBefore.has(name))).toEqual([]);
  // Into a table holding more rows than the file (its indexes and name triggers kept): stored
  // after them, in file order, each with its feed row, and searchable.
  const more = Array.from({ length: 2 }, (_, i) => ({ ...good(528 + i), username: `later_alt_${28 + i}` }));
  expect(await importLines(more, 0)).toMatchObject({ entries: 2 });
  const added = t.sqlite
    .query<{ provider_user_id: string }, []>(
      "SELECT e.provider_user_id FROM blacklist_changes c JOIN blacklist_entries e ON e.id = c.entry_id WHERE c.type = 'added' ORDER BY c.seq",
    )
    .all()
    .map((r) => r.provider_user_id);
  expect(added.slice(-2)).toEqual(more.map((e) => e.provider_user_id));
  expect((await search("later_alt_29")).platforms[0]).toMatchObject({ id: "10529", severity: "ban" });
  expect((await search("later_alt_29x")).suggestions).toContain("later_alt_29");
  expect((await t.json("GET", "/v1/blacklist/check?provider=discord&id=10529", { key: writer })).body.severity).toBe("ban");
}, 30_000);
