// The creators' and network's stores and services on whichever backend the suite runs on
// (test/backend.ts), on a fresh database each: creators, links, vouches, deals and reviews,
// referrals, servers, and the Trust Score each of them recomputes with its snapshot.
// The blacklist and the outbox belong to other modules: a blacklist that names nobody and an
// outbox that records what it is given stand in for them.
import { afterAll, beforeEach, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { ManualClock, utcDay } from "../src/clock";
import type { Database } from "../src/db/database";
import { UniqueViolation } from "../src/db/errors";
import type { ServiceError } from "../src/errors";
import type { Outbox } from "../src/outbox";
import type { BlacklistService, EntryRow } from "../src/modules/blacklist/service";
import { CreatorsService } from "../src/modules/creators/service";
import { NetworkService } from "../src/modules/network/service";
import { dropDatabase, freshDatabase } from "./backend";
import { tempDir } from "./helpers";

const dir = tempDir();
const opened: Array<{ database: Database; location: string }> = [];
afterAll(async () => {
  for (const { database, location } of opened) {
    await database.close();
    await dropDatabase(location);
  }
  rmSync(dir, { recursive: true, force: true });
});

let clock: ManualClock;
let events: Array<{ type: string; data: unknown }>;
let creators: CreatorsService;
let network: NetworkService;
let database: Database;
/** What the creators module asked the stand-in blacklist to call on each entry change. */
let entryListener: (row: EntryRow, change: "added", emit: boolean) => void | Promise<void>;

beforeEach(async () => {
  const fresh = await freshDatabase(`${dir}/${opened.length}`);
  opened.push(fresh);
  clock = new ManualClock();
  events = [];
  const outbox = { write: async (type: string, data: unknown) => void events.push({ type, data }) } as unknown as Outbox;
  database = fresh.database;
  const blacklist = {
    onEntryChange(listener: typeof entryListener) {
      entryListener = listener;
    },
    onBulkEntries() {},
  } as unknown as BlacklistService;
  creators = new CreatorsService(fresh.database, clock, outbox, blacklist, "https://trust.example");
  network = new NetworkService(fresh.database, clock, outbox, creators);
});

/** The ServiceError kind a promise is rejected with. */
async function codeOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    return (error as ServiceError).kind;
  }
  throw new Error("expected a rejection");
}

test("a creator is created, then updated; the store refuses a taken handle as UniqueViolation", async () => {
  const first = await creators.upsert("@Alice", { display_name: "Alice", verification_level: 2 });
  expect(first.created).toBe(true);
  expect(first.profile).toMatchObject({ handle: "alice", display_name: "Alice", verification_label: "Standard", trust_score: 116 });
  const again = await creators.upsert("alice", { karma: 5 });
  expect(again.created).toBe(false);
  expect(again.profile).toMatchObject({ display_name: "Alice", karma: 5 });

  const row = (await creators.find("alice"))!;
  const taken = creators.store.transaction(async () => {
    await creators.store.insertCreator({ ...row, id: "crt_other" });
  });
  expect(await taken.catch((error) => error)).toBeInstanceOf(UniqueViolation);
  expect((await creators.find("alice"))!.id).toBe(row.id);
  expect(await codeOf(creators.profile("nobody"))).toBe("not_found");
  expect(await codeOf(creators.upsert("alice", { joined_at: "2099-01-01T00:00:00Z" }))).toBe("unprocessable");
});

