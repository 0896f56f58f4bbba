// Shared setup of the blacklist route tests (blacklist.*.test.ts): a fresh app per test (each file
// calls setup and teardown in its own beforeEach/afterEach) with a pro read key and a pro write key,
// the public entry shape, and helpers that write through the partner route and read through the keyed
// routes.
import { expect } from "bun:test";
import { Logger } from "../../src/logger";
import { createTestApp, type TestApp } from "../helpers";

export const T0 = "2026-11-21T10:00:00.000Z";

/** The nine fields of the seed's BlacklistEntry, and nothing else. */
export const PUBLIC_ENTRY_KEYS = ["appealable", "expires_at", "id", "issued_at", "reason_code", "scope", "severity", "summary", "vertical"];

/** Fields that must never leave the server through a read. */
export const PRIVATE_FIELDS = [
  "provider",
  "provider_user_id",
  "username",
  "evidence",
  "reporter",
  "status",
  "watchlist",
  "high_risk",
  "creator",
  "creator_handle",
  "overturned_at",
  "overturn_reason",
  "created_at",
];

export let t: TestApp;
export let reader: { key: string; accountId: string; keyId: string };
export let writer: { key: string; accountId: string; keyId: string };

/** A fresh app with a reader and a writer key; call in beforeEach. */
export async function setup() {
  t = await createTestApp();
  // The 500s provoked by the error tests are logged; keep them out of the test output.
  t.runtime.log = new Logger({ access: false }, () => {});
  reader = await t.account({ tier: "pro", burst: 10_000, dailyQuota: 100_000 });
  writer = await t.account({ tier: "pro", scope: "write", burst: 10_000, dailyQuota: 100_000 });
}

/** Closes the current app; call in afterEach. */
export const teardown = () => t.close();

export type Json = Record<string, any>;

/** Adds an entry through the partner route and returns the 201 body. */
export async function add(fields: Json = {}): Promise<Json> {
  const res = await t.json("POST", "/v1/partner/blacklist", {
    key: writer.key,
    body: { provider: "discord", provider_user_id: "100000000000000001", severity: "ban", reason_code: "scam_trade", ...fields },
  });
  if (res.status !== 201) throw new Error(`add failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export const get = (path: string, key: string | null = reader.key) => t.json("GET", path, { key });

export const post = (path: string, body: unknown, key: string | null = reader.key) => t.json("POST", path, { key, body });

export const check = (provider: string, id: string, vertical?: string) =>
  get(`/v1/blacklist/check?provider=${encodeURIComponent(provider)}&id=${encodeURIComponent(id)}${vertical ? `&vertical=${vertical}` : ""}`);

export function expectPublicEntry(entry: Json) {
  expect(Object.keys(entry).sort()).toEqual(PUBLIC_ENTRY_KEYS);
  for (const field of PRIVATE_FIELDS) expect(entry).not.toHaveProperty(field);
}

export const outboxTypes = async () =>
  (await t.rows<{ type: string }>("SELECT type FROM outbox_events ORDER BY id")).map((r) => r.type);
