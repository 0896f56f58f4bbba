// The blacklist's store and service on whichever backend the suite runs on (test/backend.ts):
// checks, the list and the change feed, overturn and expiry, duplicate ids, outbox events in the
// writing transaction, and a second handle on the same database following the first one's writes.
import { describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock";
import { CursorCodec } from "../../src/cursor";
import type { Database } from "../../src/db/database";
import { UniqueViolation } from "../../src/db/errors";
import { BlacklistService } from "../../src/modules/blacklist/service";
import { createBlacklistStore } from "../../src/modules/blacklist/store";
import { Outbox } from "../../src/modules/outbox/service";
import { backend, databasesOfThisFile, until } from "../backend";
import { AuditLog } from "../../src/modules/audit/service";

const databases = databasesOfThisFile();
const open = (location?: string) => databases.open(location);

/** Two handles on one database, as two processes or instances hold it; `told` counts the second's notices. */
async function twoHandles() {
  const first = await open();
  const second = await open(first.location);
  const { blacklist: writer } = await serviceOn(first.database);
  const { blacklist: reader } = await serviceOn(second.database);
  let notices = 0;
  second.database.changes.onExternalCommit(() => notices++);
  return { writer, reader, second, told: () => notices };
}

async function serviceOn(database: Database, clock = new ManualClock()) {
  const blacklist = new BlacklistService(database, clock, new CursorCodec("test-secret"), new Outbox(database), new AuditLog(database, new CursorCodec("test-secret")));
  await blacklist.warm();
  return { blacklist, clock };
}

/** Rows of one table through whichever client the backend has. */
async function count(database: Database, table: "blacklist_entries" | "blacklist_changes" | "outbox_events"): Promise<number> {
  if (database.dialect === "sqlite") return database.sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n;
  const [row] = await database.sql().unsafe(`SELECT count(*)::int AS n FROM ${table}`);
  return row.n;
}

async function outboxTypes(database: Database): Promise<string[]> {
  if (database.dialect === "sqlite") {
    return database.sqlite.query<{ type: string }, []>("SELECT type FROM outbox_events ORDER BY created_at, id").all().map((r) => r.type);
  }
  const rows = await database.sql()`SELECT type FROM outbox_events ORDER BY created_at, id`;
  return (rows as Array<{ type: string }>).map((r) => r.type);
}

/** Waits until `database` has been told of another handle's commit (SQLite polls data_version). */
async function awaitExternalCommit(database: Database, told: () => boolean): Promise<void> {
  expect(await until(() => (database.changes.check(), told()), 10_000)).toBe(true);
}

const ban = (id: string, extra: Record<string, unknown> = {}) => ({
  provider: "discord" as const,
  provider_user_id: id,
  severity: "ban" as const,
  reason_code: "scam_trade",
  summary: "Took payment and never delivered.",
  ...extra,
});

describe(`blacklist store (${backend})`, () => {
  test("an added entry is a hit, an unlisted account a miss, and the entry is in the list, the feed and the outbox", async () => {
    const { database } = await open();
    const { blacklist, clock } = await serviceOn(database);
    const row = await blacklist.add(ban("100"), { kind: "cli", id: "key_1" });

    // The hot path answers without a promise on SQLite; PostgreSQL awaits only a cache miss.
    if (backend === "sqlite") expect(blacklist.checkNow("discord", "100")).not.toBeInstanceOf(Promise);
    const hit = await blacklist.checkNow("discord", "100");
    expect(hit).toMatchObject({ banned: true, severity: "ban", reason_code: "scam_trade", entry: { id: row.id } });
    expect(await blacklist.checkNow("discord", "101")).toEqual({
      provider: "discord",
      id: "101",
      banned: false,
      checked_at: new Date(clock.now()).toISOString(),
    });
    expect(await blacklist.get(row.id)).toMatchObject({ id: row.id, severity: "ban", appealable: true });
    expect((await blacklist.changes({})).data).toMatchObject([{ type: "added", entry_id: row.id, entry: { id: row.id } }]);
    expect(await outboxTypes(database)).toEqual(["blacklist.added"]);
    const batch = await blacklist.checkMany([{ provider: "discord", id: "100" }, { provider: "discord", id: "102" }, { provider: "nope", id: "1" }]);
    expect(batch.results).toMatchObject([{ banned: true }, { banned: false }, { error: "invalid_account" }]);
  });

  test("checks of many subjects at once each answer from the subject's own rows, repeats and clean ones too", async () => {
    const { database } = await open();
    const { blacklist } = await serviceOn(database);
    const actor = { kind: "cli", id: "key_1" } as const;
    await blacklist.add(ban("150", { severity: "warn" }), actor);
    const worst = await blacklist.add(ban("150", { reason_code: "chargeback" }), actor);
    await blacklist.add(ban("151", { severity: "restrict", reason_code: "impersonation" }), actor);
    await blacklist.add(ban("152", { watchlist: true }), actor);
    const gone = await blacklist.add(ban("153"), actor);
    await blacklist.overturn(gone.id, null, actor);
    const ids = ["150", "151", "152", "153", "154", "150", "151"];

    // Asked in one turn (PostgreSQL looks the turn's misses up together), then one at a time.
    const together = await Promise.all(ids.map((id) => blacklist.checkNow("discord", id)));
    const alone = [];
    for (const id of ids) alone.push(await blacklist.checkNow("discord", id));
    expect(together).toEqual(alone);
    expect(together.map((r) => [r.id, r.banned, r.severity ?? null, r.watchlist ?? false])).toEqual([
      ["150", true, "ban", false],
      ["151", false, "restrict", false],
      ["152", false, null, true],
      ["153", false, null, false],
      ["154", false, null, false],
      ["150", true, "ban", false],
      ["151", false, "restrict", false],
    ]);
    expect(together[0]!.entry!.id).toBe(worst.id);
    const batch = await blacklist.checkMany(ids.map((id) => ({ provider: "discord", id })));
    expect(batch.results.map((r) => [r.id, r.banned, r.severity ?? null])).toEqual(together.map((r) => [r.id, r.banned, r.severity ?? null]));

    // A write between two turns' look-ups is seen by the next one.
    await blacklist.overturn(worst.id, null, actor);
    const after = await Promise.all(["150", "151"].map((id) => blacklist.checkNow("discord", id)));
    expect(after.map((r) => [r.banned, r.severity])).toEqual([
      [false, "warn"],
      [false, "restrict"],
    ]);
  });

  test("the list pages in issue order and the feed keeps the order of the changes", async () => {
    const { database } = await open();
    const { blacklist, clock } = await serviceOn(database);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await blacklist.add(ban(String(200 + i)), { kind: "cli", id: "key_1" })).id);
      clock.advance(1_000);
    }
    const first = await blacklist.list({ limit: 2 });
    expect(first.data.map((e) => e.id)).toEqual(ids.slice(0, 2));
    expect(first.has_more).toBe(true);
    const second = await blacklist.list({ limit: 2, cursor: first.next_cursor! });
    const third = await blacklist.list({ limit: 2, cursor: second.next_cursor! });
    expect([...second.data, ...third.data].map((e) => e.id)).toEqual(ids.slice(2));
    expect(third).toMatchObject({ has_more: false, next_cursor: null });

    await blacklist.overturn(ids[1]!, "appeal upheld", { kind: "cli", id: "test" });
    const feed = await blacklist.changes({ limit: 3 });
    expect(feed.data.map((c) => c.type)).toEqual(["added", "added", "added"]);
    const rest = await blacklist.changes({ cursor: feed.next_cursor! });
    expect(rest.data.map((c) => [c.type, c.entry_id])).toEqual([
      ["added", ids[3]],
      ["added", ids[4]],
      ["overturned", ids[1]],
    ]);
    const seqs = [...feed.data, ...rest.data].map((c) => c.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect((await blacklist.list({})).data.map((e) => e.id)).toEqual([ids[0], ids[2], ids[3], ids[4]]);
  });

  test("an overturned entry stops matching, and a second overturn is a conflict", async () => {
    const { database } = await open();
    const { blacklist } = await serviceOn(database);
    const row = await blacklist.add(ban("300"), { kind: "cli", id: "key_1" });
    expect((await blacklist.checkNow("discord", "300")).banned).toBe(true);
    const result = await blacklist.overturn(row.id, null, { kind: "cli", id: "test" });
    expect(result).toMatchObject({ id: row.id, status: "overturned" });
    expect((await blacklist.checkNow("discord", "300")).banned).toBe(false);
    expect(await blacklist.get(row.id)).toBeNull();
    await expect(blacklist.overturn(row.id, null, { kind: "cli", id: "test" })).rejects.toMatchObject({ kind: "conflict" });
    await expect(blacklist.overturn("bl_unknown", null, { kind: "cli", id: "test" })).rejects.toMatchObject({ kind: "not_found" });
    expect(await outboxTypes(database)).toEqual(["blacklist.added", "blacklist.overturned"]);
  });

  test("expiry marks lapsed entries in slices, once each, and they stop matching", async () => {
    const { database } = await open();
    const { blacklist, clock } = await serviceOn(database);
    const expiresAt = new Date(clock.now() + 60_000).toISOString();
    for (let i = 0; i < 5; i++) await blacklist.add(ban(String(400 + i), { expires_at: expiresAt }), { kind: "cli", id: "key_1" });
    await blacklist.add(ban("499"), { kind: "cli", id: "key_1" });
    expect(await blacklist.expireDue(2)).toBe(0);
    clock.advance(60_000);
    // Lapsed but not yet marked: the check compares expires_at with the clock already.
    expect((await blacklist.checkNow("discord", "400")).banned).toBe(false);
    expect(await blacklist.expireDue(2)).toBe(5);
    expect(await blacklist.expireDue(2)).toBe(0);
    const feed = await blacklist.changes({});
    expect(feed.data.filter((c) => c.type === "expired")).toHaveLength(5);
    expect((await blacklist.checkNow("discord", "499")).banned).toBe(true);
    expect((await blacklist.list({})).data).toHaveLength(1);
  });

  test("a duplicate id is a UniqueViolation and leaves the stored row as it was", async () => {
    const { database } = await open();
    const { blacklist } = await serviceOn(database);
    const store = createBlacklistStore(database);
    const row = await blacklist.add(ban("500"), { kind: "cli", id: "key_1" });
    const copy = { ...row, providerUserId: "501" };
    await expect(store.transaction(() => store.insertEntry(copy))).rejects.toBeInstanceOf(UniqueViolation);
    expect((await store.byId(row.id))?.providerUserId).toBe("500");
    expect(await count(database, "blacklist_entries")).toBe(1);
  });

  test("outbox events and listeners' writes share the entry's transaction and roll back with it", async () => {
    const { database } = await open();
    const { blacklist } = await serviceOn(database);
    const seen: string[] = [];
    blacklist.onEntryChange(async (row, change) => {
      // Awaits database work only, as a listener inside a SQLite write must.
      await createBlacklistStore(database).byId(row.id);
      seen.push(`first ${change} ${row.providerUserId}`);
    });
    blacklist.onEntryChange((row) => {
      seen.push(`second ${row.providerUserId}`);
      if (row.providerUserId === "666") throw new Error("listener refused");
    });
    await blacklist.add(ban("600"), { kind: "cli", id: "key_1" });
    expect(seen).toEqual(["first added 600", "second 600"]);
    await expect(blacklist.add(ban("666"), { kind: "cli", id: "key_1" })).rejects.toThrow("listener refused");
    expect(await count(database, "blacklist_entries")).toBe(1);
    expect(await count(database, "blacklist_changes")).toBe(1);
    expect(await count(database, "outbox_events")).toBe(1);
    expect((await blacklist.checkNow("discord", "666")).banned).toBe(false);

    const outbox = new Outbox(database);
    await expect(
      database.write(async () => {
        await outbox.write("deal.confirmed", { deal_id: "d1" }, 1);
        throw new Error("caller refused");
      }),
    ).rejects.toThrow("caller refused");
    await database.write(() => outbox.write("deal.declined", { deal_id: "d2" }, 2));
    expect(await outboxTypes(database)).toEqual(["deal.declined", "blacklist.added"]);
  });

  test("a second handle on the same database sees the first one's add and overturn once told of them", async () => {
    const { writer, reader, second, told } = await twoHandles();

    expect((await reader.checkNow("discord", "700")).banned).toBe(false);
    const row = await writer.add(ban("700"), { kind: "cli", id: "key_1" });
    await awaitExternalCommit(second.database, () => told() >= 1);
    expect((await reader.checkNow("discord", "700")).banned).toBe(true);
    // Asked again: from the verdict cache on PostgreSQL, so without a promise there too.
    const again = reader.checkNow("discord", "700");
    expect(again).not.toBeInstanceOf(Promise);
    expect((await again).banned).toBe(true);

    await writer.overturn(row.id, null, { kind: "cli", id: "test" });
    await awaitExternalCommit(second.database, () => told() >= 2);
    expect((await reader.checkNow("discord", "700")).banned).toBe(false);
  });

  test("after another handle's add, clean subjects are still answered from memory and the new one is a hit", async () => {
    const { writer, reader, second, told } = await twoHandles();
    await writer.add(ban("900"), { kind: "cli", id: "key_1" });
    await awaitExternalCommit(second.database, () => told() >= 1);
    // No database round trip for a subject nobody listed: the answer is not a promise (on
    // PostgreSQL the notification carried the new subject, so the filter never stopped trusting).
    const clean = reader.checkNow("discord", "901");
    expect(clean).not.toBeInstanceOf(Promise);
    expect((await clean).banned).toBe(false);
    expect((await reader.checkNow("discord", "900")).banned).toBe(true);
  });

  test("two handles expiring at once expire each lapsed entry once", async () => {
    const first = await open();
    const second = await open(first.location);
    const clock = new ManualClock();
    const { blacklist: a } = await serviceOn(first.database, clock);
    const { blacklist: b } = await serviceOn(second.database, clock);
    const expiresAt = new Date(clock.now() + 60_000).toISOString();
    for (let i = 0; i < 7; i++) await a.add(ban(String(800 + i), { expires_at: expiresAt }), { kind: "cli", id: "key_1" });
    clock.advance(60_000);
    const [byA, byB] = await Promise.all([a.expireDue(2), b.expireDue(2)]);
    expect(byA + byB).toBe(7);
    const feed = await a.changes({});
    expect(feed.data.filter((c) => c.type === "expired")).toHaveLength(7);
    expect(new Set(feed.data.filter((c) => c.type === "expired").map((c) => c.entry_id)).size).toBe(7);
  });
});
