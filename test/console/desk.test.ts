// The moderators' desk and the admin pages, checked against what the API then answers: a case
// worked and decided in the console answers keyed checks, with evidence shown from the staff-only
// route; an appeal filed and decided in the console overturns its entry and shows its note to
// whoever filed it; an overturn from the entries page; staff roles and account members managed by
// an admin; and every change is in the audit log under the staff member who made it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { formActions, noticeOf, page, PNG_1x1, post, type World, world } from "./setup";

let w: World;
let bot: string;

beforeAll(async () => {
  w = await world();
  bot = (await w.t.account({ scope: "read" })).key;
});

afterAll(() => w.t.close());

const check = async (id: string) => (await w.t.json("GET", `/v1/blacklist/check?provider=discord&id=${id}`, { key: bot })).body;

async function reportAbout(id: string, description: string, reporter = "plain"): Promise<{ id: string; case_id: string }> {
  const res = await w.t.json("POST", "/v1/reports", { headers: { cookie: w.cookies[reporter]! }, body: { subject: { provider: "discord", id }, reason_code: "scam_trade", description } });
  expect(res.status).toBe(201);
  return res.body;
}

describe("cases", () => {
  test("worked by triage, decided by a moderator in the console, the subject answers keyed checks as banned", async () => {
    const subject = "100000000000000101";
    const report = await reportAbout(subject, "Took my limiteds and blocked me.");
    const upload = await w.t.app.handle(
      new Request(`http://localhost/v1/reports/${report.id}/evidence`, { method: "POST", headers: { cookie: w.cookies.plain!, "content-type": "image/png", origin: w.t.origin }, body: PNG_1x1 }),
    );
    expect(upload.status).toBe(201);
    const evidenceId = ((await upload.json()) as { id: string }).id;
    const path = `/console/cases/${report.case_id}`;

    // The queue lists it; the case shows the report, its reporter's standing and the image inline.
    expect((await page(w, "triager", "/console/cases")).text).toContain(`href="${path}"`);
    const shown = (await page(w, "triager", path)).text;
    expect(shown).toContain("Took my limiteds and blocked me.");
    expect(shown).toContain(`<img src="/v1/moderation/evidence/${evidenceId}"`);
    expect(shown).toContain("filed 1, upheld 0, dismissed 0");
    // The image's route is staff-only: staff get the file, its reporter does not.
    const image = await w.t.call("GET", `/v1/moderation/evidence/${evidenceId}`, { headers: { cookie: w.cookies.triager! } });
    expect(image.status).toBe(200);
    expect(new Uint8Array(await image.arrayBuffer())).toEqual(new Uint8Array(PNG_1x1));
    expect((await w.t.call("GET", `/v1/moderation/evidence/${evidenceId}`, { headers: { cookie: w.cookies.plain! } })).status).toBe(403);

    // Triage comments, assigns and escalates.
    expect((await post(w, "triager", `${path}/comment`, { body: "Asked the reporter for the trade log." })).headers.get("location")).toBe(`${path}?done=case-commented`);
    expect((await post(w, "triager", `${path}/assign`, { handle: "@mod" })).status).toBe(303);
    expect((await post(w, "triager", `${path}/escalate`)).status).toBe(303);
    const worked = await w.t.services.moderation.cases.view(report.case_id);
    expect(worked).toMatchObject({ status: "escalated", assignee: "mod" });
    expect(worked.comments.map((c) => [c.author, c.body])).toEqual([["staff:triager", "Asked the reporter for the trade log."]]);

    // A moderator decides, marking the image public.
    const decided = await post(w, "mod", `${path}/decide`, {
      severity: "ban",
      scope: "global",
      vertical: "all",
      reason_code: "scam_trade",
      summary: "Took items in a trade and never paid.",
      private_note: "Trade log confirmed.",
      appealable: "true",
      public_evidence: evidenceId,
    });
    expect(decided.status, noticeOf(decided.text) ?? "").toBe(303);
    const verdict = await check(subject);
    expect(verdict).toMatchObject({ banned: true });
    const entryId = (await w.t.services.moderation.cases.view(report.case_id)).entry_id!;
    expect((await w.t.json("GET", `/v1/blacklist/entries/${entryId}/evidence`, { key: bot })).body.data.map((e: { id: string }) => e.id)).toEqual([evidenceId]);
    const closed = (await page(w, "mod", `${path}?done=case-decided`)).text;
    expect(noticeOf(closed)).toContain("case closed");
    expect(closed).toContain(entryId);
    expect(formActions(closed).filter((a) => a.startsWith(path) && !a.endsWith("/comment"))).toEqual([]);
    // The history names who did what.
    const history = await w.t.services.audit.ofCase(report.case_id);
    const actions = history.map((e) => `${e.actor.kind}:${e.actor.id} ${e.action}`);
    for (const expected of ["staff:triager case.commented", "staff:triager case.assigned", "staff:triager case.escalated", "staff:mod case.decided"]) expect(actions).toContain(expected);
  });

  test("a moderator dismisses one case, watchlists another and mutes a reporter", async () => {
    const dismissed = await reportAbout("100000000000000102", "Spam report.");
    expect((await post(w, "mod", `/console/cases/${dismissed.case_id}/dismiss`, { reason: "No evidence." })).status).toBe(303);
    expect((await w.t.services.moderation.cases.view(dismissed.case_id)).outcome).toBe("dismissed");

    const watched = await reportAbout("100000000000000103", "Rumoured scammer.");
    expect((await post(w, "mod", `/console/cases/${watched.case_id}/watchlist`, { summary: "Unconfirmed reports of scams." })).status).toBe(303);
    expect(await check("100000000000000103")).toMatchObject({ banned: false });

    const muting = await reportAbout("100000000000000104", "Another one.", "evil");
    const kase = await w.t.services.moderation.cases.view(muting.case_id);
    const mute = formActions((await page(w, "mod", `/console/cases/${muting.case_id}`)).text).find((a) => a.includes("/mute"))!;
    expect(mute).toBe(`/console/reporters/${encodeURIComponent(kase.reports[0]!.reporter.id)}/mute?case=${muting.case_id}`);
    expect((await post(w, "mod", mute)).headers.get("location")).toBe(`/console/cases/${muting.case_id}?done=reporter-muted`);
    const later = await reportAbout("100000000000000105", "After the mute.", "evil");
    expect((await w.t.services.moderation.cases.view(later.case_id)).muted).toBe(true);
  });

  test("a decision the service refuses is a page saying why, and the case stays open", async () => {
    const report = await reportAbout("100000000000000106", "Bad decision ahead.");
    const res = await post(w, "mod", `/console/cases/${report.case_id}/decide`, { severity: "ban", reason_code: "scam_trade", summary: "x", expires_at: "not a time", appealable: "true" });
    expect(res.status).toBe(422);
    expect(noticeOf(res.text)).toBeTruthy();
    expect((await w.t.services.moderation.cases.view(report.case_id)).status).toBe("open");
  });
});

