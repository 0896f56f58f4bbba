// Real instances on loopback for the federation tests: each a served app on its own database, one
// clock shared by all (so an entry's expiry means the same moment everywhere), an admin key each.
import { afterEach, beforeEach, expect } from "bun:test";
import { ManualClock } from "../../src/clock";
import { createTestApp, type TestApp } from "../helpers";

export interface Instance extends TestApp {
  admin: string;
  writer: string;
  /** The instance's base URL on loopback. */
  url: string;
}

/** A served instance; `dir` keeps its database when closed, so it can be opened again (a restart). */
export async function instance(clock: ManualClock, dir?: string, keys?: { admin: string; writer: string }): Promise<Instance> {
  const app = await createTestApp({ clock, http: true, dir });
  const admin = keys?.admin ?? (await app.account({ scope: "admin", burst: 10_000 })).key;
  const writer = keys?.writer ?? (await app.account({ scope: "write", burst: 10_000 })).key;
  return Object.assign(app, { admin, writer, url: app.origin });
}

export const sharedClock = () => new ManualClock(Date.parse("2026-11-20T10:00:00.000Z"));

/** Two fresh instances on one clock for each test of the file, handed to `take`; closed after it. */
export function eachTestTwoInstances(take: (a: Instance, b: Instance) => void, opened: () => Instance[] = () => []) {
  let pair: Instance[] = [];
  beforeEach(async () => {
    const clock = sharedClock();
    pair = [await instance(clock), await instance(clock)];
    take(pair[0]!, pair[1]!);
  });
  afterEach(async () => {
    await Promise.all([...pair, ...opened()].map((one) => one.close()));
  });
}

/** A read key on `publisher` of an account opened for following. */
export async function followerKey(publisher: Instance): Promise<string> {
  const { accountId, key } = await publisher.account({ scope: "read", burst: 10_000 });
  const opened = await publisher.json("PATCH", `/v1/admin/accounts/${accountId}`, { key: publisher.admin, body: { federation: true } });
  expect(opened.status, JSON.stringify(opened.body)).toBe(200);
  return key;
}

/** `follower` follows `publisher` as `name`, with the source options given. */
export async function follow(follower: Instance, publisher: Instance, name: string, options: Record<string, unknown> = {}) {
  const key = await followerKey(publisher);
  const res = await follower.json("POST", "/v1/admin/sources", { key: follower.admin, body: { name, url: publisher.url, key, ...options } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export async function sync(follower: Instance, name: string) {
  const res = await follower.json("POST", `/v1/admin/sources/${name}/sync`, { key: follower.admin });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { name: string; applied: number; cursor: string | null; has_more: boolean; error: string | null };
}

let nextId = 100_000_000_000_000;
/** A new Discord id (a snowflake's 17 digits) no other test uses. */
export const discordId = () => `80${nextId++}`;

export async function addEntry(on: Instance, fields: Record<string, unknown> = {}) {
  const res = await on.json("POST", "/v1/partner/blacklist", {
    key: on.writer,
    body: { provider: "discord", provider_user_id: discordId(), severity: "ban", reason_code: "scam_trade", summary: "Took payment, never delivered.", ...fields },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export async function overturn(on: Instance, id: string) {
  const res = await on.json("POST", `/v1/partner/blacklist/${id}/overturn`, { key: on.writer, body: { reason: "mistake" } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** Active entries `follower` holds from `source`, by the source's id for each. */
export async function held(follower: Instance, source: string) {
  const rows = await follower.rows<{ upstream_id: string; severity: string; watchlist: number | boolean; provider_user_id: string }>(
    "SELECT upstream_id, severity, watchlist, provider_user_id FROM blacklist_entries WHERE source = ? AND status = 'active' ORDER BY upstream_id",
    source,
  );
  return new Map(rows.map((row) => [row.upstream_id, { severity: row.severity, watchlist: !!row.watchlist, id: row.provider_user_id }]));
}

/** The keyed check on `on`. */
export async function check(on: Instance, id: string) {
  const res = await on.json("GET", `/v1/blacklist/check?provider=discord&id=${id}`, { key: on.writer });
  expect(res.status).toBe(200);
  return res.body;
}
