// What the public pages and the keyless answers say about appeals and bans: a confirmed hit says
// whether its entry may be appealed (and the check page says how), only for appealable entries; a
// blacklisted creator's profile says how to appeal when a ban naming them may be appealed; a banned
// creator's directory card (JSON and page) says banned, even when the ban names an account linked
// privately, which never appears. Nothing staff-only (private notes, who reported, the statement of
// an appeal) reaches any of them, and a granted appeal lifts the card's ban.
import { describe, expect, test } from "bun:test";
import { publicKit } from "../public-kit";

const kit = publicKit();
const { get, getText, creator, link, entry } = kit;

const APPEAL_TEXT = "This listing can be appealed.";
const PRIVATE_DISCORD = "399999999999999999";

/** The check page's results section, without the directory below it. */
const resultsOf = (text: string) => text.slice(text.indexOf('id="results"'), text.indexOf('id="directory"'));
const cardOf = (text: string, handle: string) => {
  const start = text.indexOf(`<a href="/u/${handle}">`);
  return text.slice(start, text.indexOf("</li>\n", text.indexOf('class="facts"', start)));
};

describe("the keyless check and the check page", () => {
  test("a confirmed hit says whether it may be appealed; the page says how only for an appealable one", async () => {
    await entry({ provider: "roblox", provider_user_id: "8880001", username: "OpenBanRBX", evidence: "PRIVATE NOTE" });
    await entry({ provider: "roblox", provider_user_id: "8880002", username: "FinalBanRBX", appealable: false });
    await entry({ provider: "roblox", provider_user_id: "8880003", username: "RestrictRBX", severity: "restrict" });
    await entry({ provider: "epic", provider_user_id: "epicrumour", username: "RumourEpic", severity: "warn", watchlist: true });

    const hitOf = async (q: string) => (await get(`/v1/public/blacklist/check?q=${q}`)).body.platforms[0];
    expect(await hitOf("OpenBanRBX")).toMatchObject({ banned: true, appealable: true });
    expect(await hitOf("FinalBanRBX")).toMatchObject({ banned: true, appealable: false });
    expect(await hitOf("RestrictRBX")).toMatchObject({ severity: "restrict", appealable: true });
    // A watchlist report is no entry of this service: nothing to appeal here.
    expect(await hitOf("RumourEpic")).not.toHaveProperty("appealable");

    const open = resultsOf((await getText("/?q=OpenBanRBX")).text);
    expect(open).toContain(APPEAL_TEXT);
    expect(open).toContain("<code>/appeal</code>");
    expect(open).toContain("<code>POST /v1/me/appeals</code>");
    expect(open).not.toContain("PRIVATE NOTE");
    expect(resultsOf((await getText("/?q=RestrictRBX")).text)).toContain(APPEAL_TEXT);
    expect(resultsOf((await getText("/?q=FinalBanRBX")).text)).not.toContain(APPEAL_TEXT);
    expect(resultsOf((await getText("/?q=RumourEpic")).text)).not.toContain(APPEAL_TEXT);
  });
});

describe("a blacklisted creator's profile", () => {
  test("says how to appeal when the ban naming them may be appealed, and shows no private account", async () => {
    await creator("hiddenhana");
    await link("hiddenhana", { provider: "discord", provider_user_id: PRIVATE_DISCORD, provider_username: "hana_alt", public: false });
    await entry({ provider: "discord", provider_user_id: PRIVATE_DISCORD, username: "hana_alt", evidence: "PRIVATE NOTE" });
    const page = (await getText("/u/hiddenhana")).text;
    expect(page).toContain("Blacklisted: a confirmed ban names this creator");
    expect(page).toContain(APPEAL_TEXT);
    for (const secret of [PRIVATE_DISCORD, "hana_alt", "PRIVATE NOTE"]) expect(page).not.toContain(secret);
  });

  test("says nothing of appeals when no ban naming them may be appealed, or when none names them", async () => {
    await creator("finalfred");
    await entry({ provider: "roblox", provider_user_id: "8880010", creator: "finalfred", appealable: false });
    const final = (await getText("/u/finalfred")).text;
    expect(final).toContain("Blacklisted: a confirmed ban names this creator");
    expect(final).not.toContain(APPEAL_TEXT);

    // A warning names her (it lowers the score, never shown): no ban, no banner, no appeal text.
    await creator("warnedwendy");
    await entry({ provider: "roblox", provider_user_id: "8880011", creator: "warnedwendy", severity: "warn" });
    const warned = (await getText("/u/warnedwendy")).text;
    expect(warned).not.toContain("Blacklisted");
    expect(warned).not.toContain(APPEAL_TEXT);
  });
});

