// Export, import into an empty database of the same backend (test/backend.ts), export again: the
// two files are the same, and every creator's Trust Score, computed anew by the import, matches.
// The data is built through the services, as the API builds it.
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ManualClock } from "../../src/clock";
import { CursorCodec } from "../../src/cursor";
import { AccountsService } from "../../src/modules/accounts/service";
import { createAccountsStore } from "../../src/modules/accounts/store";
import { BlacklistService } from "../../src/modules/blacklist/service";
import { CreatorsService } from "../../src/modules/creators/service";
import { NetworkService } from "../../src/modules/network/service";
import { TransferService } from "../../src/modules/transfer/service";
import { Outbox } from "../../src/modules/outbox/service";
import { databasesOfThisFile } from "../backend";
import { AuditLog } from "../../src/modules/audit/service";

const databases = databasesOfThisFile();
const dir = databases.dir;

async function instance(clock: ManualClock) {
  const fresh = await databases.open();
  const { database } = fresh;
  const outbox = new Outbox(database);
  const blacklist = new BlacklistService(database, clock, new CursorCodec("roundtrip-test"), outbox, new AuditLog(database, new CursorCodec("roundtrip-test")));
  const creators = new CreatorsService(database, clock, outbox, blacklist, "https://trust.example");
  const network = new NetworkService(database, clock, outbox, creators);
  const accounts = new AccountsService(createAccountsStore(database), clock, () => {});
  const services = { accounts, blacklist, creators, network };
  const transfer = new TransferService(database, services, clock);
  /** The export as a list of lines. */
  const exported = async () => {
    const lines: string[] = [];
    const count = await transfer.exportAll((line) => {
      lines.push(line);
    });
    expect(count).toBe(lines.length);
    return lines;
  };
  return { database, services, transfer, exported };
}

async function scores(creators: CreatorsService, handles: string[]) {
  const out: Record<string, unknown> = {};
  for (const handle of handles) {
    const { trust_score, trust_band, blacklisted, verification_label } = (await creators.profile(handle)) as any;
    out[handle] = { trust_score, trust_band, blacklisted, verification_label, trust: await creators.trust(handle) };
  }
  return out;
}

