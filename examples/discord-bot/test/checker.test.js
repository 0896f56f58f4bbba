// The bot's trustlist side against a live server, without Discord: members checked in one batch
// call, answers served from the cache afterwards, the public search, and the decisions made from
// real answers. Requests are counted at the client's fetch.
import { beforeAll, expect, test } from "bun:test";
import { createTrustlist } from "../../../sdk/src/index.ts";
import { liveServer } from "../../../sdk/test/live.ts";
import { createChecker } from "../src/checker.js";
import { decide } from "../src/policy.js";

const live = liveServer();
let requests = [];
let checker;

beforeAll(async () => {
  const admin = createTrustlist({ baseUrl: live.base, apiKey: live.adminKey });
  await admin.addEntry({ provider: "discord", provider_user_id: "1001", severity: "ban", reason_code: "scam", summary: "Sold a stolen account" });
  await admin.addEntry({ provider: "discord", provider_user_id: "1002", severity: "restrict", reason_code: "chargeback" });
  await admin.addEntry({ provider: "roblox", provider_user_id: "9001", username: "raid_leader", severity: "ban", reason_code: "raid" });
  const counting = (request) => {
    requests.push(`${request.method} ${new URL(request.url).pathname}`);
    return fetch(request);
  };
  // A pro account: batch checks are allowed.
  const tl = createTrustlist({ baseUrl: live.base, apiKey: live.key(), fetch: counting });
  checker = createChecker({ tl, batch: true, ttlMs: 60_000 });
});

test("a group of joining members is checked in one call, then answered from the cache", async () => {
  requests = [];
  const results = await checker.discordUsers(["1001", "1002", "1003"]);
  expect(requests).toEqual(["POST /v1/blacklist/check/batch"]);
  expect(decide(results.get("1001"))).toMatchObject({ verdict: "banned", action: "ban" });
  expect(decide(results.get("1002"))).toMatchObject({ verdict: "restricted", action: "alert" });
  expect(decide(results.get("1003"))).toMatchObject({ verdict: "clean", action: "none" });

  expect((await checker.discordUser("1001")).banned).toBe(true);
  await checker.discordUsers(["1001", "1002"]);
  expect(requests).toHaveLength(1);
});

test("a single member not seen before is one check; an id the server refuses is an Error, not a verdict", async () => {
  requests = [];
  expect((await checker.discordUser("1004")).banned).toBe(false);
  expect(requests).toEqual(["GET /v1/blacklist/check"]);
  const results = await checker.discordUsers(["1005", "not-digits"]);
  expect(results.get("1005").banned).toBe(false);
  expect(results.get("not-digits")).toBeInstanceOf(Error);
});

test("the public search finds a game account by username, and is cached too", async () => {
  requests = [];
  const result = await checker.search("@Raid_Leader");
  expect(result.platforms[0]).toMatchObject({ platform: "roblox", banned: true });
  await checker.search("raid_leader");
  expect(requests).toEqual(["GET /v1/public/blacklist/check"]);
});
