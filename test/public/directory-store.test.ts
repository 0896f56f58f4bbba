// The public module's reads through the owning stores on whichever backend the suite runs on
// (test/backend.ts): the creators store's directory-index reads and public links, the blacklist
// store's entry subjects, the keyless accounts built from them, the directory index and the
// referral leaderboard, each kept fresh when a second handle on the same database (another process
// on SQLite, another instance on PostgreSQL) writes.
import { beforeEach, expect, test } from "bun:test";
import { iso, ManualClock } from "../../src/clock";
import { CursorCodec } from "../../src/cursor";
import type { Database } from "../../src/db/database";
import { BlacklistService } from "../../src/modules/blacklist/service";
import { type BlacklistStore, createBlacklistStore } from "../../src/modules/blacklist/store";
import { CreatorsService } from "../../src/modules/creators/service";
import { NetworkService } from "../../src/modules/network/service";
import { PublicAccounts } from "../../src/modules/public/disclosure";
import { PublicService } from "../../src/modules/public/service";
import { Outbox } from "../../src/modules/outbox/service";
import { createRegion } from "../../src/server/shared-memory";
import { SharedDirectorySnapshots } from "../../src/server/shared-snapshots";
import { databasesOfThisFile, eventually } from "../backend";
import { AuditLog } from "../../src/modules/audit/service";

const databases = databasesOfThisFile();

/** The services one process or instance runs on its handle of the database. */
function servicesOn(database: Database, clock: ManualClock) {
  const outbox = new Outbox(database);
  const blacklist = new BlacklistService(database, clock, new CursorCodec("directory-store-test"), outbox, new AuditLog(database, new CursorCodec("directory-store-test")));
  const creators = new CreatorsService(database, clock, outbox, blacklist, "https://trust.example");
  const network = new NetworkService(database, clock, outbox, creators);
  const publicService = new PublicService(database, clock, blacklist, creators);
  return { database, blacklist, creators, network, public: publicService };
}

let clock: ManualClock;
let a: ReturnType<typeof servicesOn>;
let b: ReturnType<typeof servicesOn>;
let entries: BlacklistStore;

beforeEach(async () => {
  clock = new ManualClock();
  const first = await databases.open();
  const second = await databases.open(first.location);
  a = servicesOn(first.database, clock);
  b = servicesOn(second.database, clock);
  entries = createBlacklistStore(first.database);
});

/** SQLite learns of another handle's commit when it checks (the server checks at the start of every request). */
const seenByA = (expectation: () => Promise<void>) =>
  eventually(async () => {
    a.database.changes.check();
    await expectation();
  });

test("the directory index's reads: rows in rowid order past a rowid, rows by id, rowids by handle prefix, creators by rowid", async () => {
  for (const handle of ["ab_c", "abxc", "abd", "zed"]) {
    await a.creators.upsert(handle, {});
    clock.advance(1_000);
  }
  const store = a.creators.store;
  const all = await store.indexRowsAfter(0, 10);
  expect(all.map((row) => row.id)).toEqual(await Promise.all(["ab_c", "abxc", "abd", "zed"].map(async (h) => (await a.creators.find(h))!.id)));
  const rowids = all.map((row) => row.rowid);
  expect(rowids).toEqual(rowids.toSorted((x, y) => x - y));
  expect(new Set(rowids).size).toBe(4);
  expect(all[0]).toMatchObject({ searchText: "ab_c", trustScore: expect.any(Number), vouchCount: 0, dealCount: 0, platforms: "" });
  expect(typeof all[0]!.createdAt).toBe("number");
  // In slices: past the second row, one at a time.
  expect((await store.indexRowsAfter(rowids[1]!, 1)).map((row) => row.rowid)).toEqual([rowids[2]!]);
  expect(await store.indexRowsAfter(rowids[3]!, 10)).toEqual([]);

  expect((await store.indexRowsByIds([all[3]!.id, all[1]!.id, "crt_unknown"])).map((row) => row.rowid).sort()).toEqual([rowids[1], rowids[3]].sort());
  expect(await store.indexRowsByIds([])).toEqual([]);

  const prefix = async (p: string) => (await store.rowidsByHandlePrefix(p)).sort((x, y) => x - y);
  expect(await prefix("ab")).toEqual(rowids.slice(0, 3));
  // `_` and `%` are characters of the handle, not wildcards.
  expect(await prefix("ab_")).toEqual([rowids[0]]);
  expect(await prefix("a%")).toEqual([]);
  expect(await prefix("q")).toEqual([]);

  const byRowid = await store.creatorsByRowids([rowids[3]!, rowids[0]!, 999_999]);
  expect(byRowid.map((row) => [row.rowid, row.handle]).sort()).toEqual([
    [rowids[0], "ab_c"],
    [rowids[3], "zed"],
  ].sort());
  expect(await store.creatorsByRowids([])).toEqual([]);
  // The rowid a creator is read with is the one the index keys it by.
  expect((await a.creators.find("zed"))!.rowid).toBe(rowids[3]!);
});

