// An import large next to what is stored recounts the suggestion names (search_names) once at its
// end instead of counting them row by row (SQLite: search-index.ts; PostgreSQL: its triggers stand
// aside, search-names.postgres.ts). Either way the table must end exactly as row-by-row counting
// leaves it, and a failed import must leave it, and its counting, as they were.
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ManualClock } from "../../src/clock";
import { CursorCodec } from "../../src/cursor";
import type { Database } from "../../src/db/database";
import { AccountsService } from "../../src/modules/accounts/service";
import { createAccountsStore } from "../../src/modules/accounts/store";
import { AuditLog } from "../../src/modules/audit/service";
import { BlacklistService } from "../../src/modules/blacklist/service";
import { CreatorsService } from "../../src/modules/creators/service";
import { NetworkService } from "../../src/modules/network/service";
import { Outbox } from "../../src/modules/outbox/service";
import { TransferService } from "../../src/modules/transfer/service";
import { backend, databasesOfThisFile } from "../backend";

const databases = databasesOfThisFile();

async function instance(location?: string) {
  const { database } = await databases.open(location);
  const clock = new ManualClock();
  const outbox = new Outbox(database);
  const codec = new CursorCodec("names-test");
  const blacklist = new BlacklistService(database, clock, codec, outbox, new AuditLog(database, codec));
  const creators = new CreatorsService(database, clock, outbox, blacklist, "https://trust.example");
  const network = new NetworkService(database, clock, outbox, creators);
  const accounts = new AccountsService(createAccountsStore(database), clock, () => {});
  const services = { accounts, blacklist, creators, network };
  /** Imports `lines`; `recount` makes any file large enough to recount the names at its end. */
  const importLines = (lines: unknown[], recount: boolean) => {
    const file = join(databases.dir, `names-${Math.random().toString(36).slice(2)}.jsonl`);
    writeFileSync(file, lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
    const options = recount ? { rebuildIndexesFromBytes: 0, checkLinesApartFromBytes: Number.MAX_SAFE_INTEGER } : {};
    return new TransferService(database, services, clock, options).importFile(file);
  };
  return { database, importLines };
}

async function names(database: Database) {
  const query = "SELECT name, public_refs, entry_refs, private_refs FROM search_names ORDER BY name";
  const rows = database.dialect === "sqlite" ? database.sqlite.query(query).all() : await database.sql().unsafe(query);
  return [...rows].map((row: any) => ({ ...row, public_refs: Number(row.public_refs), entry_refs: Number(row.entry_refs), private_refs: Number(row.private_refs) }));
}

const creator = (handle: string) => ({ type: "creator", handle, verification_level: 1, joined_at: "2025-01-01T00:00:00Z" });
const link = (handle: string, id: string, username: string, pub = true) => ({ type: "connection", creator: handle, provider: "roblox", provider_user_id: id, provider_username: username, public: pub });
const entry = (id: string, username: string, extra: Record<string, unknown> = {}) => ({ type: "entry", provider: "discord", provider_user_id: id, username, severity: "ban", reason_code: "scam", ...extra });

const seed = [creator("seeded"), link("seeded", "1", "SeedName"), link("seeded", "2", "Hidden", false), entry("100", "SeedEntry")];
const file = [
  creator("newbie"),
  link("newbie", "3", "Newbie_RBX"),
  link("newbie", "4", "SeedEntry", false),
  // The seeded creator's account again: the link is updated (its name counted off and on again).
  link("seeded", "1", "RenamedSeed"),
  entry("101", "SeedName"),
  entry("102", "Watched", { watchlist: true }),
  entry("103", "Hidden"),
  entry("104", "newbie"),
  // Entries without a name: the file comfortably larger than what is stored.
  ...Array.from({ length: 10 }, (_, i) => entry(String(200 + i), "")).map(({ username: _, ...line }) => line),
];

test("a recount at the end of an import leaves search_names as row-by-row counting does", async () => {
  const counted = await instance();
  const recounted = await instance();
  for (const target of [counted, recounted]) await target.importLines(seed, false);
  expect(await counted.importLines(file, false)).toMatchObject({ creators: 1, connections: 3, entries: 14 });
  expect(await recounted.importLines(file, true)).toMatchObject({ creators: 1, connections: 3, entries: 14 });
  const expected = await names(counted.database);
  expect(expected.map((row) => row.name)).toContain("renamedseed");
  expect(await names(recounted.database)).toEqual(expected);
});

test("a failed import that was to recount the names keeps them, and later writes count theirs again", async () => {
  const target = await instance();
  await target.importLines(seed, false);
  const before = await names(target.database);
  const failed = await target.importLines([...file, { type: "entry", provider: "discord" }], true).catch((e) => e);
  expect(failed.message).toStartWith(`line ${file.length + 1}:`);
  expect(await names(target.database)).toEqual(before);
  await target.importLines([creator("later"), link("later", "9", "LaterName")], false);
  expect((await names(target.database)).filter((row) => row.name.startsWith("later"))).toEqual([
    { name: "later", public_refs: 1, entry_refs: 0, private_refs: 0 },
    { name: "latername", public_refs: 1, entry_refs: 0, private_refs: 0 },
  ]);
});

/**
 * The indexes of the tables a large import into empty ones builds after its lines (and of the
 * names it recounts), with their foreign and unique keys on PostgreSQL, which it also adds back
 * after them.
 */
async function entryIndexes(database: Database) {
  const rows =
    database.dialect === "sqlite"
      ? database.sqlite
          .query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('blacklist_entries', 'connections', 'creators', 'search_names') ORDER BY name")
          .all()
      : await database.sql().unsafe(
          `SELECT indexname AS name FROM pg_indexes WHERE tablename IN ('blacklist_entries', 'blacklist_changes', 'connections', 'creators', 'search_names')
           UNION ALL SELECT conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
           WHERE contype IN ('f', 'u') AND conrelid IN ('blacklist_changes'::regclass, 'connections'::regclass, 'trust_snapshots'::regclass, 'search_names'::regclass) ORDER BY 1`,
        );
  return [...rows].map((row: any) => row.name as string);
}

test("a large import into empty tables builds their indexes after the lines; failed, it leaves them and nothing else", async () => {
  const target = await instance();
  const indexes = await entryIndexes(target.database);
  expect(indexes.length).toBeGreaterThan(3);
  if (target.database.dialect === "postgres") {
    expect(indexes).toContain("search_names_trgm_idx");
    expect(indexes.filter((name) => name.includes("FOREIGN KEY")).length).toBe(3);
    expect(indexes).toContain("search_names_name_key UNIQUE (name)");
  }
  const lines = [...seed, ...file];
  const failed = await target.importLines([...lines, { type: "entry", provider: "discord" }], true).catch((e) => e);
  expect(failed.message).toStartWith(`line ${lines.length + 1}:`);
  expect(await entryIndexes(target.database)).toEqual(indexes);
  expect(await names(target.database)).toEqual([]);
  expect(await target.importLines(lines, true)).toMatchObject({ entries: 15 });
  expect(await entryIndexes(target.database)).toEqual(indexes);
  if (target.database.dialect === "postgres") {
    // The foreign keys added back are in force: a feed row naming no entry is refused.
    const refused = await target.database.sql().unsafe("INSERT INTO blacklist_changes (type, entry_id, at) VALUES ('added', 'bl_none', 0)").catch((e: Error) => e);
    expect(String(refused)).toContain("foreign key");
  }
  // A second large import finds the tables holding rows: their indexes stay and are written as it goes.
  expect(await target.importLines([creator("another"), link("another", "7", "Another"), entry("300", "Later")], true)).toMatchObject({ entries: 1 });
  expect(await entryIndexes(target.database)).toEqual(indexes);
});

const postgresOnly = backend === "postgres" ? test : test.skip;

postgresOnly("a large import by a user that does not own the tables writes through their indexes as they are", async () => {
  const { database: owner, location } = await databases.open();
  if (owner.dialect !== "postgres") throw new Error("PostgreSQL only");
  const role = `importer_${Math.random().toString(36).slice(2, 10)}`;
  await owner.sql().unsafe(`CREATE ROLE ${role} LOGIN`);
  for (const statement of [
    `GRANT USAGE ON SCHEMA public, drizzle TO ${role}`,
    `GRANT ALL ON ALL TABLES IN SCHEMA public TO ${role}`,
    `GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO ${role}`,
    `GRANT SELECT ON ALL TABLES IN SCHEMA drizzle TO ${role}`,
  ]) {
    await owner.sql().unsafe(statement);
  }
  const url = new URL(location);
  url.username = role;
  const target = await instance(url.toString());
  const indexes = await entryIndexes(owner);
  expect(await target.importLines([...seed, ...file], true)).toMatchObject({ entries: 15 });
  expect(await entryIndexes(owner)).toEqual(indexes);
  await target.database.close();
  await owner.sql().unsafe(`DROP OWNED BY ${role}`);
  await owner.sql().unsafe(`DROP ROLE ${role}`);
});
