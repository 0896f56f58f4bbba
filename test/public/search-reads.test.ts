// The reads behind a public search (public/disclosure.ts), on whichever backend the suite runs on
// (test/backend.ts): a creator's links oldest first, the public links of a username lowest id
// first, and the blacklisted subjects of a username each once, each up to its limit. On SQLite
// they are ordered and made distinct outside the SQL (the store says why).
import { beforeEach, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock";
import { CursorCodec } from "../../src/cursor";
import type { Database } from "../../src/db/database";
import { AuditLog } from "../../src/modules/audit/service";
import { BlacklistService } from "../../src/modules/blacklist/service";
import { createBlacklistStore } from "../../src/modules/blacklist/store";
import { CreatorsService } from "../../src/modules/creators/service";
import { createCreatorsStore } from "../../src/modules/creators/store";
import { Outbox } from "../../src/modules/outbox/service";
import { databasesOfThisFile } from "../backend";

const databases = databasesOfThisFile();
const actor = { kind: "cli", id: "key_1" } as const;

let clock: ManualClock;
let database: Database;
let blacklist: BlacklistService;
let creators: CreatorsService;

beforeEach(async () => {
  database = (await databases.open()).database;
  clock = new ManualClock();
  const outbox = new Outbox(database);
  const audit = new AuditLog(database, new CursorCodec("search-reads-test"));
  blacklist = new BlacklistService(database, clock, new CursorCodec("search-reads-test"), outbox, audit);
  creators = new CreatorsService(database, clock, outbox, blacklist, "https://trust.example");
});

test("a creator's links come oldest first, links made at the same time by id", async () => {
  await creators.upsert("alice", {});
  const start = clock.now();
  const linkAt = async (offsetMs: number, id: string) => {
    clock.set(start + offsetMs);
    await creators.link("alice", { provider: "github", provider_user_id: id, provider_username: `gh${id}` });
  };
  // Made in an order that is neither their time order nor (for the ties) the reverse of it.
  await linkAt(3_000, "1");
  await linkAt(1_000, "2");
  await linkAt(3_000, "3");
  await linkAt(2_000, "4");
  await linkAt(1_000, "5");
  const alice = (await creators.find("alice"))!;
  const links = await createCreatorsStore(database).connectionsOf(alice.id);
  expect(links.map((link) => link.providerUserId)).toEqual(["2", "5", "4", "1", "3"]);
  const times = links.map((link) => link.createdAt);
  expect(times).toEqual([...times].sort((a, b) => a - b));
});

test("a username's public links: any case, never a private one, the lowest ids up to the limit", async () => {
  const made: string[] = [];
  for (let i = 0; i < 7; i++) {
    await creators.upsert(`owner${i}`, {});
    // Every third link is private; the usernames differ only in case.
    const isPublic = i % 3 !== 1;
    await creators.link(`owner${i}`, { provider: "github", provider_user_id: String(900 - i), provider_username: i % 2 ? "SharedName" : "sharedname", public: isPublic });
    if (isPublic) made.push(String(900 - i));
  }
  await creators.upsert("other", {});
  await creators.link("other", { provider: "github", provider_user_id: "1", provider_username: "sharednamex" });
  const store = createCreatorsStore(database);

  const all = await store.publicConnectionsByUsername("sharedname", 50);
  expect(all.map((link) => link.providerUserId)).toEqual(made);
  const ids = all.map((link) => link.id);
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  expect(all.every((link) => link.public)).toBe(true);

  expect((await store.publicConnectionsByUsername("sharedname", 2)).map((link) => link.providerUserId)).toEqual(made.slice(0, 2));
  expect(await store.publicConnectionsByUsername("nobody", 50)).toEqual([]);
  expect(await store.publicConnectionsByUsername("sharedname", 0)).toEqual([]);
});

test("a username's blacklisted subjects: each once, in the order first listed, up to the limit", async () => {
  const add = (id: string, username: string, extra: Record<string, unknown> = {}) =>
    blacklist.add({ provider: "discord", provider_user_id: id, username, severity: "ban", reason_code: "scam_trade", summary: "Took payment and never delivered.", ...extra }, actor);
  await add("101", "Scammer");
  await add("101", "Scammer", { reason_code: "chargeback" }); // the same subject again
  await add("102", "scammer");
  await add("101", "SCAMMER"); // the same account under another spelling: a row of its own
  await add("103", "Scammer", { expires_at: new Date(clock.now() + 60_000).toISOString() });
  const gone = await add("104", "Scammer");
  await blacklist.overturn(gone.id, null, actor);
  await add("105", "Scammer");
  await add("106", "Scammer2");
  const store = createBlacklistStore(database);
  const names = async (limit: number, now = clock.now()) =>
    (await store.subjectsByUsername("scammer", now, limit)).map((row) => `${row.providerUserId}:${row.username}`);

  const listed = ["101:Scammer", "102:scammer", "101:SCAMMER", "103:Scammer", "105:Scammer"];
  // SQLite gives them in the order first listed; PostgreSQL's DISTINCT promises no order.
  const inOrder = (got: string[]) => (database.dialect === "sqlite" ? got : [...got].sort((a, b) => listed.indexOf(a) - listed.indexOf(b)));
  expect(inOrder(await names(50))).toEqual(listed);
  // The limit counts subjects, not rows: the repeated row does not use up a place.
  for (const limit of [1, 2, 3, 4]) {
    const some = await names(limit);
    expect(some).toHaveLength(limit);
    expect(new Set(some).size).toBe(limit);
    expect(some.every((name) => listed.includes(name))).toBe(true);
    if (database.dialect === "sqlite") expect(some).toEqual(listed.slice(0, limit));
  }
  // Past the expiry, the expiring entry is no longer a subject.
  expect(inOrder(await names(50, clock.now() + 120_000))).toEqual(listed.filter((name) => name !== "103:Scammer"));
  expect(await store.subjectsByUsername("nobody", clock.now(), 50)).toEqual([]);
});

test("an account's name among its active entries: the newest that names it, else the newest", async () => {
  const at = (daysAgo: number) => new Date(clock.now() - daysAgo * 86_400_000).toISOString();
  const add = (id: string, daysAgo: number, username?: string, extra: Record<string, unknown> = {}) =>
    blacklist.add({ provider: "discord", provider_user_id: id, ...(username ? { username } : {}), severity: "ban", reason_code: "scam_trade", issued_at: at(daysAgo), ...extra }, actor);
  // 201: a newer entry without a name, older ones with names.
  await add("201", 9, "OldName");
  await add("201", 5, "MidName");
  await add("201", 1);
  const gone = await add("201", 0, "Overturned");
  await blacklist.overturn(gone.id, null, actor);
  await add("201", 0.5, "Expiring", { expires_at: new Date(clock.now() + 60_000).toISOString() });
  // 202: no name at all. 204: the newer entry without a name listed before the older one with it.
  await add("202", 3);
  await add("202", 2);
  await add("204", 1);
  await add("204", 4, "Named");
  const store = createBlacklistStore(database);
  const nameOf = async (id: string, now = clock.now()) => (await store.subjectName("discord", id, now))?.username;

  expect(await nameOf("201")).toBe("Expiring");
  expect(await nameOf("201", clock.now() + 120_000)).toBe("MidName");
  expect(await store.subjectName("discord", "202", clock.now())).toEqual({ provider: "discord", providerUserId: "202", username: null });
  expect(await nameOf("204")).toBe("Named");
  expect(await store.subjectName("discord", "203", clock.now())).toBeNull();
});