test("public connections by username: without case, public ones only, in id order, limited", async () => {
  await a.creators.upsert("alice", {});
  await a.creators.upsert("bob", {});
  await a.creators.link("alice", { provider: "github", provider_user_id: "1", provider_username: "Shade" });
  await a.creators.link("bob", { provider: "discord", provider_user_id: "80351110224678912", provider_username: "SHADE", public: false });
  await a.creators.link("bob", { provider: "roblox", provider_user_id: "3", provider_username: "shade" });

  const found = await a.creators.store.publicConnectionsByUsername("shade", 10);
  expect(found.map((c) => [c.provider, c.providerUserId, c.public])).toEqual([
    ["github", "1", true],
    ["roblox", "3", true],
  ]);
  expect((await a.creators.store.publicConnectionsByUsername("shade", 1)).map((c) => c.provider)).toEqual(["github"]);
  expect(await a.creators.store.publicConnectionsByUsername("nobody", 10)).toEqual([]);
});

test("entry subjects by username and an account's username: active and unexpired only, a named entry first", async () => {
  await a.blacklist.add({ provider: "github", provider_user_id: "42", severity: "ban", reason_code: "scam", username: "Grifter" }, { kind: "cli", id: "test" });
  await a.blacklist.add({ provider: "github", provider_user_id: "42", severity: "warn", reason_code: "spam" }, { kind: "cli", id: "test" });
  await a.blacklist.add({ provider: "roblox", provider_user_id: "7", severity: "ban", reason_code: "scam", username: "grifter" }, { kind: "cli", id: "test" });
  const lapsing = iso(clock.now() + 60_000);
  await a.blacklist.add({ provider: "discord", provider_user_id: "80351110224678913", severity: "ban", reason_code: "scam", username: "GRIFTER", expires_at: lapsing }, { kind: "cli", id: "test" });
  const overturned = await a.blacklist.add({ provider: "roblox", provider_user_id: "8", severity: "ban", reason_code: "scam", username: "grifter" }, { kind: "cli", id: "test" });
  await a.blacklist.overturn(overturned.id, "mistaken", { kind: "cli", id: "test" });

  const subjects = async (now: number) =>
    (await entries.subjectsByUsername("grifter", now, 10)).map((s) => `${s.provider}:${s.providerUserId}:${s.username}`).sort();
  expect(await subjects(clock.now())).toEqual(["discord:80351110224678913:GRIFTER", "github:42:Grifter", "roblox:7:grifter"]);
  expect(await subjects(clock.now() + 120_000)).toEqual(["github:42:Grifter", "roblox:7:grifter"]);
  expect(await entries.subjectsByUsername("grifter", clock.now(), 1)).toHaveLength(1);

  expect(await entries.subjectName("github", "42", clock.now())).toEqual({ provider: "github", providerUserId: "42", username: "Grifter" });
  expect(await entries.subjectName("roblox", "8", clock.now())).toBeNull();
  expect(await entries.subjectName("discord", "80351110224678913", clock.now() + 120_000)).toBeNull();
});

