// Shared setup of the creator network tests (network.*.test.ts): a fresh app per test (each file
// calls setup and teardown in its own beforeEach/afterEach) with a pro read key and a pro write key,
// and helpers that write through the partner routes and read back what any caller can see
// (docs/api.md, docs/webhooks.md).
import { expect } from "bun:test";
import { Logger } from "../../src/logger";
import { createTestApp, type TestApp } from "../helpers";

export const T0 = "2026-11-21T10:00:00.000Z";

export const SERVER_ID = "1042345678901234567";

export type Json = Record<string, any>;

type Key = { key: string; accountId: string; keyId: string };

export let t: TestApp;
export let reader: Key;
export let writer: Key;

/** A fresh app with a reader and a writer key; call in beforeEach. */
export async function setup() {
  t = await createTestApp();
  // The 500s provoked by the atomicity tests are logged; keep them out of the test output.
  t.runtime.log = new Logger({ access: false }, () => {});
  reader = await t.account({ tier: "pro", burst: 10_000, dailyQuota: 100_000 });
  writer = await t.account({ tier: "pro", scope: "write", burst: 10_000, dailyQuota: 100_000 });
}

/** Closes the current app; call in afterEach. */
export const teardown = () => t.close();

export const send = (method: string, path: string, body?: unknown, key: string | null = writer.key) => t.json(method, path, { key, body });

/** Creates (or updates) a creator through the partner route; a fresh creator scores exactly 100. */
export async function creator(handle: string, fields: Json = {}): Promise<Json> {
  const res = await send("PUT", `/v1/partner/creators/${handle}`, fields);
  if (res.status !== 201 && res.status !== 200) throw new Error(`creator ${handle}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function creators(...handles: string[]) {
  for (const handle of handles) await creator(handle);
}

/** The keyed profile (CreatorProfile). */
export async function profile(handle: string): Promise<Json> {
  const res = await t.json("GET", `/v1/users/${handle}`, { key: reader.key });
  expect(res.status).toBe(200);
  return res.body;
}

export const score = async (handle: string) => (await profile(handle)).trust_score as number;

export const vouch = (from: string, to: string, extra: Json = {}) => send("POST", "/v1/partner/vouches", { from, to, ...extra });

export const openDeal = (from: string, to: string) => send("POST", "/v1/partner/deals", { from, to });

export const act = (id: string, action: "confirm" | "decline" | "complete", key: string | null = writer.key) =>
  send("POST", `/v1/partner/deals/${id}/${action}`, undefined, key);

export const getDeal = (id: string, key: string | null = writer.key) => send("GET", `/v1/partner/deals/${id}`, undefined, key);

export const review = (from: string, to: string, rating: unknown) => send("POST", "/v1/partner/reviews", { from, to, rating });

export const refer = (referrer: string, referred: string) => send("POST", "/v1/partner/referrals", { referrer, referred });

export const putServer = (id: string, body?: unknown, platform = "discord") => send("PUT", `/v1/partner/servers/${platform}/${id}`, body);

export const deleteServer = (id: string, platform = "discord") => send("DELETE", `/v1/partner/servers/${platform}/${id}`);

export const vouchesPage = (handle: string, query = "") => t.json("GET", `/v1/public/users/${handle}/vouches${query}`);

export const leaderboard = (query = "") => t.json("GET", `/referrals/leaderboard${query}`);

export const stats = async () => {
  const res = await t.json("GET", "/v1/stats/public");
  expect(res.status).toBe(200);
  return res.body as Json;
};

/** Opens a deal and answers its id (201 asserted). */
export async function pendingDeal(from: string, to: string): Promise<string> {
  const res = await openDeal(from, to);
  expect(res.status).toBe(201);
  return res.body.id;
}

/** A deal taken through confirm and complete. */
export async function completedDeal(from: string, to: string): Promise<string> {
  const id = await pendingDeal(from, to);
  expect((await act(id, "confirm")).status).toBe(200);
  expect((await act(id, "complete")).status).toBe(200);
  return id;
}

/** Outbox rows in write order, payloads parsed. */
export async function events(): Promise<Array<{ type: string; payload: Json }>> {
  const rows = await t.rows<{ type: string; payload: string }>("SELECT type, payload FROM outbox_events ORDER BY id");
  return rows.map((r) => ({ type: r.type, payload: JSON.parse(r.payload) }));
}

export const eventTypes = async () => (await events()).map((e) => e.type);

/** What a caller can see of some creators: profile, trust basis and vouches received. */
async function visible(...handles: string[]) {
  const out: Json = {};
  for (const handle of handles) {
    const trust = await t.json("GET", `/v1/users/${handle}/trust`, { key: reader.key });
    out[handle] = { profile: await profile(handle), basis: trust.body.basis, vouches: (await vouchesPage(handle)).body };
  }
  return out;
}

/** Asserts that `attempt` changes nothing any caller can see, nor the outbox. */
export async function expectNoChange(handles: string[], attempt: () => Promise<unknown>) {
  const before = await visible(...handles);
  const outboxBefore = await events();
  await attempt();
  expect(await visible(...handles)).toEqual(before);
  expect(await events()).toEqual(outboxBefore);
}
