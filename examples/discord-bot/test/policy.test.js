// The bot's decisions without Discord: each state a trustlist answer can be in, the action the
// server owner chose for it, and the words the moderators read.
import { expect, test } from "bun:test";
import { decide, DEFAULT_ACTIONS, describeFailure, describeSearch, verdictOf } from "../src/policy.js";

const at = "2026-11-21T10:00:00.000Z";
const banned = { provider: "discord", id: "1", banned: true, checked_at: at, severity: "ban", scope: "global", reason_code: "scam", appealable: false, entry: { severity: "ban", scope: "global", reason_code: "scam", summary: "Took payment, never delivered" } };
const restricted = { provider: "discord", id: "2", banned: false, checked_at: at, severity: "restrict", reason_code: "chargeback" };
const warned = { provider: "discord", id: "3", banned: false, checked_at: at, severity: "warn", reason_code: "spam", high_risk: true };
const watchlisted = { provider: "discord", id: "4", banned: false, checked_at: at, watchlist: true };
const clean = { provider: "discord", id: "5", banned: false, checked_at: at };

test("each answer maps to its verdict; watchlist alone is never banned", () => {
  expect([banned, restricted, warned, watchlisted, clean].map(verdictOf)).toEqual(["banned", "restricted", "warned", "watchlist", "clean"]);
  // A confirmed hit outranks the watchlist flag the same answer may carry.
  expect(verdictOf({ ...restricted, watchlist: true })).toBe("restricted");
});

test("by default a ban is banned and everything else alerts the moderators", () => {
  expect(decide(banned)).toMatchObject({ verdict: "banned", action: "ban", reason: "scam: Took payment, never delivered" });
  expect(decide(restricted).action).toBe("alert");
  expect(decide(warned).action).toBe("alert");
  expect(decide(watchlisted).action).toBe("alert");
  expect(decide(clean)).toMatchObject({ verdict: "clean", action: "none", reason: null });
});

test("the owner's choices replace the defaults", () => {
  const actions = { ...DEFAULT_ACTIONS, banned: "kick", warned: "none" };
  expect(decide(banned, { actions }).action).toBe("kick");
  expect(decide(warned, { actions }).action).toBe("none");
});

test("the message says what the state means and what the bot did", () => {
  const ban = decide(banned, { who: "bob#0001 (1)" }).message;
  expect(ban).toStartWith("bob#0001 (1): Banned: a confirmed, active ban");
  expect(ban).toContain("Reason: scam: Took payment, never delivered");
  expect(ban).toContain("The bot banned the member.");
  expect(decide(restricted).message).toContain("not a ban");
  expect(decide(warned).message).toContain("Flagged high risk.");
  const watch = decide(watchlisted).message;
  expect(watch).toContain("unconfirmed report, not a ban");
  expect(watch).toContain("The bot took no action; moderators were alerted.");
  expect(decide(clean).message).toBe("No active report on this account.");
});

test("a failed check takes no action and says why, with the request id", () => {
  const quota = { name: "TrustlistError", status: 429, code: "quota_exceeded", requestId: "req_1", retryAfter: 7200, message: "Daily quota exceeded" };
  expect(describeFailure(quota, { who: "bob" })).toBe("bob: not checked: the trustlist key's daily quota is spent; it resets in about 2 h (request req_1). No action taken.");
  expect(describeFailure({ code: "unauthorized", status: 401, requestId: "req_2" })).toContain("key was refused");
  expect(describeFailure({ code: "network_error", status: 0, message: "connection refused" })).toBe("not checked: connection refused. No action taken.");
});

test("a public search lists each matching account with its meaning, or the close names", () => {
  const found = {
    query: "scammer_bob",
    found: true,
    checked_at: at,
    suggestions: [],
    platforms: [
      { platform: "roblox", username: "scammer_bob", id: "4242", banned: true, severity: "ban", reason_code: "scam", summary: "Took payment", source: "blacklist" },
      { platform: "minecraft", username: "scammer_bob", id: null, banned: false, watchlist: true, source: "external" },
    ],
  };
  const text = describeSearch(found);
  expect(text).toContain("roblox scammer_bob (4242): Banned");
  expect(text).toContain("minecraft scammer_bob: Watchlist: an unconfirmed report, not a ban.");
  expect(text).not.toContain("The bot");
  const missing = { query: "scamer_bob", found: false, checked_at: at, platforms: [], suggestions: ["scammer_bob"] };
  expect(describeSearch(missing)).toBe('No trustlist match for "scamer_bob". Close names: scammer_bob.');
});
