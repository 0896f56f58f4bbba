// Keyless work stays bounded as the data grows: the directory lists at most the first 1000 rows of
// a query (deeper pages are 422, asking for a narrower query), and what is answered from memory
// (directory totals and filters, the referral leaderboard) is exact from the next request after
// any write, this process's or another's.
import { describe, expect, test } from "bun:test";
import { MAX_DIRECTORY_ROWS } from "../../src/modules/public/service";
import { eventually, writeAsAnotherProcess } from "../backend";
import { expectEnvelope } from "../helpers";
import { publicKit } from "../public-kit";

const kit = publicKit();
const { get, write, creator, link } = kit;
/** Another process's connection to the same database, writing plain SQL. */
const otherProcess = (sql: string, ...params: Array<string | number>) => writeAsAnotherProcess(kit.t.dbPath, sql, params);

describe("directory paging", () => {
  test(`page x limit past ${MAX_DIRECTORY_ROWS} is 422 asking for a narrower query; up to it pages answer`, async () => {
    await creator("maker");
    expect(MAX_DIRECTORY_ROWS).toBe(1000);
    for (const query of ["page=11&limit=100", "page=1000&limit=2", "page=42", "q=mak&page=11&limit=100", "platform=roblox&page=500&limit=3"]) {
      const res = await get(`/v1/public/directory?${query}`);
      expectEnvelope(res, 422, "unprocessable");
      expect(res.body.error.message, query).toContain("Narrow it with q or platform");
    }
    expectEnvelope(await get("/v1/public/directory?page=1001&limit=1"), 422, "unprocessable");
    for (const query of ["page=10&limit=100", "page=1000&limit=1", "page=41", "q=ma&page=40&limit=25"]) {
      const res = await get(`/v1/public/directory?${query}`);
      expect(res.status, query).toBe(200);
      expect(res.body).toMatchObject({ items: [], total: 1, has_more: false });
    }
    const spec = (await kit.t.json("GET", "/openapi.json")).body;
    expect(spec.paths["/v1/public/directory"].get.description).toContain("`page` x `limit` over 1000 is 422");
  });

  test("filters answered from memory count and page like the database: prefix, platform, both, after writes", async () => {
    for (const [handle, platform] of [["ab1", "roblox"], ["ab2", "discord"], ["ac3", "roblox"], ["zz4", null]] as const) {
      await creator(handle);
      if (platform) await link(handle, { provider: platform, provider_user_id: `${handle.charCodeAt(2)}${handle.length}`, provider_username: `${handle}_u` });
    }
    const handles = async (query: string) => (await get(`/v1/public/directory?${query}`)).body.items.map((i: any) => i.handle).sort();
    expect(await handles("q=a")).toEqual(["ab1", "ab2", "ac3"]);
    expect(await handles("q=ab")).toEqual(["ab1", "ab2"]);
    expect(await handles("platform=roblox")).toEqual(["ab1", "ac3"]);
    expect(await handles("q=ab&platform=roblox")).toEqual(["ab1"]);
    expect((await get("/v1/public/directory")).body.total).toBe(4);
    // A private link does not put a creator on its platform.
    await link("zz4", { provider: "roblox", provider_user_id: "999", provider_username: "hidden_u", public: false });
    expect(await handles("platform=roblox")).toEqual(["ab1", "ac3"]);
    // This process's writes and another process's show on the next query.
    await creator("ab5");
    await link("ab5", { provider: "roblox", provider_user_id: "555" });
    expect(await handles("q=ab&platform=roblox")).toEqual(["ab1", "ab5"]);
    await otherProcess(
      "INSERT INTO creators (id, handle, verification_level, karma, joined_at, created_at, updated_at, trust_computed_at, search_text, platforms) VALUES ('crt_other', 'ab6', 0, 0, 0, 0, 0, 0, 'ab6', 'roblox')",
    );
    await eventually(async () => expect(await handles("q=ab&platform=roblox")).toEqual(["ab1", "ab5", "ab6"]));
    // The order follows score changes too: a vouch puts ac3 first among roblox creators by vouches.
    expect((await get("/v1/public/directory?platform=roblox&sort=vouches&limit=1")).body.items[0].handle).not.toBe("ac3");
    await write("POST", "/v1/partner/vouches", { from: "zz4", to: "ac3" });
    expect((await get("/v1/public/directory?platform=roblox&sort=vouches&limit=1")).body.items[0].handle).toBe("ac3");
    const everyone = (await get("/v1/public/directory?sort=trust&limit=2&page=3")).body;
    expect(everyone).toMatchObject({ total: 6, total_pages: 3, page_size: 2, has_more: false });
  });
});

describe("referral leaderboard", () => {
  test("held in memory, it is exact on the next request after a referral, from this process or another", async () => {
    for (const h of ["alice", "bob", "r1", "r2", "r3"]) await creator(h);
    await write("POST", "/v1/partner/referrals", { referrer: "bob", referred: "r1" });
    const board = async (period = "all") => (await get(`/referrals/leaderboard?period=${period}`)).body.leaders.map((l: any) => [l.rank, l.handle, l.count]);
    expect(await board()).toEqual([[1, "bob", 1]]);
    expect(await board()).toEqual([[1, "bob", 1]]);
    await write("POST", "/v1/partner/referrals", { referrer: "alice", referred: "r2" });
    expect(await board()).toEqual([
      [1, "alice", 1],
      [1, "bob", 1],
    ]);
    const idOf = async (handle: string) => (await kit.t.services.creators.find(handle))!.id;
    await otherProcess("INSERT INTO referrals (referred_id, referrer_id, created_at) VALUES ($1, $2, $3)", await idOf("r3"), await idOf("alice"), kit.t.clock.now());
    expect(await board()).toEqual([
      [1, "alice", 2],
      [2, "bob", 1],
    ]);
    expect(await board("month")).toEqual([
      [1, "alice", 2],
      [2, "bob", 1],
    ]);
  });
});