test("export, import into an empty database and export again gives the same lines and the same scores", async () => {
  const clock = new ManualClock();
  const source = await instance(clock);
  const { accounts, blacklist, creators, network } = source.services;

  await accounts.createAccount({ name: "partner-one", tier: "pro", daily_quota: 5000 });
  await accounts.createAccount({ name: "plain", tier: "free" });
  const handles = ["alice", "bob", "carol", "dave"];
  await creators.upsert("alice", { display_name: "Alice Builds", verification_level: 3, karma: 12, joined_at: "2025-02-01T00:00:00Z" });
  await creators.upsert("bob", { display_name: "Bob", verification_level: 1 });
  await creators.upsert("carol", { verification_level: 2, avatar_r2_key: "avatars/carol.png" });
  await creators.upsert("dave", { verification_level: 0 });
  await creators.link("alice", { provider: "roblox", provider_user_id: "1001", provider_username: "AliceRBX", public: true, verified_at: "2025-06-01T00:00:00Z" } as any);
  await creators.link("alice", { provider: "discord", provider_user_id: "555000111", public: false } as any);
  await creators.link("bob", { provider: "twitch", provider_user_id: "bobtv", provider_username: "bobtv", public: true } as any);
  await creators.link("dave", { provider: "roblox", provider_user_id: "4004", provider_username: "DaveAlt", public: true } as any);

  await network.vouch({ from: "alice", to: "bob", message: "Shipped on time." });
  await network.vouch({ from: "carol", to: "bob" });
  const done = await network.openDeal({ from: "alice", to: "carol" });
  await network.transition(done.id, "confirm");
  await network.transition(done.id, "complete");
  await network.review({ from: "alice", to: "carol", rating: 5 });
  await network.review({ from: "carol", to: "alice", rating: 4 });
  const declined = await network.openDeal({ from: "bob", to: "dave" });
  await network.transition(declined.id, "decline");
  await network.openDeal({ from: "dave", to: "alice" });
  await network.refer({ referrer: "alice", referred: "dave" });
  await network.registerServer({ platform: "discord", server_id: "900100", name: "Builders Hub" }, "test");
  await network.registerServer({ platform: "roblox", server_id: "77" }, "test");

  // A ban on dave's linked account, a watchlist entry, one overturned and one on a stranger.
  await blacklist.add({ provider: "roblox", provider_user_id: "4004", username: "DaveAlt", severity: "ban", reason_code: "scam", summary: "Took payment, no delivery.", creator: "dave", evidence: "https://evidence.example/1" }, { kind: "cli", id: "test" });
  await blacklist.add({ provider: "discord", provider_user_id: "777888999", severity: "warn", reason_code: "spam", watchlist: true }, { kind: "cli", id: "test" });
  const overturned = await blacklist.add({ provider: "twitch", provider_user_id: "bobtv", severity: "restrict", reason_code: "harassment", appealable: true }, { kind: "cli", id: "test" });
  await blacklist.overturn(overturned.id, "Appeal upheld.", { kind: "cli", id: "test" });
  await blacklist.add({ provider: "discord", provider_user_id: "123123123", severity: "ban", scope: "vertical", vertical: "roblox", reason_code: "fraud", high_risk: true, expires_at: "2027-01-01T00:00:00Z" } as any, { kind: "cli", id: "test" });

  const first = await source.exported();
  const kinds = new Set(first.map((line) => JSON.parse(line).type));
  expect([...kinds].sort()).toEqual(["account", "audit", "connection", "creator", "deal", "entry", "referral", "review", "server", "vouch"]);
  expect(first.some((line) => line.includes('"watchlist":true'))).toBe(true);
  expect(first.some((line) => line.includes('"status":"overturned"'))).toBe(true);
  expect(first.some((line) => line.includes('"public":false'))).toBe(true);
  const sourceScores = await scores(creators, handles);
  expect((sourceScores.dave as any).blacklisted).toBe(true);

  const file = join(dir, "export.jsonl");
  writeFileSync(file, first.join("\n") + "\n");
  const target = await instance(clock);
  expect(await target.transfer.importFile(file)).toMatchObject({ lines: first.length, accounts: 2, creators: 4, connections: 4, deals: 3, reviews: 2, vouches: 2, referrals: 1, servers: 2, entries: 4 });
  const second = await target.exported();
  expect(second).toEqual(first);
  expect(await scores(target.services.creators, handles)).toEqual(sourceScores);
  expect((await target.services.blacklist.check("roblox", "4004")).banned).toBe(true);

  // And back: the copy exports and imports into a third database just the same.
  writeFileSync(file, second.join("\n") + "\n");
  const third = await instance(clock);
  await third.transfer.importFile(file);
  expect(await third.exported()).toEqual(first);
  expect(readFileSync(file, "utf8").split("\n").filter(Boolean)).toEqual(first);
});