test("links: public ones are shown and scored, private ones neither; another creator's account is a conflict", async () => {
  await creators.upsert("alice", {});
  await creators.upsert("bob", {});
  const linked = await creators.link("alice", { provider: "github", provider_user_id: "42", provider_username: "Ally", verified_at: "2026-11-01T00:00:00Z" });
  expect(linked.created).toBe(true);
  expect(linked.connection).toMatchObject({ creator_id: (await creators.find("alice"))!.id, public: 1 });
  await creators.link("alice", { provider: "discord", provider_user_id: "80351110224678912", public: false });
  expect(await creators.connections("alice")).toEqual([
    { provider: "github", provider_username: "Ally", provider_url: null, verified_at: "2026-11-01T00:00:00.000Z" },
  ]);
  const alice = (await creators.find("alice"))!;
  expect(alice).toMatchObject({ linked_accounts: 1, verified_connections: 1, platforms: "github", trust_score: 105 });
  expect(alice.search_text).toBe("alice ally");

  // The same account again updates the link; another creator may not take it.
  expect((await creators.link("alice", { provider: "github", provider_user_id: "42", public: false })).created).toBe(false);
  expect(await creators.connections("alice")).toEqual([]);
  expect(await codeOf(creators.link("bob", { provider: "github", provider_user_id: "42" }))).toBe("conflict");
  expect(await codeOf(creators.link("bob", { provider: "myspace", provider_user_id: "1" }))).toBe("unprocessable");

  const removed = await creators.unlink("alice", "discord", "80351110224678912");
  expect(removed.provider).toBe("discord");
  expect(await codeOf(creators.unlink("alice", "discord", "80351110224678912"))).toBe("not_found");
  expect((await creators.find("alice"))!.linked_accounts).toBe(0);
});

test("a vouch counts once; a second is a conflict and changes nothing", async () => {
  await creators.upsert("alice", {});
  await creators.upsert("bob", {});
  const vouch = await network.vouch({ from: "alice", to: "bob", message: "solid" });
  expect(vouch).toMatchObject({ from: "alice", to: "bob", message: "solid" });
  expect(await codeOf(network.vouch({ from: "alice", to: "bob" }))).toBe("conflict");
  expect(await codeOf(network.vouch({ from: "bob", to: "bob" }))).toBe("unprocessable");
  expect((await creators.find("bob"))!).toMatchObject({ vouch_count: 1, trust_score: 102 });
});

test("a deal goes pending → confirmed → completed, then each side may review once", async () => {
  await creators.upsert("alice", {});
  await creators.upsert("bob", {});
  const deal = await network.openDeal({ from: "alice", to: "bob" });
  expect(deal.status).toBe("pending");
  expect(await codeOf(network.review({ from: "alice", to: "bob", rating: 5 }))).toBe("conflict");
  expect(await codeOf(network.transition(deal.id, "complete"))).toBe("conflict");
  clock.advance(1_000);
  expect((await network.transition(deal.id, "confirm")).status).toBe("confirmed");
  expect(events).toEqual([{ type: "deal.confirmed", data: { deal_id: deal.id, from: "alice", to: "bob", status: "confirmed" } }]);
  const done = await network.transition(deal.id, "complete");
  expect(done).toMatchObject({ status: "completed", updated_at: new Date(clock.now()).toISOString() });
  expect(await network.getDeal(deal.id)).toEqual(done);
  expect(await codeOf(network.getDeal("deal_nothing"))).toBe("not_found");
  expect((await creators.find("alice"))!).toMatchObject({ deal_count: 1, trust_score: 103 });

  const review = await network.review({ from: "alice", to: "bob", rating: 5 });
  expect(review).toMatchObject({ deal_id: deal.id, from: "alice", to: "bob", rating: 5 });
  expect(await codeOf(network.review({ from: "alice", to: "bob", rating: 4 }))).toBe("conflict");
  expect(await codeOf(network.review({ from: "bob", to: "alice", rating: 9 }))).toBe("unprocessable");
  // 100 + 3 (one completed deal) + 2 (one five-star review: 20 * (5 - 3) / 2 * 1/10)
  expect(await creators.profile("bob")).toMatchObject({ reviews: { count: 1, average: 5 }, completed_deals: 1, trust_score: 105 });
});

test("a creator is referred once", async () => {
  await creators.upsert("alice", {});
  await creators.upsert("bob", {});
  await creators.upsert("carol", {});
  expect(await network.refer({ referrer: "alice", referred: "bob" })).toMatchObject({ referrer: "alice", referred: "bob" });
  expect(await codeOf(network.refer({ referrer: "carol", referred: "bob" }))).toBe("conflict");
  expect(await codeOf(network.refer({ referrer: "alice", referred: "ghost" }))).toBe("not_found");
});

