// Privacy of keyless answers (docs/api.md, "Blacklist rules"): a privately linked account never shows in any
// keyless route's answer, even when an entry names its creator, and suggestions draw only on public
// creator names, public linked usernames and confirmed entries' usernames.
import { beforeEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { TransferService } from "../../src/modules/transfer/service";
import { backend } from "../backend";
import { publicKit } from "../public-kit";

const kit = publicKit();
const { getText: get, write, creator, link, entry } = kit;
const json = async (path: string) => {
  const res = await get(path);
  expect(res.status, `${path}: ${res.text}`).toBe(200);
  return JSON.parse(res.text);
};
const suggestions = async (q: string): Promise<string[]> => {
  const body = await json(`/v1/public/blacklist/check?q=${encodeURIComponent(q)}`);
  expect(body.found, q).toBe(false);
  return body.suggestions;
};

describe("a privately linked account", () => {
  beforeEach(async () => {
    await creator("alice", { display_name: "Alice Makes", verification_level: 2 });
    await link("alice", { provider: "discord", provider_user_id: "4242", provider_username: "alice_dc", verified_at: "2026-01-01T00:00:00Z" });
    await link("alice", { provider: "github", provider_user_id: "alice-secret-alt", provider_username: "alice_alt", public: false });
    // The ban names alice, on her private account.
    await entry({ provider: "github", provider_user_id: "alice-secret-alt", username: "alice_alt", creator: "alice" });
    await creator("bob", { display_name: "Bob Builds" });
    await write("POST", "/v1/partner/vouches", { from: "alice", to: "bob", message: "great trade" });
    await write("POST", "/v1/partner/vouches", { from: "bob", to: "alice" });
    await write("POST", "/v1/partner/referrals", { referrer: "alice", referred: "bob" });
    await kit.t.services.public.refreshStats();
  });

  const PRIVATE = /alice-secret-alt|alice_alt/i;

  test("search by the creator shows her public account and her ban, never the private account", async () => {
    const body = await json("/v1/public/blacklist/check?q=alice");
    expect(body.platforms).toEqual([
      expect.objectContaining({ platform: "discord", id: "4242", username: "alice_dc", banned: false }),
      expect.objectContaining({ platform: "trustlist", username: "alice", id: null, banned: true, severity: "ban", source: "creator" }),
    ]);
    for (const q of ["alice", "@ALICE", "alice_dc", "4242", "Alice Makes"]) {
      expect((await get(`/v1/public/blacklist/check?q=${encodeURIComponent(q)}`)).text, q).not.toMatch(PRIVATE);
    }
  });

  test("an entry that gives her private account her handle as its username does not show it when her handle is searched", async () => {
    await entry({ provider: "github", provider_user_id: "alice-secret-alt", username: "alice", creator: "alice" });
    for (const path of ["/v1/public/blacklist/check?q=alice", "/v1/public/blacklist/check?q=%40Alice", "/?q=alice"]) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.text, path).not.toMatch(PRIVATE);
    }
    const body = await json("/v1/public/blacklist/check?q=alice");
    expect(body.platforms).toEqual([
      expect.objectContaining({ platform: "discord", id: "4242", banned: false }),
      expect.objectContaining({ platform: "trustlist", username: "alice", id: null, banned: true, source: "creator" }),
    ]);
  });

  test("an entry the query itself names still answers, without naming the creator", async () => {
    const body = await json("/v1/public/blacklist/check?q=alice_alt");
    expect(body.platforms).toEqual([expect.objectContaining({ platform: "github", id: "alice-secret-alt", username: "alice_alt", banned: true, source: "blacklist" })]);
    expect(JSON.stringify(body.platforms)).not.toContain('"alice"');
  });

  test("near misses never suggest the private account's name", async () => {
    const near = await suggestions("alice_alx");
    expect(near.length).toBeGreaterThan(0);
    expect(near.join(" ")).not.toMatch(PRIVATE);
    expect((await suggestions("alice_al")).join(" ")).not.toMatch(PRIVATE);
  });

  test("resolve, directory, trust, badge, vouches, leaderboard and counters never show it", async () => {
    expect(await json("/v1/public/resolve?provider=github&id=alice-secret-alt")).toEqual({ found: false });
    expect(await json("/v1/public/resolve?username=alice_alt")).toEqual({ found: false });
    expect((await json("/v1/public/resolve?provider=discord&id=4242")).handle).toBe("alice");
    expect((await json("/v1/public/directory?q=alice_alt")).total).toBe(0);
    expect((await json("/v1/public/directory?platform=github")).total).toBe(0);
    expect(await json("/v1/public/trust/alice")).toMatchObject({ found: true, blacklisted: true, band: "banned" });
    expect(await json("/referrals/leaderboard")).toMatchObject({ leaders: [{ handle: "alice", count: 1 }] });
    const paths = [
      "/v1/public/resolve?provider=discord&id=4242",
      "/v1/public/resolve?username=alice_dc",
      "/v1/public/resolve?username=alice",
      "/v1/public/directory",
      "/v1/public/directory?q=alice",
      "/v1/public/directory?q=al",
      "/v1/public/directory?q=alice_a&sort=trust",
      "/v1/public/trust/alice",
      "/badge/alice",
      "/badge/alice.svg?theme=light",
      "/v1/public/users/alice/vouches",
      "/v1/public/users/bob/vouches",
      "/referrals/leaderboard",
      "/referrals/leaderboard?period=month",
      "/v1/stats/public",
    ];
    for (const path of paths) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.text, path).not.toMatch(PRIVATE);
    }
  });

  test("made public, the account shows through its creator; unlinked again, it does not", async () => {
    await link("alice", { provider: "github", provider_user_id: "alice-secret-alt", public: true });
    const shown = await json("/v1/public/blacklist/check?q=alice");
    expect(shown.platforms.map((h: any) => [h.platform, h.id, h.banned])).toEqual([
      ["discord", "4242", false],
      ["github", "alice-secret-alt", true],
    ]);
    expect((await json("/v1/public/resolve?username=alice_alt")).handle).toBe("alice");
    await link("alice", { provider: "github", provider_user_id: "alice-secret-alt", public: false });
    expect((await get("/v1/public/blacklist/check?q=alice")).text).not.toMatch(PRIVATE);
    expect((await suggestions("alice_alx")).join(" ")).not.toMatch(PRIVATE);
  });
});