test("an import with a bad line writes nothing: the database still exports empty", async () => {
  const target = await instance(new ManualClock());
  const file = join(dir, "bad.jsonl");
  const lines = [
    { type: "creator", handle: "erin", verification_level: 1, joined_at: "2025-01-01T00:00:00Z" },
    { type: "vouch", from: "erin", to: "nobody-here" },
  ];
  writeFileSync(file, lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
  const error = await target.transfer.importFile(file).catch((e) => e);
  expect(error.message).toStartWith("line 2:");
  expect(await target.exported()).toEqual([]);
});

test("an entry whose id is stored already fails the import at its line; a bad line after entries fails at its own", async () => {
  const target = await instance(new ManualClock());
  const entry = (i: number, id?: string) => ({ type: "entry", ...(id ? { id } : {}), provider: "roblox", provider_user_id: String(5_000 + i), severity: "ban", reason_code: "scam_trade" });
  const write = (name: string, lines: unknown[]) => {
    const file = join(dir, name);
    writeFileSync(file, lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
    return file;
  };
  // Entries are written a window at a time: a stored id in the middle of one is named by its line.
  expect(await target.transfer.importFile(write("first.jsonl", [entry(1, "bl_taken"), entry(2)]))).toMatchObject({ entries: 2 });
  const again = await target.transfer.importFile(write("again.jsonl", [entry(3), entry(4), entry(5, "bl_taken"), entry(6)])).catch((e) => e);
  expect(again.message).toMatch(/^line 3: .*already exists/);
  // A malformed line after entries still held back ends the import at that line.
  const broken = await target.transfer.importFile(write("broken.jsonl", [entry(7), entry(8), { type: "entry", provider: "roblox" }])).catch((e) => e);
  expect(broken.message).toStartWith("line 3:");
  // Nothing of either failed file was kept.
  expect((await target.exported()).filter((line) => line.includes('"type":"entry"'))).toHaveLength(2);
});

test("creators and their links share a window: a creator given twice fails at its second line, and nothing is kept", async () => {
  const target = await instance(new ManualClock());
  const creator = (handle: string) => ({ type: "creator", handle, verification_level: 1, joined_at: "2025-01-01T00:00:00Z" });
  const link = (handle: string, id: number) => ({ type: "connection", creator: handle, provider: "roblox", provider_user_id: String(id), provider_username: `rbx${id}`, public: true });
  const file = join(dir, "twice.jsonl");
  const lines = [creator("anna"), link("anna", 71), link("anna", 72), creator("bert"), link("bert", 73), creator("anna"), link("anna", 74)];
  writeFileSync(file, lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
  const error = await target.transfer.importFile(file).catch((e) => e);
  expect(error.message).toBe("line 6: creator 'anna' appears twice");
  expect(await target.exported()).toEqual([]);
  // Without the repeated creator, every link lands with its creator.
  writeFileSync(file, lines.slice(0, 5).map((line) => JSON.stringify(line)).join("\n") + "\n");
  expect(await target.transfer.importFile(file)).toMatchObject({ creators: 2, connections: 3 });
  expect((await target.services.creators.profile("anna")) as any).toMatchObject({ handle: "anna" });
});

test("a stored entry id in a window still landing wins over a bad line read after it; a full window imports whole", async () => {
  const target = await instance(new ManualClock());
  const entry = (i: number, id?: string) => ({ type: "entry", ...(id ? { id } : {}), provider: "roblox", provider_user_id: String(9_000 + i), severity: "warn", reason_code: "spam" });
  const write = (name: string, lines: unknown[]) => {
    const file = join(dir, name);
    writeFileSync(file, lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
    return file;
  };
  // More than a window of entries (PIPELINED_LINES): on PostgreSQL the first window is written
  // while the next is read, and its answers are checked after.
  const many = Array.from({ length: 1_200 }, (_, i) => entry(i));
  expect(await target.transfer.importFile(write("many.jsonl", [...many, entry(1_200, "bl_kept")]))).toMatchObject({ entries: 1_201 });
  // The stored id near the end of the first window, the bad line in the next one.
  const lines = Array.from({ length: 520 }, (_, i) => entry(2_000 + i));
  lines[489] = entry(2_489, "bl_kept");
  const failed = await target.transfer.importFile(write("late-bad.jsonl", [...lines, { type: "entry", provider: "roblox" }])).catch((e) => e);
  expect(failed.message).toMatch(/^line 490: .*already exists/);
  expect((await target.exported()).filter((line) => line.includes('"type":"entry"'))).toHaveLength(1_201);
});

test("a window of creators and links names each failure by its own line: a stored handle or id, a bad link after them", async () => {
  const target = await instance(new ManualClock());
  const creator = (handle: string, extra: Record<string, unknown> = {}) => ({ type: "creator", handle, verification_level: 1, joined_at: "2025-01-01T00:00:00Z", ...extra });
  const link = (handle: string, id: string) => ({ type: "connection", creator: handle, provider: "roblox", provider_user_id: id, provider_username: `rbx${id}`, public: true });
  const write = (name: string, lines: unknown[]) => {
    const file = join(dir, name);
    writeFileSync(file, lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
    return file;
  };
  expect(await target.transfer.importFile(write("stored.jsonl", [creator("stored", { id: "crt_stored" }), link("stored", "81")]))).toMatchObject({ creators: 1 });
  // A handle stored before, inside a window, with a link of another creator after it in the same window.
  const handle = await target.transfer.importFile(write("handle.jsonl", [creator("fresh"), link("fresh", "82"), creator("stored"), link("fresh", "83")])).catch((e) => e);
  expect(handle.message).toBe("line 3: creator 'stored' appears twice");
  // An id stored before under another handle.
  const id = await target.transfer.importFile(write("id.jsonl", [creator("fresh"), creator("other", { id: "crt_stored" }), link("fresh", "84")])).catch((e) => e);
  expect(id.message).toStartWith("line 2:");
  // A stored handle, then a link the import refuses before sending anything: the earlier line wins.
  const bad = await target.transfer.importFile(write("bad.jsonl", [creator("fresh"), creator("stored"), link("fresh", "not-a-number")])).catch((e) => e);
  expect(bad.message).toBe("line 2: creator 'stored' appears twice");
  // A link naming a creator stored before: found, and linked in the window.
  expect(await target.transfer.importFile(write("later.jsonl", [link("stored", "85"), creator("fresh"), link("fresh", "86")]))).toMatchObject({ creators: 1, connections: 2 });
  const lines = await target.exported();
  expect(lines.filter((line) => line.includes('"type":"creator"'))).toHaveLength(2);
  expect(lines.filter((line) => line.includes('"type":"connection"'))).toHaveLength(3);
});

test("a stored handle in a window of creators still landing wins over a bad link read after it", async () => {
  const target = await instance(new ManualClock());
  const creator = (handle: string) => ({ type: "creator", handle, verification_level: 1, joined_at: "2025-01-01T00:00:00Z" });
  const link = (handle: string, id: number | string) => ({ type: "connection", creator: handle, provider: "roblox", provider_user_id: String(id), public: true });
  const file = join(dir, "creators-late-bad.jsonl");
  writeFileSync(file, [creator("kept"), link("kept", 1)].map((line) => JSON.stringify(line)).join("\n") + "\n");
  expect(await target.transfer.importFile(file)).toMatchObject({ creators: 1, connections: 1 });
  // A creator and a link a pair of lines: the stored handle near the end of the first window
  // (PIPELINED_LINES), the bad link in the next one.
  const lines = Array.from({ length: 260 }, (_, i) => [creator(`c${i}`), link(`c${i}`, 100 + i)]).flat();
  lines[488] = creator("kept");
  lines[489] = link("kept", 99);
  writeFileSync(file, [...lines, link("c1", "not-a-number")].map((line) => JSON.stringify(line)).join("\n") + "\n");
  const failed = await target.transfer.importFile(file).catch((e) => e);
  expect(failed.message).toBe("line 489: creator 'kept' appears twice");
  expect((await target.exported()).filter((line) => line.includes('"type":"creator"'))).toHaveLength(1);
});

test("entries an import brings penalise the creators they name, stored before it or brought by it, whichever line comes first", async () => {
  const target = await instance(new ManualClock());
  const creator = (handle: string) => ({ type: "creator", handle, verification_level: 1, joined_at: "2025-01-01T00:00:00Z" });
  const link = (handle: string, id: string) => ({ type: "connection", creator: handle, provider: "roblox", provider_user_id: id, public: true });
  const ban = (id: string) => ({ type: "entry", provider: "roblox", provider_user_id: id, severity: "ban", reason_code: "scam" });
  const write = (name: string, lines: unknown[]) => {
    const file = join(dir, name);
    writeFileSync(file, lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
    return file;
  };
  const blacklisted = async (handle: string) => ((await target.services.creators.profile(handle)) as any).blacklisted;
  // The entry before the creator it names, in one file.
  expect(await target.transfer.importFile(write("entry-first.jsonl", [ban("601"), creator("erin"), link("erin", "601")]))).toMatchObject({ entries: 1 });
  expect(await blacklisted("erin")).toBe(true);
  // A creator stored by an earlier import, named by a later one's entry (beside a creator of its own).
  expect(await target.transfer.importFile(write("first.jsonl", [creator("finn"), link("finn", "602")]))).toMatchObject({ creators: 1 });
  expect(await blacklisted("finn")).toBe(false);
  expect(await target.transfer.importFile(write("later.jsonl", [creator("gwen"), ban("602")]))).toMatchObject({ entries: 1 });
  expect(await blacklisted("finn")).toBe(true);
  expect(await blacklisted("gwen")).toBe(false);
});

test("deals and reviews share windows: each review finds the deal before it, never a deal of a later line", async () => {
  const target = await instance(new ManualClock());
  const creator = (handle: string) => ({ type: "creator", handle, verification_level: 1, joined_at: "2025-01-01T00:00:00Z" });
  const deal = (from: string, to: string, status = "completed", id?: string) => ({ type: "deal", ...(id ? { id } : {}), from, to, status });
  const review = (from: string, to: string, rating = 5) => ({ type: "review", from, to, rating });
  const write = (name: string, lines: unknown[]) => {
    const file = join(dir, name);
    writeFileSync(file, lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
    return file;
  };
  // As the data set has them, over more than a window (PIPELINED_LINES): one to three deals, then a
  // review of one of them, by either of its creators.
  const lines: unknown[] = Array.from({ length: 301 }, (_, i) => creator(`m${i}`));
  for (let i = 0; i < 300; i++) {
    lines.push(deal(`m${i}`, `m${i + 1}`));
    if (i % 3 === 0) lines.push(deal(`m${i + 1}`, `m${i}`, "pending"));
    lines.push(i % 2 ? review(`m${i}`, `m${i + 1}`, 1 + (i % 5)) : review(`m${i + 1}`, `m${i}`, 1 + (i % 5)));
  }
  expect(await target.transfer.importFile(write("network.jsonl", lines))).toMatchObject({ creators: 301, deals: 400, reviews: 300 });
  expect((await target.exported()).filter((line) => line.includes('"type":"review"'))).toHaveLength(300);
  // Received: m150 from m149 (odd i) and from m151 (even i); m0 and m300 from one neighbour each.
  const received = async (handle: string) => ((await target.services.creators.profile(handle)) as { reviews: { count: number } }).reviews.count;
  expect([await received("m0"), await received("m150"), await received("m300")]).toEqual([1, 2, 1]);

  await target.transfer.importFile(write("pair.jsonl", [creator("ash"), creator("birch")]));
  // A second review of a pair whose second deal comes after it: line by line it finds no deal left
  // to review, so the import fails there, even though that deal's line shares its window.
  const early = await target.transfer.importFile(write("early.jsonl", [deal("ash", "birch"), review("ash", "birch"), review("ash", "birch"), deal("ash", "birch")])).catch((e) => e);
  expect(early.message).toMatch(/^line 3: .*already reviewed/);
  // A deal of the window that fails names its own line, after a review held for the window's end.
  const badDeal = await target.transfer.importFile(write("bad-deal.jsonl", [deal("ash", "birch"), review("birch", "ash"), deal("ash", "nobody")])).catch((e) => e);
  expect(badDeal.message).toStartWith("line 3:");
  // A review with no completed deal names its own line, whatever the deals around it.
  const noDeal = await target.transfer.importFile(write("no-deal.jsonl", [deal("ash", "birch", "pending"), review("ash", "birch"), deal("birch", "ash")])).catch((e) => e);
  expect(noDeal.message).toMatch(/^line 2: .*no completed deal/);
  // Nothing of the failed files was kept; with the deals first, both reviews import.
  expect((await target.exported()).filter((line) => line.includes('"type":"deal"'))).toHaveLength(400);
  expect(await target.transfer.importFile(write("late.jsonl", [deal("ash", "birch"), review("ash", "birch"), deal("ash", "birch"), review("ash", "birch")]))).toMatchObject({ deals: 2, reviews: 2 });
  expect(await received("birch")).toBe(2);
});
