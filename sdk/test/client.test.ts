// The SDK against a live server: typed answers for banned and clean accounts, the public search,
// and every error surfaced as a TrustlistError carrying the envelope.
import { beforeAll, expect, test } from "bun:test";
import { type CheckResult, createTrustlist, TrustlistError } from "../src/index";
import { liveServer } from "./live";

const live = liveServer();
let reader: ReturnType<typeof createTrustlist>;

beforeAll(async () => {
  reader = createTrustlist({ baseUrl: live.base, apiKey: live.key() });
  const admin = createTrustlist({ baseUrl: live.base, apiKey: live.adminKey });
  await admin.addEntry({ provider: "roblox", provider_user_id: "4242", username: "scammer_bob", severity: "ban", reason_code: "scam", summary: "Took payment, never delivered" });
  await admin.addEntry({ provider: "discord", provider_user_id: "555", severity: "warn", reason_code: "spam" });
});

test("a banned account answers banned with the hit's severity and summary", async () => {
  const result: CheckResult = await reader.checkAccount({ provider: "roblox", id: "4242" });
  expect(result).toMatchObject({ provider: "roblox", id: "4242", banned: true, severity: "ban", reason_code: "scam" });
  expect(result.entry?.summary).toBe("Took payment, never delivered");
});

test("a clean account answers banned: false without hit fields; a warn is not a ban", async () => {
  const clean = await reader.checkAccount({ provider: "discord", id: "123", vertical: "all" });
  expect(clean.banned).toBe(false);
  expect(clean.severity).toBeUndefined();
  const warned = await reader.checkAccount({ provider: "discord", id: "555" });
  expect(warned).toMatchObject({ banned: false, severity: "warn" });
});

test("the public search needs no key and finds the banned account by username", async () => {
  const anonymous = createTrustlist({ baseUrl: live.base });
  const result = await anonymous.searchPublic("scammer_bob");
  expect(result.found).toBe(true);
  expect(result.platforms[0]).toMatchObject({ platform: "roblox", banned: true });
});

test("listing walks every page through the cursors", async () => {
  const seen: string[] = [];
  for await (const entry of reader.eachEntry({ limit: 1 })) seen.push(entry.id);
  expect(seen).toHaveLength(2);
  expect(new Set(seen).size).toBe(2);
});

test("a bad key is a TrustlistError 401 with the envelope's code and request id", async () => {
  const stranger = createTrustlist({ baseUrl: live.base, apiKey: "tl_live_" + "x".repeat(32), headers: { "X-Request-Id": "sdk-test-401" } });
  const error = await stranger.checkAccount({ provider: "discord", id: "1" }).catch((e) => e);
  expect(error).toBeInstanceOf(TrustlistError);
  expect(error).toMatchObject({ status: 401, code: "unauthorized", requestId: "sdk-test-401" });
  expect(error.message.length).toBeGreaterThan(0);
});

test("an unknown vertical is a TrustlistError 422 unprocessable", async () => {
  const error = await reader.checkAccount({ provider: "discord", id: "1", vertical: "fortnite" as never }).catch((e) => e);
  expect(error).toBeInstanceOf(TrustlistError);
  expect(error).toMatchObject({ status: 422, code: "unprocessable" });
  expect(error.requestId).toMatch(/\S+/);
});

test("the generic typed client answers {data, error, response} without throwing", async () => {
  const { data, error, response } = await reader.api.GET("/v1/users/{handle}", { params: { path: { handle: "nobody_here" } } });
  expect(response.status).toBe(404);
  expect(data).toBeUndefined();
  expect(error).toMatchObject({ error: { code: "not_found" } });
});

test("the change feed walks every added entry in order", async () => {
  const changes = [];
  for await (const change of reader.eachChange({ limit: 1 })) changes.push(change);
  expect(changes.map((c) => c.type)).toEqual(["added", "added"]);
  expect(Number(changes[0]!.seq)).toBeLessThan(Number(changes[1]!.seq));
});