describe("the directory card", () => {
  test("says banned in the JSON and on the page, through a private link too, which never appears", async () => {
    await creator("hiddenhana");
    await link("hiddenhana", { provider: "discord", provider_user_id: PRIVATE_DISCORD, provider_username: "hana_alt", public: false });
    await creator("cleancarl");
    await entry({ provider: "discord", provider_user_id: PRIVATE_DISCORD, username: "hana_alt" });

    const listing = await get("/v1/public/directory?limit=100");
    const byHandle = Object.fromEntries(listing.body.items.map((item: any) => [item.handle, item]));
    expect(byHandle.hiddenhana).toMatchObject({ blacklisted: true, trust_score: 0, platforms: [] });
    expect(byHandle.cleancarl.blacklisted).toBe(false);
    const filtered = await get("/v1/public/directory?q=hiddenhana");
    expect(filtered.body.items.map((i: any) => [i.handle, i.blacklisted])).toEqual([["hiddenhana", true]]);
    for (const body of [listing.body, filtered.body]) {
      expect(JSON.stringify(body)).not.toContain(PRIVATE_DISCORD);
      expect(JSON.stringify(body)).not.toContain("hana_alt");
    }

    const home = (await getText("/")).text;
    expect(cardOf(home, "hiddenhana")).toContain('<li class="state bad">Banned</li><li>Trust 0</li>');
    expect(cardOf(home, "cleancarl")).not.toContain("Banned");
    expect(home).not.toContain(PRIVATE_DISCORD);
    expect(home).not.toContain("hana_alt");
  });

  test("a granted appeal lifts the ban from the card, the profile and the check", async () => {
    await creator("rowan");
    await link("rowan", { provider: "discord", provider_user_id: "377777777777777777" });
    const ban = await entry({ provider: "discord", provider_user_id: "377777777777777777" });
    const bot = await kit.t.account({ scope: "write" });
    const appeal = await kit.t.json("POST", "/v1/partner/appeals", {
      key: bot.key,
      body: { entry_id: ban.id, provider: "discord", provider_user_id: "377777777777777777", statement: "STATEMENT: I delivered." },
    });
    expect(appeal.status).toBe(201);
    const profile = (await getText("/u/rowan")).text;
    expect(profile).toContain(APPEAL_TEXT);
    expect(profile).not.toContain("STATEMENT");
    expect((await get("/v1/public/directory?q=rowan")).body.items[0].blacklisted).toBe(true);

    const admin = await kit.t.account({ scope: "admin" });
    const decided = await kit.t.json("POST", `/v1/moderation/appeals/${appeal.body.id}/decide`, { key: admin.key, body: { outcome: "removed", note: "Delivered." } });
    expect(decided.status).toBe(200);

    expect((await get("/v1/public/directory?q=rowan")).body.items[0]).toMatchObject({ blacklisted: false, trust_score: expect.any(Number) });
    expect((await get("/v1/public/directory?q=rowan")).body.items[0].trust_score).toBeGreaterThan(0);
    const after = (await getText("/u/rowan")).text;
    expect(after).not.toContain("Blacklisted");
    expect(after).not.toContain(APPEAL_TEXT);
    expect(cardOf((await getText("/")).text, "rowan")).not.toContain("Banned");
    expect((await get("/v1/public/blacklist/check?q=377777777777777777")).body.platforms[0]).toMatchObject({ banned: false, severity: null });
  });
});