describe("appeals and entries", () => {
  test("an appeal filed in the console and removed by a moderator overturns the entry; the appellant reads the note", async () => {
    await w.write("POST", "/v1/partner/creators/plain/connections", { provider: "discord", provider_user_id: "100000000000000201", provider_username: "plain_dc" });
    const entry = await w.write("POST", "/v1/partner/blacklist", { provider: "discord", provider_user_id: "100000000000000201", severity: "ban", reason_code: "scam_trade", appealable: true });
    await w.write("POST", "/v1/partner/creators/plain/connections", { provider: "discord", provider_user_id: "100000000000000202", provider_username: "plain_alt", public: false });
    await w.write("POST", "/v1/partner/blacklist", { provider: "discord", provider_user_id: "100000000000000202", severity: "warn", reason_code: "spam", appealable: false });
    // The page lists the entries naming plain (through a linked account, or by handle), with a way to appeal the appealable ones.
    const listed = (await page(w, "plain", "/console/appeals")).text;
    expect(listed).toContain(`href="/console/appeals?entry=${entry.id}#file-title"`);
    expect(listed).toContain("<code>100000000000000202</code>");
    expect(listed).toContain("not appealable");
    const prefilled = (await page(w, "plain", `/console/appeals?entry=${entry.id}`)).text;
    expect(prefilled).toContain(`name="entry_id" required maxlength="64" value="${entry.id}"`);
    const filed = await post(w, "plain", "/console/appeals", { entry_id: entry.id, statement: "I delivered; here is the log." });
    expect(filed.headers.get("location")).toBe("/console/appeals?done=appeal-filed");
    const [appeal] = (await w.t.json("GET", "/v1/me/appeals", { headers: { cookie: w.cookies.plain! } })).body.data;
    expect(appeal).toMatchObject({ entry_id: entry.id, status: "open" });
    expect((await page(w, "plain", "/console/appeals")).text).toContain("appeal open");

    expect((await page(w, "triager", "/console/staff/appeals")).text).toContain("I delivered; here is the log.");
    expect(formActions((await page(w, "triager", "/console/staff/appeals")).text).some((a) => a.endsWith("/decide"))).toBe(false);
    expect((await post(w, "triager", `/console/staff/appeals/${appeal.id}/decide`, { outcome: "removed", note: "x" })).status).toBe(403);

    const decided = await post(w, "mod", `/console/staff/appeals/${appeal.id}/decide`, { outcome: "removed", note: "The log shows delivery." });
    expect(decided.status).toBe(303);
    expect(await check("100000000000000201")).toMatchObject({ banned: false });
    const mine = (await page(w, "plain", "/console/appeals")).text;
    expect(mine).toContain("<strong>removed</strong>");
    expect(mine).toContain("The log shows delivery.");
  });

  test("a moderator overturns an entry found by its subject; a triager sees the entry but no overturn", async () => {
    const entry = await w.write("POST", "/v1/partner/blacklist", { provider: "discord", provider_user_id: "100000000000000301", severity: "restrict", reason_code: "chargeback" });
    const path = "/console/entries?provider=discord&id=100000000000000301";
    const triage = (await page(w, "triager", path)).text;
    expect(triage).toContain(entry.id);
    expect(formActions(triage)).not.toContain(`/console/entries/${entry.id}/overturn`);
    const res = await post(w, "mod", `/console/entries/${entry.id}/overturn`, { reason: "Refunded." });
    expect(res.headers.get("location")).toBe("/console/entries?provider=discord&id=100000000000000301&done=entry-overturned");
    expect((await w.t.services.blacklist.entryRow(entry.id))).toMatchObject({ status: "overturned", overturnReason: "Refunded." });
    const events = await w.t.services.audit.list({ entry: entry.id });
    expect(events.data[0]).toMatchObject({ action: "entry.overturned", actor: { kind: "staff", id: "mod" } });
    // The audit page shows it, filtered by actor.
    expect((await page(w, "mod", "/console/audit?actor=staff:mod&action=entry.overturned")).text).toContain(entry.id);
  });
});

