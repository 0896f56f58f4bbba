// The sign-in store and service on whichever backend the suite runs on (test/backend.ts): links
// used once and lapsing, sessions expiring and ending, hashes only, the vouches a creator gave
// (the network store's keyset page), and pruning.
import { beforeEach, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock";
import { CursorCodec } from "../../src/cursor";
import type { Database } from "../../src/db/database";
import type { ServiceError } from "../../src/errors";
import { BlacklistService } from "../../src/modules/blacklist/service";
import { CreatorsService } from "../../src/modules/creators/service";
import { NetworkService } from "../../src/modules/network/service";
import { LOGIN_LINK_TTL_MS, SESSION_TTL_MS, SessionsService } from "../../src/modules/sessions/service";
import { Outbox } from "../../src/modules/outbox/service";
import { databasesOfThisFile } from "../backend";
import { AuditLog } from "../../src/modules/audit/service";

const databases = databasesOfThisFile();

let clock: ManualClock;
let database: Database;
let creators: CreatorsService;
let network: NetworkService;
let sessions: SessionsService;

beforeEach(async () => {
  database = (await databases.open()).database;
  clock = new ManualClock();
  const outbox = new Outbox(database);
  const cursors = new CursorCodec("sessions-store-test");
  const blacklist = new BlacklistService(database, clock, cursors, outbox, new AuditLog(database, cursors));
  creators = new CreatorsService(database, clock, outbox, blacklist, "https://trust.example");
  network = new NetworkService(database, clock, outbox, creators);
  sessions = new SessionsService(database, clock, creators, network, cursors, "https://trust.example");
  for (const handle of ["alicemakes", "shadowbuilds", "pixelpete"]) await creators.upsert(handle, {});
});

async function kindOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    return (error as ServiceError).kind;
  }
  return "resolved";
}

const tokenOf = (url: string) => new URL(url).searchParams.get("token")!;

async function rows(table: string): Promise<unknown[]> {
  return database.dialect === "sqlite" ? database.sqlite.query(`SELECT * FROM ${table}`).all() : await database.sql().unsafe(`SELECT * FROM ${table}`);
}

test("a link opens one session, once; the session names its creator", async () => {
  const link = await sessions.loginLink("@AliceMakes");
  expect(link.url).toStartWith("https://trust.example/auth/magic?token=");
  const { session, expiresAt } = await sessions.signIn(tokenOf(link.url));
  expect(expiresAt).toBe(clock.now() + SESSION_TTL_MS);
  expect(await sessions.viewer(session)).toMatchObject({ handle: "alicemakes" });
  expect(await kindOf(sessions.signIn(tokenOf(link.url)))).toBe("unauthorized");
  expect(await kindOf(sessions.loginLink("nobody_here"))).toBe("not_found");
});

test("two uses of one link at the same time open one session", async () => {
  const token = tokenOf((await sessions.loginLink("alicemakes")).url);
  const outcomes = await Promise.allSettled([sessions.signIn(token), sessions.signIn(token), sessions.signIn(token)]);
  expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
  expect(await rows("sessions")).toHaveLength(1);
});

test("links lapse after 15 minutes and sessions after 30 days", async () => {
  const token = tokenOf((await sessions.loginLink("alicemakes")).url);
  clock.advance(LOGIN_LINK_TTL_MS);
  expect(await kindOf(sessions.signIn(token))).toBe("unauthorized");

  const { session } = await sessions.signIn(tokenOf((await sessions.loginLink("alicemakes")).url));
  clock.advance(SESSION_TTL_MS - 1);
  expect(await sessions.viewer(session)).not.toBeNull();
  clock.advance(1);
  expect(await sessions.viewer(session)).toBeNull();
  expect(await sessions.pruneExpired()).toBe(3);
  expect(await rows("sessions")).toHaveLength(0);
  expect(await rows("login_links")).toHaveLength(0);
});

test("signing out ends one session; only hashes are stored", async () => {
  const url = (await sessions.loginLink("alicemakes")).url;
  const { session } = await sessions.signIn(tokenOf(url));
  const dump = JSON.stringify([await rows("sessions"), await rows("login_links")]);
  expect(dump).not.toContain(session);
  expect(dump).not.toContain(tokenOf(url));
  expect(await sessions.signOut(session)).toBe(true);
  expect(await sessions.viewer(session)).toBeNull();
  expect(await sessions.signOut(session)).toBe(false);
  expect(await sessions.signOut(null)).toBe(false);
});

test("vouches given page by offset and by cursor, newest first, with the counts", async () => {
  await network.vouch({ from: "pixelpete", to: "alicemakes" });
  clock.advance(10);
  await network.vouch({ from: "pixelpete", to: "shadowbuilds" });
  await network.vouch({ from: "alicemakes", to: "pixelpete" });
  const viewer = (await sessions.viewer((await sessions.signIn(tokenOf((await sessions.loginLink("pixelpete")).url))).session))!;
  const first = await sessions.vouchesGiven(viewer, { limit: 1 });
  expect(first).toMatchObject({ count: 2, limit: 1, offset: 0 });
  expect(first.vouches.map((v) => v.handle)).toEqual(["shadowbuilds"]);
  const second = await sessions.vouchesGiven(viewer, { limit: 1, cursor: first.next_cursor! });
  expect(second.vouches.map((v) => v.handle)).toEqual(["alicemakes"]);
  expect(second.offset).toBe(1);
  expect(second.vouches[0]!.trustScore).toBe((await creators.find("alicemakes"))!.trustScore);
  expect(second.next_cursor).toBeNull();
  expect((await sessions.vouchesGiven(viewer, { offset: 1 })).vouches.map((v) => v.handle)).toEqual(["alicemakes"]);
});
