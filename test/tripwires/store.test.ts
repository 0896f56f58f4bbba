// The tripwires store and service on whichever backend the suite runs on (test/backend.ts): wires
// armed and listed per owner, trips counted by the transaction of the change that caused them
// (a ban, a score drop, a new public link), and the owner's Discord alert queued in the webhooks'
// deliveries by that same transaction. The blacklist, creators, network and webhooks services
// are the real ones on the same database.
import { beforeEach, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock";
import { CursorCodec } from "../../src/cursor";
import type { Database } from "../../src/db/database";
import { BlacklistService } from "../../src/modules/blacklist/service";
import { CreatorsService } from "../../src/modules/creators/service";
import { NetworkService } from "../../src/modules/network/service";
import type { Viewer } from "../../src/modules/sessions/service";
import { TripwiresService } from "../../src/modules/tripwires/service";
import { WebhooksService } from "../../src/modules/webhooks/service";
import { Outbox } from "../../src/modules/outbox/service";
import { databasesOfThisFile } from "../backend";
import { AuditLog } from "../../src/modules/audit/service";

const databases = databasesOfThisFile();

let database: Database;
let clock: ManualClock;
let blacklist: BlacklistService;
let creators: CreatorsService;
let network: NetworkService;
let tripwires: TripwiresService;
let alice: Viewer;
let bob: Viewer;

/** Never contacted: these tests read the queued deliveries, not a receiver (tripwires.test.ts has one). */
const DISCORD_URL = "http://127.0.0.1:9/api/webhooks/123456789012345678/alerts-token";

beforeEach(async () => {
  database = (await databases.open()).database;
  clock = new ManualClock();
  const cursors = new CursorCodec("tripwires-store-test");
  const outbox = new Outbox(database);
  blacklist = new BlacklistService(database, clock, cursors, outbox, new AuditLog(database, cursors));
  creators = new CreatorsService(database, clock, outbox, blacklist, "https://trust.example");
  network = new NetworkService(database, clock, outbox, creators);
  // allowPrivate: a loopback URL stands for Discord's; the guard's refusals are tested over HTTP.
  const webhooks = new WebhooksService(database, clock, cursors, { policy: { allowPrivate: true }, retryDelaysMs: [1, 1, 1, 1, 1, 1, 1] });
  tripwires = new TripwiresService(database, clock, creators, blacklist, webhooks);
  for (const handle of ["alicemakes", "bobtrades", "shadowbuilds", "pixelpete"]) await creators.upsert(handle, {});
  const viewer = async (handle: string) => {
    const row = (await creators.find(handle))!;
    return { creatorId: row.id, handle: row.handle, displayName: null };
  };
  alice = await viewer("alicemakes");
  bob = await viewer("bobtrades");
});

async function discordMessages(): Promise<string[]> {
  const rows =
    database.dialect === "sqlite"
      ? database.sqlite.query<{ payload: string }, []>("SELECT payload FROM webhook_deliveries WHERE type = 'discord.message' ORDER BY id").all()
      : await database.sql()`SELECT payload FROM webhook_deliveries WHERE type = 'discord.message' ORDER BY id`;
  return rows.map((r: { payload: string }) => JSON.parse(r.payload).content);
}

async function trips(viewer: Viewer, who: string): Promise<number> {
  return (await tripwires.list(viewer)).tripwires.find((w) => w.who === who)!.trips;
}

test("wires belong to their owner; deleting another owner's wire is not found", async () => {
  const wire = await tripwires.create(alice, { who: "@shadowbuilds" });
  await tripwires.create(alice, { who: "80351110224678912", triggers: ["blacklisted"] });
  expect((await tripwires.list(alice)).stats).toEqual({ armed: 2, tripped_total: 0 });
  expect((await tripwires.list(bob)).tripwires).toEqual([]);
  await expect(tripwires.delete(bob, wire.id)).rejects.toMatchObject({ kind: "not_found" });
  await expect(tripwires.create(alice, { who: "shadowbuilds" })).rejects.toMatchObject({ kind: "conflict" });
  expect((await tripwires.delete(alice, wire.id)).id).toBe(wire.id);
  expect((await tripwires.list(alice)).stats.armed).toBe(1);
});

test("a ban trips the Discord-id and handle wires and queues the owner's alerts in the same transaction", async () => {
  await tripwires.setPreferences(alice, { discord_webhook_url: DISCORD_URL });
  await tripwires.create(alice, { who: "80351110224678912" });
  await tripwires.create(alice, { who: "@shadowbuilds", triggers: ["blacklisted"] });
  await tripwires.create(bob, { who: "@shadowbuilds", triggers: ["new_connection"] });
  await creators.link("shadowbuilds", { provider: "discord", provider_user_id: "80351110224678912" });
  expect(await trips(alice, "80351110224678912")).toBe(1); // new_connection
  expect(await trips(bob, "@shadowbuilds")).toBe(1);
  await blacklist.add({ provider: "discord", provider_user_id: "80351110224678912", severity: "ban", reason_code: "scam_trade" } as never, { kind: "cli", id: "test" });
  // Two events for the Discord-id wire: the ban on the account, and the score drop of the creator
  // it is publicly linked to. The handle wire matches the ban and the drop of one change: one trip.
  expect(await trips(alice, "80351110224678912")).toBe(3);
  expect(await trips(alice, "@shadowbuilds")).toBe(1);
  expect(await trips(bob, "@shadowbuilds")).toBe(1);
  expect((await discordMessages()).sort()).toEqual(
    [
      "Tripwire: Discord account 80351110224678912 was linked to `@shadowbuilds`.",
      "Tripwire: Discord account 80351110224678912 was blacklisted (scam_trade).",
      "Tripwire: `@shadowbuilds` was blacklisted.",
      "Tripwire: the Trust Score of `@shadowbuilds`, who linked Discord account 80351110224678912, dropped from 100 to 0.",
    ].sort(),
  );
});

test("a score drop trips trust_drop; a rise does not; watchers of other handles see nothing", async () => {
  await tripwires.create(alice, { who: "@shadowbuilds", triggers: ["trust_drop"] });
  await tripwires.create(alice, { who: "@pixelpete" });
  await network.vouch({ from: "pixelpete", to: "shadowbuilds" });
  expect(await trips(alice, "@shadowbuilds")).toBe(0);
  await blacklist.add({ provider: "roblox", provider_user_id: "1234567", severity: "warn", reason_code: "spam", creator: "shadowbuilds" } as never, { kind: "cli", id: "test" });
  expect(await trips(alice, "@shadowbuilds")).toBe(1);
  expect(await trips(alice, "@pixelpete")).toBe(0);
  expect(await discordMessages()).toEqual([]);
});

test("a change that rolls back counts no trip", async () => {
  await tripwires.create(alice, { who: "@pixelpete", triggers: ["new_connection"] });
  await tripwires.setPreferences(alice, { discord_webhook_url: DISCORD_URL });
  const failing = creators.store.transaction(async () => {
    await creators.link("pixelpete", { provider: "github", provider_user_id: "pixelpete" });
    throw new Error("rolled back");
  });
  await expect(failing).rejects.toThrow("rolled back");
  expect(await trips(alice, "@pixelpete")).toBe(0);
  expect(await discordMessages()).toEqual([]);
});