describe("tripwires", () => {
  test("armed, told where alerts go, and deleted in the console, as /v1/me/tripwires reads them", async () => {
    const api = async () => (await w.t.json("GET", "/v1/me/tripwires", { headers: { cookie: w.cookies.dev! } })).body;
    expect((await post(w, "dev", "/console/tripwires", { who: "@plain", triggers: ["blacklisted", "trust_drop"] })).status).toBe(303);
    const [wire] = (await api()).tripwires;
    expect(wire).toMatchObject({ who: "@plain", triggers: ["blacklisted", "trust_drop"] });
    expect((await post(w, "dev", "/console/tripwires/preferences", { email: "dev@example.org" })).headers.get("location")).toBe("/console/tripwires?done=preferences-saved");
    expect((await api()).preferences).toEqual({ discord_webhook_url: null, email: "dev@example.org" });
    const refused = await post(w, "dev", "/console/tripwires/preferences", { discord_webhook_url: "https://example.org/not-discord" });
    expect(refused.status).toBe(422);
    expect((await api()).preferences.email).toBe("dev@example.org");
    expect((await post(w, "dev", `/console/tripwires/${wire.id}/delete`)).status).toBe(303);
    expect((await api()).tripwires).toEqual([]);
    // Another person's wire is not theirs to delete.
    await post(w, "plain", "/console/tripwires", { who: "@dev" });
    const [theirs] = (await w.t.json("GET", "/v1/me/tripwires", { headers: { cookie: w.cookies.plain! } })).body.tripwires;
    expect((await post(w, "dev", `/console/tripwires/${theirs.id}/delete`)).status).toBe(404);
  });
});

describe("admin", () => {
  test("an admin grants and revokes staff roles; the audit names them", async () => {
    expect((await post(w, "boss", "/console/admin/staff", { handle: "@Plain", role: "triage" })).headers.get("location")).toBe("/console/admin/staff?done=staff-granted");
    expect(await w.t.services.staff.roleOf((await w.t.services.creators.find("plain"))!.id)).toBe("triage");
    expect((await page(w, "plain", "/console/cases")).status).toBe(200);
    expect((await post(w, "boss", "/console/admin/staff/plain/revoke")).status).toBe(303);
    expect((await page(w, "plain", "/console/cases")).status).toBe(403);
    const events = await w.t.services.audit.list({ subject: "creator:plain" });
    expect(events.data.slice(0, 2).map((e) => `${e.actor.id} ${e.action}`)).toEqual(["boss staff.revoked", "boss staff.granted"]);
    // An unknown creator is a page saying so.
    const unknown = await post(w, "boss", "/console/admin/staff", { handle: "nobody_here", role: "admin" });
    expect(unknown.status).toBe(404);
  });

  test("an admin adds a member, who then manages the account; removed, they may not", async () => {
    const path = `/console/admin/accounts/${w.guild.id}/members`;
    expect((await post(w, "boss", path, { handle: "evil", role: "owner" })).headers.get("location")).toBe("/console/admin/accounts?done=member-added");
    expect(await w.members.list("guild")).toContainEqual(expect.objectContaining({ handle: "evil", role: "owner" }));
    expect((await page(w, "evil", `/console/accounts/${w.guild.id}`)).status).toBe(200);
    expect((await post(w, "boss", `${path}/evil/remove`)).status).toBe(303);
    expect((await page(w, "evil", `/console/accounts/${w.guild.id}`)).status).toBe(403);
    expect((await post(w, "boss", path, { handle: "evil", role: "admin" })).status).toBe(422);
    // Each change is in the audit log under the admin who made it.
    const events = await w.t.services.audit.list({ subject: "creator:evil", actor: "staff:boss" });
    expect(events.data.map((e) => [e.action, e.details])).toEqual([
      ["account.member_removed", { account_id: w.guild.id, account: "guild", handle: "evil" }],
      ["account.member_added", { account_id: w.guild.id, account: "guild", handle: "evil", role: "owner", previous: null }],
    ]);
  });
});