test("a server is registered, renamed, and unregistered", async () => {
  const first = await network.registerServer({ platform: "discord", server_id: "123", name: "Builders" }, "key_1");
  expect(first).toMatchObject({ created: true, server: { platform: "discord", server_id: "123", name: "Builders" } });
  const renamed = await network.registerServer({ platform: "discord", server_id: "123", name: "Builders Club" }, "key_1");
  expect(renamed).toMatchObject({ created: false, server: { name: "Builders Club", created_at: first.server.created_at } });
  expect((await network.unregisterServer("discord", "123")).name).toBe("Builders Club");
  expect(await codeOf(network.unregisterServer("discord", "123"))).toBe("not_found");
});

test("the Trust Score is recomputed with the day's snapshot, and the daily refresh moves it with account age", async () => {
  await creators.upsert("alice", { verification_level: 4 });
  const alice = (await creators.find("alice"))!;
  expect(alice.trust_score).toBe(130);
  expect(await creators.store.trendFrom(alice.id, utcDay(clock.now()))).toBe(130);
  expect((await creators.trust("alice")).trend).toEqual({ direction: "flat", delta: 0, from: 130, window_days: 30 });

  // 60 days on, nothing written: the refresh adds two months of age and records the new day.
  clock.advance(60 * 86_400_000);
  expect(await creators.refreshAll()).toBe(1);
  const refreshed = await creators.trust("alice");
  expect(refreshed).toMatchObject({ trust_score: 132, basis: { account_age_days: 60 } });
  expect(refreshed.trend).toEqual({ direction: "up", delta: 2, from: 130, window_days: 30 });
  expect(await creators.store.trendFrom(alice.id, utcDay(clock.now()))).toBe(132);
});

/** A ban as the blacklist stores it, written through whichever client the backend has. */
async function storeBan(id: string, provider: string, accountId: string, at: number): Promise<EntryRow> {
  const row = {
    id, provider, provider_user_id: accountId, username: null, severity: "ban", scope: "global", vertical: "all",
    reason_code: "scam", summary: null, issued_at: at, expires_at: null, appealable: 1, high_risk: 0, watchlist: 0,
    creator_handle: null, evidence: null, reporter: "test", status: "active", overturned_at: null, overturn_reason: null, created_at: at,
  } as EntryRow;
  if (database.dialect === "sqlite") {
    database.sqlite.run(
      `INSERT INTO blacklist_entries (id, provider, provider_user_id, severity, scope, vertical, reason_code, issued_at, appealable, status, created_at)
       VALUES (?, ?, ?, 'ban', 'global', 'all', 'scam', ?, 1, 'active', ?)`,
      [id, provider, accountId, at, at],
    );
  } else {
    await database.sql()`
      INSERT INTO blacklist_entries (id, provider, provider_user_id, severity, scope, vertical, reason_code, issued_at, appealable, status, created_at)
      VALUES (${id}, ${provider}, ${accountId}, 'ban', 'global', 'all', 'scam', ${at}, true, 'active', ${at})`;
  }
  return row;
}

test("a ban on a linked account, told inside its transaction, blacklists the creator once with one event", async () => {
  await creators.upsert("alice", { verification_level: 3 });
  await creators.link("alice", { provider: "github", provider_user_id: "42" });
  const now = clock.now();
  await database.write(async () => {
    const ban = await storeBan("bl_1", "github", "42", now);
    await entryListener(ban, "added", true);
  });
  expect(await creators.trust("alice")).toMatchObject({ trust_score: 0, band: "banned", blacklisted: true });
  const alice = (await creators.find("alice"))!;
  expect(events).toEqual([{ type: "creator.blacklisted", data: { creator_id: alice.id, handle: "alice", entry_id: "bl_1" } }]);
  expect(await creators.store.trendFrom(alice.id, utcDay(now))).toBe(0);

  // Told again (an update of the same entry): still banned, no second event.
  await database.write(async () => {
    await entryListener({ ...(await storeBan("bl_2", "github", "43", now)), provider_user_id: "42" }, "added", true);
  });
  expect(events.length).toBe(1);
});