describe("the suggestion pool", () => {
  test("holds handles, public usernames and confirmed entries' usernames; never a watchlist report's", async () => {
    await creator("lotusforge");
    await link("lotusforge", { provider: "roblox", provider_user_id: "777", provider_username: "LotusRBX" });
    await entry({ provider: "discord", provider_user_id: "111", username: "ScamHydra" });
    await entry({ provider: "epic", provider_user_id: "rumour", username: "RumourMill", watchlist: true });
    await entry({ provider: "epic", provider_user_id: "rumour2", username: "rumourmill", watchlist: true, severity: "warn" });
    expect(await suggestions("lotusforg")).toContain("lotusforge");
    expect(await suggestions("lotusrbxx")).toContain("lotusrbx");
    expect(await suggestions("scamhydr")).toContain("scamhydra");
    expect(await suggestions("rumourmil")).toEqual([]);
    expect(await suggestions("rumour_mill")).toEqual([]);
    // The report is still a search hit when the query names it: a watchlist flag, not a ban.
    expect((await json("/v1/public/blacklist/check?q=rumourmill")).platforms[0]).toMatchObject({ watchlist: true, banned: false });
  });

  test("a confirmed entry's name leaves when the entry is overturned; a private link's username masks it", async () => {
    const banned = await entry({ provider: "discord", provider_user_id: "222", username: "grifter" });
    expect(await suggestions("grifterr")).toContain("grifter");
    await write("POST", `/v1/partner/blacklist/${banned.id}/overturn`);
    expect(await suggestions("grifterr")).toEqual([]);

    await entry({ provider: "discord", provider_user_id: "333", username: "shadowalt" });
    expect(await suggestions("shadowalts")).toContain("shadowalt");
    await creator("shadow");
    await link("shadow", { provider: "twitch", provider_user_id: "9", provider_username: "ShadowAlt", public: false });
    expect(await suggestions("shadowalts")).not.toContain("shadowalt");
    // Public in its own right (a public link), the name is suggested again.
    await link("shadow", { provider: "twitch", provider_user_id: "9", public: true });
    expect(await suggestions("shadowalts")).toContain("shadowalt");
  });

  test("a bulk import (index rebuilt once at the end) leaves the same pool as row-by-row writes", async () => {
    const rows = [
      { type: "creator", handle: "carol", verification_level: 0, joined_at: "2026-01-01T00:00:00Z" },
      { type: "connection", creator: "carol", provider: "github", provider_user_id: "carol-alt", provider_username: "carol_hidden", public: false },
      { type: "entry", provider: "github", provider_user_id: "carol-alt", username: "carol_hidden", severity: "ban", scope: "global", vertical: "all", reason_code: "scam", appealable: true, creator: "carol" },
      { type: "entry", provider: "discord", provider_user_id: "444", username: "whispered", severity: "ban", scope: "global", vertical: "all", reason_code: "scam", appealable: true, watchlist: true },
      { type: "entry", provider: "discord", provider_user_id: "555", username: "confirmedcrook", severity: "ban", scope: "global", vertical: "all", reason_code: "scam", appealable: true },
    ];
    const file = join(kit.t.dir, "import.jsonl");
    writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    await new TransferService(kit.t.runtime.store, kit.t.services, kit.t.clock, { rebuildIndexesFromBytes: 0 }).importFile(file);
    await kit.t.services.public.refreshGramCounts();
    // SQLite's full-text index agrees with its table after the bulk rebuild.
    if (backend === "sqlite") kit.t.sqlite.run("INSERT INTO search_names_fts(search_names_fts) VALUES ('integrity-check')");
    expect(await suggestions("confirmedcrok")).toContain("confirmedcrook");
    expect(await suggestions("whisperd")).toEqual([]);
    expect((await suggestions("carol_hiden")).join(" ")).not.toContain("carol_hidden");
    expect((await get("/v1/public/blacklist/check?q=carol")).text).not.toContain("carol-alt");
  });
});
