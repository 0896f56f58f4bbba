// The keyless surface: unified search with suggestions, trust tiers, resolve, the directory, vouches,
// public counters, the badge, and the per-IP limits that guard them.
import { beforeEach, describe, expect, test } from "bun:test";
import { LEADERBOARD_IP_RULE, PUBLIC_IP_RULE } from "../../src/http/limits";
import { eventually, writeAsAnotherProcess } from "../backend";
import { expectEnvelope } from "../helpers";
import { publicKit } from "../public-kit";

const kit = publicKit();
const { get, write, creator, link, entry } = kit;

describe("search", () => {
  beforeEach(async () => {
    await creator("shadowbuilds", { display_name: "Shadow Builds", verification_level: 2 });
    await link("shadowbuilds", { provider: "discord", provider_user_id: "80351110224678912", provider_username: "Shadow#1" });
    await link("shadowbuilds", { provider: "roblox", provider_user_id: "1234567", provider_username: "ShadowRBX" });
    await link("shadowbuilds", { provider: "twitch", provider_user_id: "999", provider_username: "shadowlive", public: false });
  });

  test("by handle: one hit per public platform account of the creator", async () => {
    const res = await get("/v1/public/blacklist/check?q=@ShadowBuilds");
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.body).toMatchObject({ query: "ShadowBuilds", found: true, suggestions: [] });
    expect(res.body.platforms).toEqual([
      { platform: "discord", username: "Shadow#1", id: "80351110224678912", banned: false, high_risk: false, watchlist: false, severity: null, reason_code: null, summary: null, source: "creator" },
      { platform: "roblox", username: "ShadowRBX", id: "1234567", banned: false, high_risk: false, watchlist: false, severity: null, reason_code: null, summary: null, source: "creator" },
    ]);
  });

  test("by a linked username on another platform, without case", async () => {
    const res = await get("/v1/public/blacklist/check?q=shadowrbx");
    expect(res.body.found).toBe(true);
    expect(res.body.platforms.map((h: any) => [h.platform, h.id])).toEqual([["roblox", "1234567"]]);
    // A private link is never searchable.
    expect((await get("/v1/public/blacklist/check?q=shadowlive")).body.found).toBe(false);
  });

  test("by a numeric id, and a banned account shows the ban", async () => {
    await entry({ provider: "roblox", provider_user_id: "1234567", evidence: "internal notes" });
    const res = await get("/v1/public/blacklist/check?q=1234567");
    expect(res.body.found).toBe(true);
    expect(res.body.platforms).toEqual([
      {
        platform: "roblox",
        username: "ShadowRBX",
        id: "1234567",
        banned: true,
        high_risk: false,
        watchlist: false,
        severity: "ban",
        reason_code: "scam_trade",
        summary: "Took payment, never delivered.",
        source: "blacklist",
        appealable: true,
      },
    ]);
    expect(JSON.stringify(res.body)).not.toContain("internal notes");
  });

  test("blacklisted accounts that belong to no creator are found by id and username", async () => {
    await entry({ provider: "discord", provider_user_id: "111222333", username: "ScamLord" });
    const byName = await get("/v1/public/blacklist/check?q=scamlord");
    expect(byName.body.platforms).toEqual([expect.objectContaining({ platform: "discord", id: "111222333", username: "ScamLord", banned: true, source: "blacklist" })]);
    expect((await get("/v1/public/blacklist/check?q=111222333")).body.platforms).toHaveLength(1);
  });

  test("a watchlist-only account is reported as watchlist, never as a ban; a warn is not a ban either", async () => {
    await entry({ provider: "epic", provider_user_id: "rumoured", username: "rumoured", watchlist: true });
    const watch = await get("/v1/public/blacklist/check?q=rumoured");
    expect(watch.body.platforms).toEqual([expect.objectContaining({ banned: false, watchlist: true, severity: null, source: "external" })]);
    await entry({ provider: "epic", provider_user_id: "warned", username: "warned", severity: "warn" });
    expect((await get("/v1/public/blacklist/check?q=warned")).body.platforms).toEqual([expect.objectContaining({ banned: false, severity: "warn", source: "blacklist" })]);
  });

  test("near misses get up to 5 suggestions from known names; an exact match gets none", async () => {
    await creator("shadowbuild_s");
    await creator("alicemakes");
    const miss = await get("/v1/public/blacklist/check?q=shadwbuilds");
    expect(miss.body).toMatchObject({ found: false, platforms: [] });
    expect(miss.body.suggestions).toContain("shadowbuilds");
    expect(miss.body.suggestions).not.toContain("alicemakes");
    expect(miss.body.suggestions.length).toBeLessThanOrEqual(5);
    expect((await get("/v1/public/blacklist/check?q=shadowrbxx")).body.suggestions).toContain("shadowrbx");
    expect((await get("/v1/public/blacklist/check?q=zzzzqqqq")).body.suggestions).toEqual([]);
  });

  test("empty, missing or over-long q is 400 in the envelope", async () => {
    expectEnvelope(await get("/v1/public/blacklist/check?q="), 400, "invalid_request");
    expectEnvelope(await get("/v1/public/blacklist/check?q=%20@"), 400, "invalid_request");
    expectEnvelope(await get("/v1/public/blacklist/check"), 400, "invalid_request");
    expectEnvelope(await get(`/v1/public/blacklist/check?q=${"a".repeat(65)}`), 400, "invalid_request");
  });

  test("hostile queries are just text", async () => {
    for (const q of ['"', "' OR 1=1 --", "<script>", "a\"b OR c", "NEAR(a b)", "*", "%_%"]) {
      const res = await get(`/v1/public/blacklist/check?q=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(200);
      expect(res.body.found, q).toBe(false);
    }
  });
});

describe("trust tier and resolve", () => {
  beforeEach(async () => {
    await creator("alice", { verification_level: 4, joined_at: "2025-01-01T00:00:00Z" });
    await link("alice", { provider: "discord", provider_user_id: "42", provider_username: "alice_dc", verified_at: "2026-01-01T00:00:00Z" });
    await link("alice", { provider: "github", provider_user_id: "alice-private", public: false });
  });

  test("a known handle shows band, tier and colour but no score to a keyless caller", async () => {
    const res = await get("/v1/public/trust/@Alice");
    // 100 + 30 (Expert) + 12 (age capped) + 5 (one verified public link) = 147.
    expect(res.body).toEqual({ handle: "alice", found: true, band: "average", tier: "Average", tier_color: "#dfb317", blacklisted: false, checked_at: "2026-11-21T10:00:00.000Z" });
  });

  test("an unknown handle answers found false and nothing else", async () => {
    expect((await get("/v1/public/trust/nobody")).body).toEqual({ handle: "nobody", found: false });
    expect((await get("/v1/public/trust/%3Cb%3E")).body).toEqual({ handle: "<b>", found: false });
  });

  test("resolve by provider and id, or by username; private links and strangers are not found", async () => {
    const byId = await get("/v1/public/resolve?provider=discord&id=42");
    expect(byId.body).toEqual({ found: true, handle: "alice", trust_score: 147, band: "average", blacklisted: false, profile_url: "http://127.0.0.1:8080/u/alice" });
    expect((await get("/v1/public/resolve?username=ALICE_DC")).body.handle).toBe("alice");
    expect((await get("/v1/public/resolve?provider=roblox&username=alice_dc")).body).toEqual({ found: false });
    expect((await get("/v1/public/resolve?provider=github&id=alice-private")).body).toEqual({ found: false });
    expect((await get("/v1/public/resolve?provider=discord&id=7")).body).toEqual({ found: false });
  });

  test("resolve without id or username, or with an unknown provider, is 400", async () => {
    expectEnvelope(await get("/v1/public/resolve?provider=discord"), 400, "invalid_request");
    expectEnvelope(await get("/v1/public/resolve?provider=myspace&id=1"), 400, "invalid_request");
  });
});

describe("directory", () => {
  beforeEach(async () => {
    // 30 creators with distinct scores, vouch and deal counts.
    for (let i = 0; i < 30; i++) {
      kit.t.clock.advance(1000);
      await creator(`maker${String(i).padStart(2, "0")}`, { display_name: i % 2 ? `Odd Builder ${i}` : `Even Scripter ${i}`, verification_level: i % 5 });
      if (i % 3 === 0) await link(`maker${String(i).padStart(2, "0")}`, { provider: "roblox", provider_user_id: String(5000 + i), provider_username: `rbx_${i}` });
    }
    for (let i = 1; i < 8; i++) await write("POST", "/v1/partner/vouches", { from: "maker00", to: `maker${String(i).padStart(2, "0")}` });
    for (let i = 1; i < 6; i++) {
      const deal = await write("POST", "/v1/partner/deals", { from: `maker${String(i + 10).padStart(2, "0")}`, to: "maker29" });
      await write("POST", `/v1/partner/deals/${deal.id}/confirm`);
      await write("POST", `/v1/partner/deals/${deal.id}/complete`);
    }
  });

  const walk = async (query: string, limit: number) => {
    const seen: any[] = [];
    let page = 1;
    let first: any;
    for (;;) {
      const res = await get(`/v1/public/directory?${query}&limit=${limit}&page=${page}`);
      expect(res.status).toBe(200);
      first ??= res.body;
      expect(res.body).toMatchObject({ page, limit, total: first.total, total_pages: Math.ceil(first.total / limit) });
      expect(res.body.page_size).toBe(res.body.items.length);
      seen.push(...res.body.items);
      if (!res.body.has_more) break;
      page++;
    }
    return { total: first.total, items: seen };
  };

  test("every sort pages through all creators exactly once, with the same totals", async () => {
    for (const sort of ["newest", "trust", "vouches", "deals"]) {
      const { total, items } = await walk(`sort=${sort}`, 7);
      expect(total, sort).toBe(30);
      expect(new Set(items.map((i) => i.handle)).size, sort).toBe(30);
      const key = { newest: "created_at", trust: "trust_score", vouches: "vouch_count", deals: "deal_count" }[sort]!;
      for (let i = 1; i < items.length; i++) expect(items[i - 1][key] >= items[i][key], `${sort} order`).toBe(true);
    }
    const top = (await get("/v1/public/directory?sort=deals&limit=1")).body.items[0];
    expect(top).toMatchObject({ handle: "maker29", deal_count: 5 });
    expect((await get("/v1/public/directory?sort=vouches&limit=1")).body.items[0].vouch_count).toBe(1);
  });

  test("q matches handle, display name and public usernames without case, as typed or word by word", async () => {
    const odd = await walk("q=ODD%20builder&sort=trust", 5);
    expect(odd.total).toBe(15);
    expect(odd.items.every((i) => i.match.includes("odd builder"))).toBe(true);
    // Words out of order: nothing matches as typed, so every word of 3+ characters must occur.
    expect((await get("/v1/public/directory?q=builder%20odd")).body.total).toBe(15);
    const byUsername = await get("/v1/public/directory?q=rbx_27");
    expect(byUsername.body.items.map((i: any) => i.handle)).toEqual(["maker27"]);
    expect(byUsername.body.items[0]).toMatchObject({ platforms: ["roblox"], match: "maker27 odd builder 27 rbx_27" });
    // Only short words: the text as typed must occur ("builder 21", "scripter 20", …).
    expect((await get("/v1/public/directory?q=ER%20%202")).body.total).toBe(11);
    // Under three characters: a handle prefix.
    expect((await get("/v1/public/directory?q=ma")).body.total).toBe(30);
    expect((await get("/v1/public/directory?q=ev")).body.total).toBe(0);
    expect((await get("/v1/public/directory?q=zzz")).body).toMatchObject({ items: [], total: 0, total_pages: 0, has_more: false });
  });

  test("platform filter, the default page shape, and a page past the end", async () => {
    const roblox = await get("/v1/public/directory?platform=roblox");
    expect(roblox.body.total).toBe(10);
    const first = await get("/v1/public/directory");
    expect(Object.keys(first.body).sort()).toEqual(["has_more", "items", "limit", "page", "page_size", "sort", "total", "total_pages"]);
    expect(first.body).toMatchObject({ page: 1, limit: 24, page_size: 24, total: 30, total_pages: 2, has_more: true, sort: "newest" });
    expect(Object.keys(first.body.items[0]).sort()).toEqual(
      ["avatar_r2_key", "blacklisted", "created_at", "deal_count", "display_name", "handle", "id", "karma", "match", "platforms", "trust_score", "verification_level", "vouch_count"],
    );
    expect((await get("/v1/public/directory?page=9")).body).toMatchObject({ items: [], page_size: 0, total: 30, has_more: false });
  });

  test("out-of-range paging and unknown sorts are 422", async () => {
    expectEnvelope(await get("/v1/public/directory?limit=0"), 422, "unprocessable");
    expectEnvelope(await get("/v1/public/directory?limit=101"), 422, "unprocessable");
    expectEnvelope(await get("/v1/public/directory?page=0"), 422, "unprocessable");
    expectEnvelope(await get("/v1/public/directory?sort=karma"), 422, "unprocessable");
  });
});

describe("vouches and counters", () => {
  test("a creator's vouches page newest first with the total count; unknown creators are 404", async () => {
    for (const h of ["target", "fan1", "fan2", "fan3"]) await creator(h, { display_name: h === "fan2" ? "<b>Fan</b>" : null, avatar_r2_key: h === "fan1" ? "a/fan1.png" : null });
    for (const fan of ["fan1", "fan2", "fan3"]) {
      kit.t.clock.advance(1000);
      await write("POST", "/v1/partner/vouches", { from: fan, to: "target", message: `from ${fan}` });
    }
    const page = await get("/v1/public/users/target/vouches?limit=2&offset=0");
    expect(page.body.count).toBe(3);
    expect(page.body).toMatchObject({ limit: 2, offset: 0 });
    expect(page.body.vouches.map((v: any) => v.from_username)).toEqual(["fan3", "fan2"]);
    expect(page.body.vouches[1]).toMatchObject({ from_display_name: "<b>Fan</b>", from_verification_level: 0, from_avatar_url: null, message: "from fan2" });
    const rest = await get("/v1/public/users/target/vouches?limit=2&offset=2");
    expect(rest.body.vouches).toEqual([expect.objectContaining({ from_username: "fan1", from_avatar_url: "/avatars/a%2Ffan1.png" })]);
    expectEnvelope(await get("/v1/public/users/nobody/vouches"), 404, "not_found");
    expectEnvelope(await get("/v1/public/users/target/vouches?limit=500"), 422, "unprocessable");
  });

  test("public counters are served from the 5-minute cache once it is warm", async () => {
    const cold = await get("/v1/stats/public");
    expect(cold.body).toEqual({ creators_verified: 0, servers_protected: 0, entries_listed: 0, deals_completed: 0, cached: false });
    await creator("verified", { verification_level: 1 });
    await creator("other");
    await entry({ provider: "discord", provider_user_id: "1" });
    await entry({ provider: "discord", provider_user_id: "2", watchlist: true });
    await write("PUT", "/v1/partner/servers/discord/1042345678901234567", { name: "Builders Hub" });
    const deal = await write("POST", "/v1/partner/deals", { from: "verified", to: "other" });
    await write("POST", `/v1/partner/deals/${deal.id}/confirm`);
    await write("POST", `/v1/partner/deals/${deal.id}/complete`);
    expect((await get("/v1/stats/public")).body).toEqual({ creators_verified: 0, servers_protected: 0, entries_listed: 0, deals_completed: 0, cached: true });
    await kit.t.services.public.refreshStats();
    expect((await get("/v1/stats/public")).body).toEqual({ creators_verified: 1, servers_protected: 1, entries_listed: 1, deals_completed: 1, cached: true });
  });
});

describe("badge", () => {
  const badge = (path: string) => kit.t.call("GET", path);

  test("a known creator's badge shows the band; blacklisting turns it to Banned and the overturn back", async () => {
    await creator("shadow", { display_name: "Shadow Builds", verification_level: 4 });
    await link("shadow", { provider: "discord", provider_user_id: "80351110224678912" });
    const res = await badge("/badge/@shadow.svg?theme=light");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const svg = await res.text();
    expect(svg).toStartWith("<svg");
    expect(svg).toContain(">Shadow Builds<");
    expect(svg).toContain(">Average<");
    const banned = await entry({ provider: "discord", provider_user_id: "80351110224678912" });
    expect(await (await badge("/badge/shadow")).text()).toContain(">Banned<");
    await write("POST", `/v1/partner/blacklist/${banned.id}/overturn`);
    expect(await (await badge("/badge/shadow")).text()).toContain(">Average<");
  });

  test("themes differ; an unknown handle is a 200 Not Verified badge; markup stays text", async () => {
    await creator("themed");
    const dark = await (await badge("/badge/themed")).text();
    const light = await (await badge("/badge/themed?theme=light")).text();
    expect(dark).not.toBe(light);
    expect(await (await badge("/badge/themed?theme=neon")).text()).toBe(dark);
    const unknown = await badge("/badge/%3Cscript%3Ealert(1)%3C%2Fscript%3E.svg");
    expect(unknown.status).toBe(200);
    const text = await unknown.text();
    expect(text).toContain("Not Verified");
    // Markup cannot be a handle: the neutral badge does not repeat it.
    expect(text).not.toContain("script");
    await creator("marked", { display_name: '"><svg onload=alert(1)>' });
    const marked = await (await badge("/badge/marked")).text();
    expect(marked).toContain("&quot;&gt;&lt;svg onload=alert(1)&gt;");
    expect(marked.match(/<svg/g)).toHaveLength(1);
  });
});

describe("per-IP limits", () => {
  test("all /v1/public/* routes share one bucket per address: 429 with Retry-After when it is empty", async () => {
    const from = (path: string) => kit.t.json("GET", path, { headers: { "x-forwarded-for": "203.0.113.9" } });
    const paths = ["/v1/public/trust/x", "/v1/public/directory", "/v1/public/blacklist/check?q=x", "/v1/stats/public"];
    for (let i = 0; i < PUBLIC_IP_RULE.capacity; i++) expect((await from(paths[i % paths.length]!)).status).toBe(200);
    const refused = await from("/v1/public/resolve?username=x");
    expectEnvelope(refused, 429, "rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    expect((await kit.t.json("GET", "/v1/public/trust/x", { headers: { "x-forwarded-for": "203.0.113.10" } })).status).toBe(200);
    kit.t.clock.advance(1000);
    expect((await from("/v1/public/trust/x")).status).toBe(200);
  });

  test("the leaderboard has its own, smaller bucket", async () => {
    const from = () => kit.t.json("GET", "/referrals/leaderboard", { headers: { "x-forwarded-for": "203.0.113.11" } });
    for (let i = 0; i < LEADERBOARD_IP_RULE.capacity; i++) expect((await from()).status).toBe(200);
    const refused = await from();
    expectEnvelope(refused, 429, "rate_limited");
    expect(refused.headers.get("retry-after")).toBe("1");
  });

  test("the badge is not limited: pages embed many", async () => {
    for (let i = 0; i < PUBLIC_IP_RULE.capacity + 5; i++) {
      expect((await kit.t.call("GET", "/badge/x", { headers: { "x-forwarded-for": "203.0.113.12" } })).status).toBe(200);
    }
  });
});

describe("the directory index stays in step with the database", () => {
  test("renames, new links, score changes and another process's writes show on the next query", async () => {
    await creator("alpha", { display_name: "Crimson Forge" });
    await creator("bravo", { display_name: "Crimson Tide" });
    expect((await get("/v1/public/directory?q=crimson")).body.total).toBe(2);

    await creator("alpha", { display_name: "Azure Forge" });
    expect((await get("/v1/public/directory?q=crimson")).body.items.map((i: any) => i.handle)).toEqual(["bravo"]);
    expect((await get("/v1/public/directory?q=azure")).body.items.map((i: any) => i.handle)).toEqual(["alpha"]);

    await link("alpha", { provider: "twitch", provider_user_id: "31337", provider_username: "ForgeLive" });
    expect((await get("/v1/public/directory?q=forgelive&platform=twitch")).body.total).toBe(1);
    expect((await get("/v1/public/directory?q=forgelive&platform=roblox")).body.total).toBe(0);

    // Sort keys follow the score: a vouch puts bravo first by vouches and by trust.
    await write("POST", "/v1/partner/vouches", { from: "alpha", to: "bravo" });
    expect((await get("/v1/public/directory?q=forge%20tide&sort=vouches")).body.total).toBe(0);
    expect((await get("/v1/public/directory?sort=vouches&limit=1")).body.items.map((i: any) => i.handle)).toEqual(["bravo"]);
    await creator("charlie", { display_name: "Crimson Charlie" });
    expect((await get("/v1/public/directory?q=crimson&sort=trust")).body.items.map((i: any) => [i.handle, i.trust_score])).toEqual([
      ["bravo", 102],
      ["charlie", 100],
    ]);

    // Another connection writes directly, without saying what: seen without any call through the app.
    await writeAsAnotherProcess(
      kit.t.dbPath,
      "UPDATE creators SET display_name = 'Crimson Delta', search_text = 'charlie crimson delta' WHERE handle = 'charlie'",
    );
    await eventually(async () => {
      expect((await get("/v1/public/directory?q=crimson%20delta")).body.items.map((i: any) => i.handle)).toEqual(["charlie"]);
    });
  });
});