test("keyless accounts: a creator's private link never shows; only public links resolve and list", async () => {
  await a.creators.upsert("alice", {});
  await a.creators.link("alice", { provider: "github", provider_user_id: "11", provider_username: "alice_gh" });
  await a.creators.link("alice", { provider: "discord", provider_user_id: "80351110224678914", provider_username: "alice", public: false });
  await a.blacklist.add({ provider: "discord", provider_user_id: "80351110224678914", severity: "ban", reason_code: "scam", username: "alice" }, { kind: "cli", id: "test" });
  const accounts = new PublicAccounts({ creators: a.creators.store, blacklist: entries }, a.blacklist);
  const alice = (await a.creators.find("alice"))!;

  const hits = await accounts.hits("alice", alice, clock.now());
  expect(hits.map((h) => [h.platform, h.id])).toEqual([
    ["github", "11"],
    ["trustlist", null],
  ]);
  expect(hits[1]).toMatchObject({ username: "alice", banned: true, source: "creator" });
  // The private account's own id names it: the query says it, so it shows, unlinked.
  expect((await accounts.hits("80351110224678914", null, clock.now())).map((h) => [h.platform, h.banned])).toEqual([["discord", true]]);

  expect((await accounts.linkedAccounts(alice.id)).map((l) => l.provider)).toEqual(["github"]);
  expect(await accounts.creatorIdOf("github", "11", undefined)).toBe(alice.id);
  expect(await accounts.creatorIdOf(undefined, undefined, "alice_gh")).toBe(alice.id);
  expect(await accounts.creatorIdOf("discord", "80351110224678914", undefined)).toBeNull();
  expect(await accounts.creatorIdOf(undefined, undefined, "alice")).toBeNull();
});

test("the directory index answers fuzzy, prefix and platform queries, and sees the other handle's writes from the next query", async () => {
  await a.creators.upsert("knightdrake", { display_name: "Knight Drake" });
  clock.advance(1_000);
  await a.creators.upsert("kingpin", { display_name: "Drake Forge" });
  clock.advance(1_000);
  await a.creators.upsert("bravo", {});
  await a.creators.link("kingpin", { provider: "roblox", provider_user_id: "5", provider_username: "pinhead" });
  await a.public.warmDirectory();
  const handles = async (options: Parameters<PublicService["directory"]>[0]) => {
    const page = await a.public.directory(options);
    return [page.total, page.items.map((item) => item.handle)];
  };

  expect(await handles({ q: "drake" })).toEqual([2, ["kingpin", "knightdrake"]]);
  expect(await handles({ q: "forge drake" })).toEqual([1, ["kingpin"]]);
  expect(await handles({ q: "k" })).toEqual([2, ["kingpin", "knightdrake"]]);
  expect(await handles({ q: "k", platform: "roblox" })).toEqual([1, ["kingpin"]]);
  expect(await handles({ q: "pinhead" })).toEqual([1, ["kingpin"]]);
  expect(await handles({})).toEqual([3, ["bravo", "kingpin", "knightdrake"]]);

  // This handle's own write shows at once.
  await a.creators.upsert("bravo", { display_name: "Drake Bravo" });
  expect(await handles({ q: "drake", sort: "trust" })).toEqual([3, expect.arrayContaining(["bravo", "kingpin", "knightdrake"])]);

  // The other handle creates a creator and renames one: seen from the next query.
  clock.advance(1_000);
  await b.creators.upsert("drakeling", {});
  await b.creators.upsert("kingpin", { display_name: "Pin Forge" });
  await seenByA(async () => {
    expect(await handles({ q: "drake" })).toEqual([3, ["drakeling", "bravo", "knightdrake"]]);
    expect(await handles({ q: "dr" })).toEqual([1, ["drakeling"]]);
  });
  // And a link the other handle adds lists its creator on that platform.
  await b.creators.link("bravo", { provider: "github", provider_user_id: "77", provider_username: "bravo_gh" });
  await seenByA(async () => {
    expect(await handles({ platform: "github" })).toEqual([1, ["bravo"]]);
  });
});

