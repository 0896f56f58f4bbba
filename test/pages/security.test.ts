// The public pages keep the keyless rules (docs/api.md, "Privacy of keyless answers"): a
// privately linked account and an unconfirmed report's username never show unless the visitor
// typed them; hostile names and summaries render as text; and pages spend the same per-IP bucket
// as /v1/public/*.
import { beforeEach, describe, expect, test } from "bun:test";
import { PUBLIC_IP_RULE } from "../../src/http/limits";
import { publicKit } from "../public-kit";

const kit = publicKit();
const { write, creator, link, entry } = kit;
const HOSTILE = `<img src=x onerror="alert(1)">`;

async function page(path: string, ip = `10.8.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`) {
  const res = await kit.t.call("GET", path, { headers: { "x-forwarded-for": ip } });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe("privacy", () => {
  const PRIVATE = /alice-secret-alt|alice_alt|RumouredEpic|epicwatch/i;

  beforeEach(async () => {
    await creator("alice", { display_name: "Alice Makes", verification_level: 2 });
    await link("alice", { provider: "discord", provider_user_id: "4242", provider_username: "alice_dc", verified_at: "2026-01-01T00:00:00Z" });
    await link("alice", { provider: "github", provider_user_id: "alice-secret-alt", provider_username: "alice_alt", provider_url: "https://github.com/alice-secret-alt", public: false });
    // The ban names alice through her private account.
    await entry({ provider: "github", provider_user_id: "alice-secret-alt", username: "alice_alt", creator: "alice" });
    // An unconfirmed report: its username is not a public name.
    await entry({ provider: "epic", provider_user_id: "epicwatch", username: "RumouredEpic", severity: "warn", watchlist: true });
  });

  test("the profile shows the public account and the ban, never the private account", async () => {
    const res = await page("/u/alice");
    expect(res.status).toBe(200);
    expect(res.text).toContain("alice_dc");
    expect(res.text).toContain("Blacklisted");
    expect(res.text).toContain("<dt>Public linked accounts</dt><dd>1</dd>");
    expect(res.text).not.toMatch(PRIVATE);
  });

  test("the home page, its directory and searches for the creator never show them", async () => {
    for (const path of ["/", "/?filter=alice", "/?platform=github", "/?q=alice", "/?q=4242", "/?q=alice_dc", "/?q=Alice%20Makes", "/?q=alice_alx", "/?q=RumouredEpix"]) {
      const res = await page(path);
      expect(res.status, path).toBe(200);
      expect(res.text, path).not.toMatch(PRIVATE);
    }
    // Searching the creator shows its ban as the profile's, not through the private account.
    expect((await page("/?q=alice")).text).toContain('<a href="/u/alice">@alice</a>');
  });

  test("an account the visitor names itself answers, as the keyless search does", async () => {
    const res = await page("/?q=RumouredEpic");
    expect(res.text).toContain("Unconfirmed report, not a ban.");
  });
});

describe("hostile text", () => {
  beforeEach(async () => {
    await creator("xss_creator", { display_name: HOSTILE });
    await creator("friend");
    await write("POST", "/v1/partner/vouches", { from: "friend", to: "xss_creator", message: HOSTILE });
    await write("POST", "/v1/partner/vouches", { from: "xss_creator", to: "friend" });
    await link("xss_creator", { provider: "roblox", provider_user_id: "31337", provider_username: HOSTILE, verified_at: "2026-01-01T00:00:00Z" });
    await entry({ provider: "roblox", provider_user_id: "7770001", username: HOSTILE, summary: `Scammed buyers ${HOSTILE}` });
  });

  const ESCAPED = "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;";

  test.each([
    ["the profile", "/u/xss_creator"],
    ["a voucher's profile", "/u/friend"],
    ["the directory", "/"],
    ["a search by the hostile name", `/?q=${encodeURIComponent(HOSTILE)}`],
    ["a search by the entry's id", "/?q=7770001"],
    ["a search by the creator", "/?q=xss_creator"],
    ["an unknown handle", `/u/${encodeURIComponent(HOSTILE)}`],
  ])("%s renders it as text", async (_what, path) => {
    const res = await page(path);
    expect(res.status).toBeLessThan(500);
    expect(res.text).not.toContain("<img src=x");
    expect(res.text).not.toContain('onerror="');
    expect(res.text).toContain(ESCAPED);
  });
});

describe("the per-IP bucket", () => {
  test("pages and /v1/public/* spend one bucket; a spent bucket is a 429 page with Retry-After", async () => {
    const ip = "10.77.0.1";
    const before = await page("/", ip);
    expect(Number(before.headers.get("x-ratelimit-remaining"))).toBe(PUBLIC_IP_RULE.capacity - 1);
    const api = await kit.get("/v1/public/directory", ip);
    expect(Number(api.headers.get("x-ratelimit-remaining"))).toBe(PUBLIC_IP_RULE.capacity - 2);
    for (let i = 2; i < PUBLIC_IP_RULE.capacity; i++) await kit.get("/v1/stats/public", ip);
    const refused = await page("/u/anyone", ip);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(refused.headers.get("cache-control")).toBe("no-store");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(refused.text).toContain("Too many requests");
    // Another address is not affected.
    expect((await page("/", "10.77.0.2")).status).toBe(200);
  });
});
