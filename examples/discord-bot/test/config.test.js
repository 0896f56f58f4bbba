// The bot's settings: defaults, the owner's choices, and every mistake named before it connects.
import { expect, test } from "bun:test";
import { loadConfig } from "../src/config.js";

const base = { DISCORD_TOKEN: "token", TRUSTLIST_URL: "http://127.0.0.1:8080", TRUSTLIST_KEY: "tl_live_" + "a".repeat(32), MOD_CHANNEL_ID: "123" };

test("defaults: ban the banned, alert on the rest, cache five minutes, one check per step", () => {
  expect(loadConfig(base)).toMatchObject({
    vertical: "all",
    actions: { banned: "ban", restricted: "alert", warned: "alert", watchlist: "alert" },
    cacheTtlMs: 300_000,
    joinBatch: false,
    joinIntervalMs: 2000,
  });
});

test("the owner's actions and pace are read", () => {
  const config = loadConfig({ ...base, ON_BANNED: "kick", ON_WATCHLIST: "none", TRUSTLIST_BATCH: "1", CACHE_TTL_SECONDS: "60", TRUSTLIST_VERTICAL: "roblox" });
  expect(config).toMatchObject({ actions: { banned: "kick", watchlist: "none" }, joinBatch: true, cacheTtlMs: 60_000, vertical: "roblox" });
});

test("every problem is named at once, and an unconfirmed report can never ban", () => {
  let message = "";
  try {
    loadConfig({ TRUSTLIST_URL: "trust.example.org", TRUSTLIST_KEY: "secret", ON_WATCHLIST: "ban", CACHE_TTL_SECONDS: "soon", TRUSTLIST_VERTICAL: "fortnite" });
  } catch (error) {
    message = error.message;
  }
  for (const part of ["DISCORD_TOKEN is required", "TRUSTLIST_KEY must look like tl_live_", "ON_WATCHLIST must be one of alert, none", "CACHE_TTL_SECONDS must be a whole number", "TRUSTLIST_VERTICAL must be one of", "TRUSTLIST_URL must be an http(s) URL", "MOD_CHANNEL_ID is required"]) {
    expect(message).toContain(part);
  }
});
