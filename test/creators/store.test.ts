// The creators' and network's stores and services on whichever backend the suite runs on
// (test/backend.ts), on a fresh database each: creators, links, vouches, deals and reviews,
// referrals, servers, and the Trust Score each of them recomputes with its snapshot.
// The blacklist and the outbox are the real services on the same database: a ban reaches the
// creators module inside the blacklist's transaction, and events are read back from outbox_events.
import { beforeEach, expect, test } from "bun:test";
import { ManualClock, utcDay } from "../../src/clock";
import type { Database } from "../../src/db/database";
import { UniqueViolation } from "../../src/db/errors";
import type { ServiceError } from "../../src/errors";
import { CursorCodec } from "../../src/cursor";
import { Outbox } from "../../src/modules/outbox/service";
import { BlacklistService } from "../../src/modules/blacklist/service";
import { type ConnectionInput, CreatorsService } from "../../src/modules/creators/service";
import { NetworkService } from "../../src/modules/network/service";
import { databasesOfThisFile } from "../backend";
import { AuditLog } from "../../src/modules/audit/service";

const databases = databasesOfThisFile();

let clock: ManualClock;
let blacklist: BlacklistService;
let creators: CreatorsService;
let network: NetworkService;
let database: Database;

/** The outbox's events in the order they were written. */
async function eventsWritten(): Promise<Array<{ type: string; data: unknown }>> {
  const rows =
    database.dialect === "sqlite"
      ? database.sqlite.query<{ type: string; payload: string }, []>("SELECT type, payload FROM outbox_events ORDER BY rowid").all()
      : await database.sql()`SELECT type, payload FROM outbox_events ORDER BY created_at, id`;
  return rows.map((row: { type: string; payload: string }) => ({ type: row.type, data: JSON.parse(row.payload) }));
}

beforeEach(async () => {
  const fresh = await databases.open();
  clock = new ManualClock();
  database = fresh.database;
  const outbox = new Outbox(database);
  blacklist = new BlacklistService(database, clock, new CursorCodec("creators-store-test"), outbox, new AuditLog(database, new CursorCodec("creators-store-test")));
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
  expect(linked.connection).toMatchObject({ creatorId: (await creators.find("alice"))!.id, public: true });
  await creators.link("alice", { provider: "discord", provider_user_id: "80351110224678912", public: false });
  expect(await creators.connections("alice")).toEqual([
    { provider: "github", provider_username: "Ally", provider_url: null, verified_at: "2026-11-01T00:00:00.000Z" },
  ]);
  const alice = (await creators.find("alice"))!;
  expect(alice).toMatchObject({ linkedAccounts: 1, verifiedConnections: 1, platforms: "github", trustScore: 105 });
  expect(alice.searchText).toBe("alice ally");

  // The same account again updates the link; another creator may not take it.
  expect((await creators.link("alice", { provider: "github", provider_user_id: "42", public: false })).created).toBe(false);
  expect(await creators.connections("alice")).toEqual([]);
  expect(await codeOf(creators.link("bob", { provider: "github", provider_user_id: "42" }))).toBe("conflict");
  expect(await codeOf(creators.link("bob", { provider: "myspace" as ConnectionInput["provider"], provider_user_id: "1" }))).toBe("unprocessable");

  const removed = await creators.unlink("alice", "discord", "80351110224678912");
  expect(removed.provider).toBe("discord");
  expect(await codeOf(creators.unlink("alice", "discord", "80351110224678912"))).toBe("not_found");
  expect((await creators.find("alice"))!.linkedAccounts).toBe(0);
});

test("links of several accounts are read in one call: every one linked, none of the others, private ones too", async () => {
  await creators.upsert("alice", {});
  await creators.upsert("bob", {});
  await creators.link("alice", { provider: "github", provider_user_id: "shadow", provider_username: "Shadow" });
  await creators.link("bob", { provider: "twitch", provider_user_id: "shadow", public: false });
  await creators.link("bob", { provider: "discord", provider_user_id: "80351110224678912" });
  const byAccount = async (accounts: Array<{ provider: string; id: string }>) =>
    (await creators.store.connectionsByAccounts(accounts)).map((c) => `${c.provider}:${c.providerUserId}:${c.public ? "public" : "private"}`).sort();
  expect(await byAccount([])).toEqual([]);
  expect(
    await byAccount([
      { provider: "github", id: "shadow" },
      { provider: "twitch", id: "shadow" },
      { provider: "youtube", id: "shadow" },
      { provider: "discord", id: "80351110224678912" },
      { provider: "roblox", id: "80351110224678912" },
    ]),
  ).toEqual(["discord:80351110224678912:public", "github:shadow:public", "twitch:shadow:private"]);
  expect(await byAccount([{ provider: "tiktok", id: "shadow" }])).toEqual([]);
  // Text with quotes, commas and braces is a value like any other.
  expect(await byAccount([{ provider: "github", id: 'sh"a,d{o}w' }])).toEqual([]);
});

test("a vouch counts once; a second is a conflict and changes nothing", async () => {
  await creators.upsert("alice", {});
  await creators.upsert("bob", {});
  const vouch = await network.vouch({ from: "alice", to: "bob", message: "solid" });
  expect(vouch).toMatchObject({ from: "alice", to: "bob", message: "solid" });
  expect(await codeOf(network.vouch({ from: "alice", to: "bob" }))).toBe("conflict");
  expect(await codeOf(network.vouch({ from: "bob", to: "bob" }))).toBe("unprocessable");
  expect((await creators.find("bob"))!).toMatchObject({ vouchCount: 1, trustScore: 102 });
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
  expect(await eventsWritten()).toEqual([{ type: "deal.confirmed", data: { deal_id: deal.id, from: "alice", to: "bob", status: "confirmed" } }]);
  const done = await network.transition(deal.id, "complete");
  expect(done).toMatchObject({ status: "completed", updated_at: new Date(clock.now()).toISOString() });
  expect(await network.getDeal(deal.id)).toEqual(done);
  expect(await codeOf(network.getDeal("deal_nothing"))).toBe("not_found");
  expect((await creators.find("alice"))!).toMatchObject({ dealCount: 1, trustScore: 103 });

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
  expect(alice.trustScore).toBe(130);
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

test("a ban on a linked account, told inside its transaction, blacklists the creator once with one event", async () => {
  await creators.upsert("alice", { verification_level: 3 });
  await creators.link("alice", { provider: "github", provider_user_id: "42" });
  const now = clock.now();
  const ban = await blacklist.add({ provider: "github", provider_user_id: "42", severity: "ban", reason_code: "scam" }, { kind: "cli", id: "test" });
  expect(await creators.trust("alice")).toMatchObject({ trust_score: 0, band: "banned", blacklisted: true });
  const alice = (await creators.find("alice"))!;
  const creatorEvents = async () => (await eventsWritten()).filter((event) => event.type === "creator.blacklisted");
  expect(await creatorEvents()).toEqual([{ type: "creator.blacklisted", data: { creator_id: alice.id, handle: "alice", entry_id: ban.id } }]);
  expect(await creators.store.trendFrom(alice.id, utcDay(now))).toBe(0);

  // A second ban of the same account: still banned, no second creator.blacklisted event.
  clock.advance(1_000);
  await blacklist.add({ provider: "github", provider_user_id: "42", severity: "ban", reason_code: "fraud" }, { kind: "cli", id: "test" });
  expect(await creatorEvents()).toHaveLength(1);
  expect((await eventsWritten()).filter((event) => event.type === "blacklist.added")).toHaveLength(2);
});
