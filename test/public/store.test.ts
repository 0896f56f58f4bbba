// The public module's stores on whichever backend the suite runs on (test/backend.ts), on a fresh
// database each: the suggestion pool (`search_names`), filled by the real creators service, and the
// public counters, read through the stores that own the counted tables.
import { beforeEach, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock";
import { CursorCodec } from "../../src/cursor";
import type { Database } from "../../src/db/database";
import { BlacklistService } from "../../src/modules/blacklist/service";
import { createBlacklistStore } from "../../src/modules/blacklist/store";
import { CreatorsService } from "../../src/modules/creators/service";
import type { CreatorScan } from "../../src/modules/creators/store";
import { NetworkService } from "../../src/modules/network/service";
import { createNetworkStore } from "../../src/modules/network/store";
import { PublicCounters } from "../../src/modules/public/stats";
import { createSearchNamesStore, type SearchNamesStore } from "../../src/modules/public/store";
import { Outbox } from "../../src/modules/outbox/service";
import { backend, databasesOfThisFile, writeAsAnotherProcess } from "../backend";
import { AuditLog } from "../../src/modules/audit/service";

const databases = databasesOfThisFile();

let database: Database;
let location: string;
let clock: ManualClock;
let blacklist: BlacklistService;
let creators: CreatorsService;
let network: NetworkService;
let names: SearchNamesStore;
let counters: PublicCounters;

beforeEach(async () => {
  const fresh = await databases.open();
  database = fresh.database;
  location = fresh.location;
  clock = new ManualClock();
  const outbox = new Outbox(fresh.database);
  blacklist = new BlacklistService(fresh.database, clock, new CursorCodec("public-store-test"), outbox, new AuditLog(fresh.database, new CursorCodec("public-store-test")));
  creators = new CreatorsService(fresh.database, clock, outbox, blacklist, "https://trust.example");
  network = new NetworkService(fresh.database, clock, outbox, creators);
  names = createSearchNamesStore(fresh.database);
  counters = new PublicCounters(
    { creators: creators.store, blacklist: createBlacklistStore(fresh.database), network: createNetworkStore(fresh.database) },
    clock,
  );
});

const lookup = { minSimilarity: 0.3, limit: 48 };

test("handles and public linked usernames are candidates for a near miss; the closest come first", async () => {
  await creators.upsert("shadowbuilds", {});
  await creators.upsert("brightforge", {});
  await creators.link("brightforge", { provider: "github", provider_user_id: "7", provider_username: "ForgeMaster" });
  await names.refreshStatistics(false);

  expect(await names.candidates("shadowbuild", lookup)).toEqual(["shadowbuilds"]);
  expect(await names.candidates("forgemastr", lookup)).toContain("forgemaster");
  expect(await names.candidates("zzzzqqqq", lookup)).toEqual([]);
  // Under three characters there is no trigram to look up.
  expect(await names.candidates("ab", lookup)).toEqual([]);
});

test("a name added after a lookup is a candidate at the next one: this process's write, another process's, never a rolled-back one", async () => {
  await creators.upsert("stormrider", {});
  await names.refreshStatistics(false);
  // The lookups below read the postings of the same trigrams each time.
  expect(await names.candidates("stormridr", lookup)).toEqual(["stormrider"]);

  await creators.upsert("stormriders", {});
  expect((await names.candidates("stormridr", lookup)).toSorted()).toEqual(["stormrider", "stormriders"]);

  // Inside a write that rolls back, the lookup may see the uncommitted name; afterwards it never
  // does, nor does its id take the place of a real name: it would share the most trigrams.
  for (const handle of ["zephyrqa", "zephyra", "zephyrb", "zephyrc"]) await creators.upsert(handle, {});
  await names.refreshStatistics(false);
  const closest = { ...lookup, limit: 1 };
  expect(await names.candidates("zephyrqx", closest)).toEqual(["zephyrqa"]);
  await expect(
    database.write(async () => {
      await creators.upsert("zephyrqx", {});
      await names.candidates("zephyrqx", closest);
      throw new Error("roll back");
    }),
  ).rejects.toThrow("roll back");
  expect(await names.candidates("zephyrqx", closest)).toEqual(["zephyrqa"]);

  if (backend === "sqlite") {
    expect((await names.candidates("stormridr", lookup)).toSorted()).toEqual(["stormrider", "stormriders"]);
    await writeAsAnotherProcess(location, "INSERT INTO search_names (name, public_refs) VALUES ($1, 1)", ["stormridr1"]);
    expect((await names.candidates("stormridr", lookup)).toSorted()).toEqual(["stormrider", "stormriders", "stormridr1"]);
  }
});

test("a name full of FTS5 syntax is found as the literal text it is; a NUL in the lookup finds nothing and breaks nothing", async () => {
  await creators.upsert("owner", {});
  const hostile = ['o"brien"x', "star*gazer", "^caret^top", "near(ab cd)", "col:umn:name", "this and that or not", "(paren)(paren)", "50%_off"];
  for (const [i, name] of hostile.entries()) {
    await creators.link("owner", { provider: "github", provider_user_id: String(i + 1), provider_username: name });
  }
  await names.refreshStatistics(false);
  for (const name of hostile) {
    // One character changed in the middle: a near miss that still shares most trigrams.
    const middle = Math.floor(name.length / 2);
    const nearMiss = `${name.slice(0, middle)}q${name.slice(middle + 1)}`;
    expect(await names.candidates(nearMiss, lookup), nearMiss).toContain(name);
  }
  // Operators alone select nothing: they are characters of text like any other.
  expect(await names.candidates('"*"^*(', lookup)).toEqual([]);
  expect(await names.candidates("a\0b\0c\0d", lookup)).toEqual([]);
  // SQLite reads the trigrams without the NUL; PostgreSQL cannot take the text at all.
  const withNul = await names.candidates('star"\0gazer', lookup);
  if (backend === "sqlite") expect(withNul).toContain("star*gazer");
  else expect(withNul).toEqual([]);
});

test("a privately linked username is never a candidate; it becomes one when linked publicly elsewhere", async () => {
  await creators.upsert("alice", {});
  await creators.upsert("bob", {});
  await creators.link("alice", { provider: "discord", provider_user_id: "80351110224678912", provider_username: "carol_hidden", public: false });
  await names.refreshStatistics(true);
  expect(await names.candidates("carol_hiden", lookup)).toEqual([]);

  await creators.link("bob", { provider: "github", provider_user_id: "9", provider_username: "carol_hidden" });
  await names.refreshStatistics(true);
  expect(await names.candidates("carol_hiden", lookup)).toEqual(["carol_hidden"]);
});

test("the public counters count verified creators, servers, listed entries and completed deals; the cache answers next", async () => {
  expect(await counters.publicStats()).toEqual({ creators_verified: 0, servers_protected: 0, entries_listed: 0, deals_completed: 0, cached: false });

  await creators.upsert("alice", { verification_level: 2 });
  await creators.upsert("bob", { verification_level: 1 });
  await creators.upsert("carol", {});
  await network.registerServer({ platform: "discord", server_id: "123", name: "Builders" }, "key_1");
  await blacklist.add({ provider: "github", provider_user_id: "42", severity: "ban", reason_code: "scam" }, { kind: "cli", id: "test" });
  await blacklist.add({ provider: "github", provider_user_id: "43", severity: "ban", reason_code: "scam", watchlist: true }, { kind: "cli", id: "test" });
  const deal = await network.openDeal({ from: "alice", to: "bob" });
  await network.transition(deal.id, "confirm");
  await network.transition(deal.id, "complete");
  await network.openDeal({ from: "alice", to: "carol" });

  // Served from the cache until the next recount.
  expect((await counters.publicStats()).cached).toBe(true);
  expect(await counters.refresh()).toEqual({ creators_verified: 2, servers_protected: 1, entries_listed: 1, deals_completed: 1 });
  expect(await counters.publicStats()).toEqual({ creators_verified: 2, servers_protected: 1, entries_listed: 1, deals_completed: 1, cached: true });
});

test("vouches a creator received come newest first, with who gave them, paged", async () => {
  await creators.upsert("alice", {});
  await creators.upsert("bob", { display_name: "Bob", verification_level: 1 });
  await creators.upsert("carol", {});
  await network.vouch({ from: "bob", to: "alice", message: "Delivered on time" });
  clock.advance(60_000);
  await network.vouch({ from: "carol", to: "alice" });
  const store = createNetworkStore(database);
  const alice = (await creators.find("alice"))!;

  const all = await store.vouchesReceived(alice.id, 10, 0);
  expect(all.map((v) => [v.handle, v.message])).toEqual([
    ["carol", null],
    ["bob", "Delivered on time"],
  ]);
  expect(all[1]).toMatchObject({ displayName: "Bob", verificationLevel: 1, createdAt: clock.now() - 60_000 });
  expect((await store.vouchesReceived(alice.id, 1, 1)).map((v) => v.handle)).toEqual(["bob"]);
  expect(await store.vouchesReceived((await creators.find("bob"))!.id, 10, 0)).toEqual([]);
});

test("the unfiltered directory reads creators in each order, newest, trust, vouches and deals, ties by id", async () => {
  await creators.upsert("alice", {});
  clock.advance(1_000);
  await creators.upsert("bob", { verification_level: 2 });
  clock.advance(1_000);
  await creators.upsert("carol", {});
  await network.vouch({ from: "alice", to: "carol" });
  const deal = await network.openDeal({ from: "alice", to: "bob" });
  await network.transition(deal.id, "confirm");
  await network.transition(deal.id, "complete");

  const handles = async (order: "newest" | "trust" | "vouches" | "deals", limit = 10, offset = 0) =>
    (await creators.store.creatorsInOrder(order, limit, offset)).map((row) => row.handle);
  const byId = async (...names: string[]) => (await Promise.all(names.map(async (n) => (await creators.find(n))!))).sort((a, b) => (a.id < b.id ? -1 : 1)).map((c) => c.handle);
  expect(await creators.store.countCreators()).toBe(3);
  expect(await handles("newest")).toEqual(["carol", "bob", "alice"]);
  expect((await handles("trust"))[0]).toBe("bob");
  expect(await handles("vouches")).toEqual(["carol", ...(await byId("alice", "bob"))]);
  expect(await handles("deals")).toEqual([...(await byId("alice", "bob")), "carol"]);
  expect(await handles("newest", 1, 1)).toEqual(["bob"]);
});

test("a directory scan filters by text, every word, handle prefix and platform, counts all and pages in order", async () => {
  await creators.upsert("knightdrake", { display_name: "Knight Drake" });
  clock.advance(1_000);
  await creators.upsert("kingpin", { display_name: "Drake Forge" });
  clock.advance(1_000);
  await creators.upsert("bravo", { display_name: "Sun Tide" });
  await creators.link("kingpin", { provider: "roblox", provider_user_id: "5", provider_username: "pinhead" });
  const off: CreatorScan = { text: null, words: null, handlePrefix: null, platform: null };
  const scan = async (filter: Partial<CreatorScan>, limit = 10, offset = 0) => {
    const found = await creators.store.scanCreators({ ...off, ...filter }, "newest", limit, offset);
    return [found.total, found.rows.map((row) => row.handle)];
  };

  expect(await scan({ text: "drake" })).toEqual([2, ["kingpin", "knightdrake"]]);
  expect(await scan({ text: "ht dr" })).toEqual([1, ["knightdrake"]]);
  expect(await scan({ words: ["forge", "drake"] })).toEqual([1, ["kingpin"]]);
  expect(await scan({ handlePrefix: "k" })).toEqual([2, ["kingpin", "knightdrake"]]);
  expect(await scan({ platform: "roblox" })).toEqual([1, ["kingpin"]]);
  expect(await scan({ text: "drake", platform: "discord" })).toEqual([0, []]);
  expect(await scan({ text: "drake" }, 1, 1)).toEqual([2, ["knightdrake"]]);
  expect(await scan({ text: "drake" }, 1, 5)).toEqual([2, []]);
});

test("the candidates sharing the most trigrams rank as counting list by list would: by count, then first seen", async () => {
  const { mostShared } = await import("../../src/modules/public/store.sqlite");
  // The ranking a count per id gives, read in the order the ids are first met.
  const byCounting = (lists: Array<Int32Array | Float64Array>, limit: number) => {
    const counts = new Map<number, number>();
    for (const ids of lists) for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
    const order = [...counts.keys()];
    return order
      .map((id, seen) => ({ id, seen, n: counts.get(id)! }))
      .sort((a, b) => b.n - a.n || a.seen - b.seen)
      .slice(0, limit)
      .map((c) => c.id);
  };
  let seed = 7;
  const random = (below: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % below;
  };
  for (let round = 0; round < 200; round++) {
    const lists = Array.from({ length: 1 + random(6) }, (_, l) => {
      const ids = [...new Set(Array.from({ length: random(60) }, () => random(200) + (l === 2 ? 3_000_000_000 * (round % 2) : 0)))];
      ids.sort((a, b) => a - b);
      return ids.some((id) => id > 2 ** 31 - 1) ? Float64Array.from(ids) : Int32Array.from(ids);
    });
    const limit = 1 + random(50);
    // Counted in arrays by id (small ids), and merged (ids too large to count: 3e9 in odd rounds,
    // or every id when the counting bound is 0).
    expect(mostShared(lists, limit)).toEqual(byCounting(lists, limit));
    expect(mostShared(lists, limit, 0)).toEqual(byCounting(lists, limit));
  }
  expect(mostShared([], 5)).toEqual([]);
  expect(mostShared([new Int32Array(0), new Int32Array(0)], 5)).toEqual([]);
  // The arrays are left at zero after each call: the same lists rank the same way again.
  const again = [Int32Array.from([1, 5, 9]), Int32Array.from([5, 9, 70_000]), Int32Array.from([9])];
  expect(mostShared(again, 10)).toEqual([9, 5, 1, 70_000]);
  expect(mostShared(again, 10)).toEqual([9, 5, 1, 70_000]);
});