test("a page the index answers lists each creator as the unfiltered list read from the database does, after this handle's writes and the other's", async () => {
  // Every creator has a public roblox account: the platform filter (answered by the index) and the
  // unfiltered list (read from the database in the sort's order) list the same creators.
  const made = [
    ["alpha", { display_name: "Alpha Prime", verification_level: 2, karma: 120, avatar_r2_key: "avatars/a.png" }],
    ["bravo", { display_name: null, verification_level: 0, karma: -5, avatar_r2_key: null }],
    ["charlie", { display_name: "Charlie 🚀 Ünïcode", verification_level: 1, karma: 1_000_000 }],
    ["delta", {}],
  ] as const;
  for (const [i, [handle, fields]] of made.entries()) {
    await a.creators.upsert(handle, fields);
    await a.creators.link(handle, { provider: "roblox", provider_user_id: String(100 + i), provider_username: `${handle}_rbx` });
    clock.advance(1_000);
  }
  await a.public.warmDirectory();
  const same = async (on: typeof a) => {
    for (const sort of ["newest", "trust", "vouches", "deals"] as const) {
      const fromIndex = await on.public.directory({ platform: "roblox", sort });
      const fromDatabase = await on.public.directory({ sort });
      expect(fromIndex.items).toEqual(fromDatabase.items);
      expect(fromIndex.items).toHaveLength(made.length);
    }
  };
  await same(a);
  // This handle changes a creator at a time (each re-read beside the snapshot), then two at once
  // (with four creators, that rebuilds it); the other blacklists one creator and renames another.
  await a.creators.upsert("bravo", { display_name: "Bravo Now", verification_level: 3, karma: 7, avatar_r2_key: "avatars/b.png" });
  await same(a);
  await a.creators.upsert("alpha", { display_name: null, avatar_r2_key: null });
  await same(a);
  await a.creators.upsert("alpha", { display_name: "Alpha Again", karma: 0 });
  await a.creators.upsert("delta", { verification_level: 2 });
  await same(a);
  await b.blacklist.add({ provider: "roblox", provider_user_id: "102", severity: "ban", reason_code: "scam" }, { kind: "cli", id: "test" });
  await b.creators.upsert("delta", { display_name: "Delta Renamed", karma: 3 });
  await seenByA(async () => {
    const charlie = (await a.public.directory({ platform: "roblox", q: "charlie" })).items[0]!;
    expect(charlie.blacklisted).toBe(true);
    expect((await a.public.directory({ platform: "roblox", q: "delta" })).items[0]!.display_name).toBe("Delta Renamed");
  });
  await same(a);
  // The other handle's index, built from the rows now.
  await same(b);
});

test("a query while this handle's write is still open re-reads that write's creators once it commits, not before", async () => {
  await a.creators.upsert("kingpin", { display_name: "Drake Forge" });
  await a.creators.upsert("knightdrake", { display_name: "Knight Drake" });
  await a.public.warmDirectory();
  const handles = async (query: string) => (await a.public.directory({ q: query })).items.map((item) => item.handle);
  expect(await handles("drake")).toEqual(["kingpin", "knightdrake"]);

  // The rename is written and its transaction held open while the directory answers a query.
  let commit!: () => void;
  const held = new Promise<void>((resolve) => (commit = resolve));
  let written!: () => void;
  const renamed = new Promise<void>((resolve) => (written = resolve));
  const write = a.database.write(async () => {
    await a.creators.upsert("kingpin", { display_name: "Pin Forge" });
    written();
    await held;
  });
  await renamed;
  // PostgreSQL answers from the committed state (another connection); SQLite's one connection sees the open write.
  const during = await handles("drake");
  expect(during.includes("knightdrake")).toBe(true);
  commit();
  await write;
  expect(await handles("drake")).toEqual(["knightdrake"]);
  expect(await handles("forge")).toEqual(["kingpin"]);
});

test("handles sharing directory snapshots (the workers of one serve): one builds, the other maps it, and each sees the other's writes", async () => {
  const shared = createRegion();
  try {
    a.public.shareDirectoryWith(new SharedDirectorySnapshots(shared.region));
    b.public.shareDirectoryWith(new SharedDirectorySnapshots(shared.region));
    for (const [handle, name] of [["knightdrake", "Knight Drake"], ["kingpin", "Drake Forge"], ["bravo", "Bravo"]] as const) {
      await a.creators.upsert(handle, { display_name: name });
      clock.advance(1_000);
    }
    const handles = async (on: typeof a, options: Parameters<PublicService["directory"]>[0]) => {
      const page = await on.public.directory(options);
      return [page.total, page.items.map((item) => item.handle)];
    };
    await a.public.warmDirectory();
    const published = shared.region.directorySnapshot;
    expect(published.pid).toBe(process.pid);
    // The other handle finds the snapshot of the same state and maps it instead of making its own.
    await b.public.warmDirectory();
    expect(shared.region.directorySnapshot).toEqual(published);
    for (const on of [a, b]) {
      expect(await handles(on, { q: "drake" })).toEqual([2, ["kingpin", "knightdrake"]]);
      expect(await handles(on, { q: "k", sort: "trust" })).toEqual([2, ["knightdrake", "kingpin"]]);
      expect(await handles(on, {})).toEqual([3, ["bravo", "kingpin", "knightdrake"]]);
    }
    // A write through b: b answers with it at once, a from its next query; neither changes what the other reads.
    await b.creators.upsert("bravo", { display_name: "Drake Bravo" });
    clock.advance(1_000);
    await b.creators.upsert("drakeling", {});
    expect(await handles(b, { q: "drake" })).toEqual([4, ["drakeling", "bravo", "kingpin", "knightdrake"]]);
    await seenByA(async () => {
      expect(await handles(a, { q: "drake" })).toEqual([4, ["drakeling", "bravo", "kingpin", "knightdrake"]]);
    });
    await a.creators.upsert("kingpin", { display_name: "Pin Forge" });
    expect(await handles(a, { q: "drake" })).toEqual([3, ["drakeling", "bravo", "knightdrake"]]);
    await eventually(async () => {
      b.database.changes.check();
      expect(await handles(b, { q: "drake" })).toEqual([3, ["drakeling", "bravo", "knightdrake"]]);
      expect(await handles(b, { q: "forge" })).toEqual([1, ["kingpin"]]);
    });
  } finally {
    shared.close();
  }
});

test("the referral leaderboard counts every referral, concurrent ones and the other handle's included, from the next call", async () => {
  for (const handle of ["alice", "bob", "r1", "r2", "r3", "r4", "r5", "r6"]) await a.creators.upsert(handle, {});
  expect((await a.public.leaderboard("all")).leaders).toEqual([]);

  await a.network.refer({ referrer: "alice", referred: "r1" });
  expect((await a.public.leaderboard("all")).leaders).toEqual([{ rank: 1, handle: "alice", count: 1, badge: null }]);

  // Both handles write at once; every referral lands, and each is counted once.
  await Promise.all([
    a.network.refer({ referrer: "alice", referred: "r2" }),
    b.network.refer({ referrer: "bob", referred: "r3" }),
    a.network.refer({ referrer: "bob", referred: "r4" }),
    b.network.refer({ referrer: "alice", referred: "r5" }),
    b.network.refer({ referrer: "bob", referred: "r6" }),
  ]);
  const leaders = (await a.public.leaderboard("all")).leaders.map((l) => [l.rank, l.handle, l.count]);
  expect(leaders).toEqual([
    [1, "alice", 3],
    [1, "bob", 3],
  ]);
  expect((await a.public.leaderboard("month")).leaders.map((l) => l.count)).toEqual([3, 3]);
});
