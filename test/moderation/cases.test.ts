// Cases through real HTTP: the queue and its pages, a case whole, each action and who may take it,
// and a decision end to end: report, case, decision, an entry the keyed check answers, public
// evidence served safely, and the webhook a real receiver gets (with nothing of the case in it).
// Muting is visible to staff only.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { WebhookWorker } from "../../src/jobs/webhook-worker";
import { EVENT_TYPES } from "../../src/modules/outbox/service";
import { expectEnvelope } from "../helpers";
import { Receiver } from "../webhook-receiver";
import { as, fileReport, JPEG, PNG, reportAbout, sha256, upload, type World, world } from "./setup";

let w: World;
let receiver: Receiver;
let worker: WebhookWorker;
let secret: string;

beforeAll(async () => {
  // Real time on the clock: the webhook library refuses timestamps far from its own.
  w = await world({ config: { allowPrivateWebhooks: true, webhookRetryDelaysMs: [10, 10, 10] } });
  receiver = new Receiver();
  worker = new WebhookWorker(w.t.services.webhooks, w.t.clock, w.t.runtime.metrics, w.t.runtime.log, { pollMs: 10 });
  const pro = await w.t.account({ tier: "pro", burst: 10_000 });
  const hook = await w.t.json("POST", "/v1/webhooks", { key: pro.key, body: { url: receiver.url("/events"), events: [...EVENT_TYPES] } });
  expect(hook.status).toBe(201);
  secret = hook.body.secret;
});
afterAll(async () => {
  await worker.stop();
  receiver.stop();
  await w.t.close();
});

const act = (caseId: string, action: string, auth: object, body?: unknown) => w.t.json("POST", `/v1/moderation/cases/${caseId}/${action}`, { ...auth, body });
const key = () => ({ key: w.adminKey });

describe("a decision, end to end", () => {
  test("report -> case -> decide: the entry answers keyed checks, chosen evidence is public, the webhook carries nothing of the case", async () => {
    const subject = "700000000000000001";
    const first = await fileReport(w, reportAbout(subject, { reporter: { provider: "discord", id: "710000000000000001" }, description: "PRIVATE-DESCRIPTION-1" }));
    const second = await w.t.json("POST", "/v1/reports", { ...as(w, "alice"), body: reportAbout(subject, { description: "PRIVATE-DESCRIPTION-2" }) });
    expect(second.body.case_id).toBe(first.case_id);
    const shown = (await (await upload(w, first.id, PNG, "image/png")).json()) as any;
    const hidden = (await (await upload(w, second.body.id, JPEG, "image/jpeg", as(w, "alice"))).json()) as any;

    const comment = await act(first.case_id, "comment", as(w, "triager"), { body: "PRIVATE-COMMENT: second reporter is his rival." });
    expect(comment.status).toBe(200);
    expect(comment.body.id).toMatch(/^cmt_/);
    const decided = await act(first.case_id, "decide", as(w, "mod"), {
      severity: "ban",
      reason_code: "scam_trade",
      summary: "Took payment for maps and never delivered.",
      private_note: "PRIVATE-NOTE: confirmed with the marketplace.",
      appealable: true,
      public_evidence: [shown.id],
    });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ id: first.case_id, status: "closed", outcome: "decided", assignee: null });
    const entryId: string = decided.body.entry_id;
    expect(entryId).toMatch(/^bl_/);

    // The keyed check answers the entry.
    const check = await w.t.json("GET", `/v1/blacklist/check?provider=discord&id=${subject}`, { key: w.bot.key });
    expect(check.body).toMatchObject({ banned: true, severity: "ban", reason_code: "scam_trade", appealable: true });
    expect(JSON.stringify(check.body)).not.toContain("PRIVATE");

    // Public evidence: the chosen file only, served safely.
    const list = await w.t.json("GET", `/v1/blacklist/entries/${entryId}/evidence`, { key: w.bot.key });
    expect(list.body).toEqual({ data: [{ id: shown.id, sha256: sha256(PNG), bytes: PNG.length, content_type: "image/png" }] });
    const file = await w.t.call("GET", `/v1/blacklist/entries/${entryId}/evidence/${shown.id}`, { key: w.bot.key });
    expect(file.status).toBe(200);
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(PNG);
    expect(file.headers.get("content-disposition")).toBe(`attachment; filename="${shown.id}.png"`);
    expect(file.headers.get("x-content-type-options")).toBe("nosniff");
    expect(file.headers.get("content-security-policy")).toBe("sandbox; default-src 'none'");
    expectEnvelope(await w.t.json("GET", `/v1/blacklist/entries/${entryId}/evidence/${hidden.id}`, { key: w.bot.key }), 404, "not_found");
    expectEnvelope(await w.t.json("GET", `/v1/blacklist/entries/${entryId}/evidence/${shown.id}`), 401, "unauthorized");
    expectEnvelope(await w.t.json("GET", `/v1/blacklist/entries/${entryId}/evidence`), 401, "unauthorized");

    // The reporters read their outcome, nothing more.
    expect((await w.t.json("GET", `/v1/reports/${first.id}`, { key: w.bot.key })).body).toEqual({ id: first.id, status: "closed", outcome: "upheld", created_at: first.created_at });
    expect((await w.t.json("GET", `/v1/reports/${second.body.id}`, as(w, "alice"))).body.outcome).toBe("upheld");

    // Staff see it all: the entry with its private note, standing, and the history.
    const kase = (await w.t.json("GET", `/v1/moderation/cases/${first.case_id}`, as(w, "triager"))).body;
    expect(kase.entries).toEqual([expect.objectContaining({ id: entryId, status: "active", private_note: "PRIVATE-NOTE: confirmed with the marketplace.", supersedes: null })]);
    expect(kase.reports.map((r: any) => [r.outcome, r.standing.upheld, r.evidence.map((e: any) => e.public)])).toEqual([
      ["upheld", 1, [true]],
      ["upheld", 1, [false]],
    ]);
    expect(kase.comments).toEqual([{ id: comment.body.id, author: "staff:triager", body: "PRIVATE-COMMENT: second reporter is his rival.", created_at: expect.any(String) }]);
    expect(kase.history.map((e: any) => e.action)).toEqual(["case.opened", "report.filed", "report.filed", "evidence.added", "evidence.added", "case.commented", "entry.added", "case.decided"]);
    expect(kase.history.at(-1).actor).toEqual({ kind: "staff", id: "mod" });

    // The webhook: blacklist.added, signed, and nothing of the case.
    await worker.drain();
    const events = receiver.at("/events").map((r) => ({ raw: r.body, payload: Receiver.verify(secret, r) }));
    const added = events.find((e) => e.payload.type === "blacklist.added" && e.payload.data.id === entryId);
    expect(added?.payload.data).toMatchObject({ id: entryId, severity: "ban", reason_code: "scam_trade", summary: "Took payment for maps and never delivered." });
    for (const event of events) {
      for (const secretText of ["PRIVATE", "710000000000000001", w.bot.keyId, first.case_id, shown.id]) expect(event.raw).not.toContain(secretText);
    }

    // A closed case refuses every action.
    for (const [action, body] of [["comment", { body: "late" }], ["assign", { handle: null }], ["escalate", undefined], ["dismiss", { reason: "x" }], ["watchlist", { summary: "x" }]] as const) {
      expectEnvelope(await act(first.case_id, action, key(), body), 409, "conflict");
    }
    expectEnvelope(await act(first.case_id, "decide", key(), { severity: "warn", reason_code: "spam", summary: "again", appealable: true }), 409, "conflict");
    // A decided report takes no more files; staff still download every file; an unknown one is 404.
    expect((await upload(w, first.id, PNG, "image/png")).status).toBe(409);
    expect((await w.t.call("GET", `/v1/moderation/evidence/${hidden.id}`, key())).status).toBe(200);
    expectEnvelope(await w.t.json("GET", "/v1/moderation/evidence/evd_01kdvdna009aqnt2ae7ejrkvaj", key()), 404, "not_found");

    // Once the entry no longer stands, its evidence is no longer served.
    await w.write("POST", `/v1/partner/blacklist/${entryId}/overturn`, { reason: "Appeal granted." });
    expectEnvelope(await w.t.json("GET", `/v1/blacklist/entries/${entryId}/evidence`, { key: w.bot.key }), 404, "not_found");
    expectEnvelope(await w.t.json("GET", `/v1/blacklist/entries/${entryId}/evidence/${shown.id}`, { key: w.bot.key }), 404, "not_found");
  });

  test("a decision that fails leaves the case open and no entry; bad input changes nothing", async () => {
    const report = await fileReport(w, reportAbout("700000000000000002"));
    const other = await fileReport(w, reportAbout("700000000000000003"));
    const foreign = (await (await upload(w, other.id, PNG, "image/png")).json()) as any;
    const base = { severity: "ban", reason_code: "scam_trade", summary: "Scam.", appealable: true };
    for (const body of [
      { ...base, public_evidence: [foreign.id] },
      { ...base, expires_at: "2001-01-01T00:00:00.000Z" },
      { ...base, scope: "global", vertical: "roblox" },
      { ...base, severity: "nuke" },
      { ...base, account: { provider: "discord", id: "1" } },
      { ...base, extra: 1 },
      { ...base, summary: "" },
    ]) {
      expect((await act(report.case_id, "decide", key(), body)).status, JSON.stringify(body)).toBe(422);
    }
    const restore = await w.t.failWrites("moderation_cases", "UPDATE");
    try {
      expect((await act(report.case_id, "decide", key(), base)).status).toBe(500);
    } finally {
      await restore();
    }
    expect((await w.t.rows("SELECT id FROM blacklist_entries WHERE provider_user_id = ?", "700000000000000002")).length).toBe(0);
    const kase = (await w.t.json("GET", `/v1/moderation/cases/${report.case_id}`, key())).body;
    expect([kase.status, kase.reports[0].status, kase.history.map((e: any) => e.action)]).toEqual(["open", "open", ["case.opened", "report.filed"]]);
  });

  test("a creator subject: the entry names the creator and one of their linked accounts (public first); none linked is 422", async () => {
    await w.write("PUT", "/v1/partner/creators/rugpuller", {});
    await w.write("POST", "/v1/partner/creators/rugpuller/connections", { provider: "discord", provider_user_id: "720000000000000001", public: false });
    await w.write("POST", "/v1/partner/creators/rugpuller/connections", { provider: "roblox", provider_user_id: "7200001" });
    const report = await fileReport(w, { subject: { handle: "rugpuller" }, reason_code: "scam_trade", description: "Rug pull." });
    expect((await act(report.case_id, "decide", key(), { severity: "ban", reason_code: "scam_trade", summary: "Rug pull.", appealable: true, account: { provider: "discord", id: "799999999999999999" } })).status).toBe(422);
    const decided = await act(report.case_id, "decide", key(), { severity: "restrict", reason_code: "scam_trade", summary: "Rug pull.", appealable: false });
    expect(decided.status).toBe(200);
    const entry = (await w.t.rows("SELECT provider, provider_user_id, creator_handle FROM blacklist_entries WHERE id = ?", decided.body.entry_id))[0];
    expect(entry).toEqual({ provider: "roblox", provider_user_id: "7200001", creator_handle: "rugpuller" });

    await w.write("PUT", "/v1/partner/creators/unlinked", {});
    const lonely = await fileReport(w, { subject: { handle: "unlinked" }, reason_code: "spam", description: "Spam." });
    const refused = await act(lonely.case_id, "decide", key(), { severity: "warn", reason_code: "spam", summary: "Spam.", appealable: true });
    expectEnvelope(refused, 422, "unprocessable");
    expect(refused.body.error.message).toContain("no linked account");
    await w.write("POST", "/v1/partner/creators/unlinked/connections", { provider: "discord", provider_user_id: "730000000000000001", public: false });
    const chosen = await act(lonely.case_id, "decide", key(), { severity: "warn", reason_code: "spam", summary: "Spam.", appealable: true, account: { provider: "discord", id: "730000000000000001" } });
    expect(chosen.status).toBe(200);
  });
});

describe("the other actions", () => {
  test("assign to staff only, escalate once, dismiss: each recorded, the reports dismissed", async () => {
    const report = await fileReport(w, reportAbout("740000000000000001"));
    expectEnvelope(await act(report.case_id, "assign", as(w, "triager"), { handle: "plain" }), 422, "unprocessable");
    expectEnvelope(await act(report.case_id, "assign", as(w, "triager"), { handle: "nobody_at_all" }), 422, "unprocessable");
    expect((await act(report.case_id, "assign", as(w, "triager"), { handle: "mod" })).body).toMatchObject({ assignee: "mod", status: "open" });
    const mine = await w.t.json("GET", "/v1/moderation/cases?assignee=mod", as(w, "mod"));
    expect(mine.body.data.map((c: any) => c.id)).toEqual([report.case_id]);
    expect((await act(report.case_id, "escalate", as(w, "triager"))).body.status).toBe("escalated");
    expectEnvelope(await act(report.case_id, "escalate", as(w, "triager")), 409, "conflict");
    const escalated = await w.t.json("GET", "/v1/moderation/cases?status=escalated", key());
    expect(escalated.body.data.map((c: any) => [c.id, c.assignee, c.report_count])).toEqual([[report.case_id, "mod", 1]]);
    // A report on an escalated case joins it.
    expect((await fileReport(w, reportAbout("740000000000000001"))).case_id).toBe(report.case_id);
    expect((await act(report.case_id, "assign", as(w, "mod"), { handle: null })).body.assignee).toBeNull();
    const dismissed = await act(report.case_id, "dismiss", as(w, "mod"), { reason: "Not enough." });
    expect(dismissed.body).toMatchObject({ status: "closed", outcome: "dismissed", entry_id: null });
    const kase = (await w.t.json("GET", `/v1/moderation/cases/${report.case_id}`, key())).body;
    expect(kase.reports.map((r: any) => r.outcome)).toEqual(["dismissed", "dismissed"]);
    expect(kase.history.map((e: any) => e.action)).toEqual(["case.opened", "report.filed", "case.assigned", "case.escalated", "report.filed", "case.assigned", "case.dismissed"]);
    // The next report opens a new case.
    expect((await fileReport(w, reportAbout("740000000000000001"))).case_id).not.toBe(report.case_id);
  });

  test("watchlist: a hit that is never banned, off the public list", async () => {
    const report = await fileReport(w, reportAbout("750000000000000001"));
    const res = await act(report.case_id, "watchlist", as(w, "boss"), { summary: "Two unconfirmed reports of chargebacks." });
    expect(res.body).toMatchObject({ status: "closed", outcome: "watchlisted" });
    const check = await w.t.json("GET", "/v1/blacklist/check?provider=discord&id=750000000000000001", { key: w.bot.key });
    expect(check.body.banned).toBe(false);
    expect(check.body.watchlist).toBe(true);
    expectEnvelope(await w.t.json("GET", `/v1/blacklist/entries/${res.body.entry_id}/evidence`, { key: w.bot.key }), 404, "not_found");
    expect((await w.t.json("GET", `/v1/reports/${report.id}`, { key: w.bot.key })).body.outcome).toBe("watchlisted");
  });

  test("muting: later reports are accepted and closed as muted; the reporter cannot tell; staff can", async () => {
    const member = { provider: "discord", id: "760000000000000001" };
    const before = await fileReport(w, reportAbout("760000000000000099", { reporter: member }));
    expectEnvelope(await w.t.json("POST", "/v1/moderation/reporters/discord:760000000000000001/mute", as(w, "triager")), 403, "forbidden");
    expectEnvelope(await w.t.json("POST", "/v1/moderation/reporters/discord:769999999999999999/mute", key()), 404, "not_found");
    const muted = await w.t.json("POST", "/v1/moderation/reporters/discord:760000000000000001/mute", as(w, "mod"));
    expect(muted.body).toEqual({ reporter: "discord:760000000000000001", muted: true, muted_at: expect.any(String) });
    expect((await w.t.json("POST", "/v1/moderation/reporters/discord:760000000000000001/mute", key())).body).toEqual(muted.body);
    expect((await w.t.rows("SELECT id FROM audit_events WHERE action = 'reporter.muted'")).length).toBe(1);

    const res = await w.t.json("POST", "/v1/reports", { key: w.bot.key, body: reportAbout("760000000000000002", { reporter: member }) });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["case_id", "created_at", "id", "status"]);
    expect(res.body.status).toBe("open");
    const view = await w.t.json("GET", `/v1/reports/${res.body.id}`, { key: w.bot.key });
    expect(view.body).toEqual({ id: res.body.id, status: "open", created_at: res.body.created_at });
    expect((await upload(w, res.body.id, PNG, "image/png")).status).toBe(201);
    // The report before the mute is untouched; the muted case is closed and says so to staff.
    expect((await w.t.json("GET", `/v1/reports/${before.id}`, { key: w.bot.key })).body.status).toBe("open");
    const kase = (await w.t.json("GET", `/v1/moderation/cases/${res.body.case_id}`, key())).body;
    expect([kase.status, kase.outcome, kase.muted, kase.reports[0].outcome]).toEqual(["closed", "muted", true, "muted"]);
    expect((await w.t.json("GET", "/v1/moderation/cases?status=open", key())).body.data.some((c: any) => c.id === res.body.case_id)).toBe(false);
  });
});

describe("the queue", () => {
  test("pages oldest first with a cursor tied to its status; a tampered cursor is 400", async () => {
    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await w.t.json("GET", `/v1/moderation/cases?status=open&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, key());
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      all.push(...page.body.data.map((c: any) => c.created_at + c.id));
      cursor = page.body.next_cursor;
      expect(page.body.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(all.length).toBeGreaterThanOrEqual(4);
    expect([...all].sort()).toEqual(all);
    expect(new Set(all).size).toBe(all.length);
    const first = await w.t.json("GET", "/v1/moderation/cases?status=open&limit=1", key());
    expectEnvelope(await w.t.json("GET", `/v1/moderation/cases?status=closed&cursor=${encodeURIComponent(first.body.next_cursor)}`, key()), 400, "invalid_cursor");
    expectEnvelope(await w.t.json("GET", `/v1/moderation/cases?cursor=${encodeURIComponent(`${first.body.next_cursor}x`)}`, key()), 400, "invalid_cursor");
    expect((await w.t.json("GET", "/v1/moderation/cases?status=bogus", key())).status).toBe(422);
    expect((await w.t.json("GET", "/v1/moderation/cases?limit=0", key())).status).toBe(422);
    expectEnvelope(await w.t.json("GET", "/v1/moderation/cases/case_01kdvdna009aqnt2ae7ejrkvaj", key()), 404, "not_found");
  });
});

describe("who may", () => {
  test("the roles matrix over every moderation route", async () => {
    const report = await fileReport(w, reportAbout("780000000000000001", { reporter: { provider: "discord", id: "780000000000000002" } }));
    const evd = (await (await upload(w, report.id, PNG, "image/png")).json()) as any;
    const readKey = (await w.t.account({ scope: "read" })).key;
    const writeKey = (await w.t.account({ scope: "write" })).key;
    const who: Record<string, object> = {
      none: {},
      read: { key: readKey },
      write: { key: writeKey },
      plain: as(w, "plain"),
      triage: as(w, "triager"),
      moderator: as(w, "mod"),
      admin: as(w, "boss"),
      adminKey: key(),
    };
    // A request each caller may make without changing the case (422 is past the guard: allowed).
    const triageRoutes: Array<[string, string, unknown]> = [
      ["GET", "/v1/moderation/cases", undefined],
      ["GET", `/v1/moderation/cases/${report.case_id}`, undefined],
      ["GET", `/v1/moderation/evidence/${evd.id}`, undefined],
      ["POST", `/v1/moderation/cases/${report.case_id}/comment`, { body: "" }],
      ["POST", `/v1/moderation/cases/${report.case_id}/assign`, { handle: "plain" }],
      ["POST", "/v1/moderation/cases/case_01kdvdna009aqnt2ae7ejrkvaj/escalate", undefined],
    ];
    const moderatorRoutes: Array<[string, string, unknown]> = [
      ["POST", `/v1/moderation/cases/${report.case_id}/dismiss`, { reason: "" }],
      ["POST", `/v1/moderation/cases/${report.case_id}/decide`, { severity: "ban" }],
      ["POST", `/v1/moderation/cases/${report.case_id}/watchlist`, { summary: "" }],
      ["POST", "/v1/moderation/reporters/nobody:1/mute", undefined],
    ];
    const allowed = (status: number) => status !== 401 && status !== 403;
    // Sessions and keyless calls share one per-IP bucket: each caller starts with it refilled.
    const refill = () => w.t.clock.advance(10_000);
    for (const [name, auth] of Object.entries(who)) {
      refill();
      for (const [method, path, body] of [...triageRoutes, ...moderatorRoutes]) {
        const res = await w.t.call(method, path, { ...auth, body });
        const expected = name === "none" ? 401 : ["read", "write", "plain"].includes(name) ? 403 : name === "triage" && moderatorRoutes.some((r) => r[1] === path) ? 403 : null;
        if (expected === null) expect(allowed(res.status), `${name} ${method} ${path}: ${res.status}`).toBe(true);
        else expect(res.status, `${name} ${method} ${path}`).toBe(expected);
      }
    }
    // Reports and public evidence: any key or a session; never nobody.
    refill();
    for (const [name, auth] of Object.entries(who)) {
      const res = await w.t.json("GET", `/v1/reports/${report.id}`, auth);
      expect(res.status, name).toBe(name === "none" ? 401 : 404);
      const list = await w.t.json("GET", "/v1/blacklist/entries/bl_01kdvdna009aqnt2ae7ejrkvaj/evidence", auth);
      expect(list.status, name).toBe(name === "none" || !("key" in auth) ? 401 : 404);
    }
    // Nothing changed: the case is as filed, with no comment.
    const kase = (await w.t.json("GET", `/v1/moderation/cases/${report.case_id}`, key())).body;
    expect([kase.status, kase.assignee, kase.comments]).toEqual(["open", null, []]);
  });

  test("a staff session's write from another origin is 403 and changes nothing", async () => {
    w.t.clock.advance(10_000);
    const report = await fileReport(w, reportAbout("790000000000000001"));
    const res = await w.t.json("POST", `/v1/moderation/cases/${report.case_id}/dismiss`, { headers: { cookie: w.cookies.mod!, origin: "https://evil.example" }, body: { reason: "x" } });
    expectEnvelope(res, 403, "forbidden");
    expect((await w.t.json("GET", `/v1/moderation/cases/${report.case_id}`, key())).body.status).toBe("open");
  });

  test("nothing of a case reaches a keyless route", async () => {
    const paths = ["/v1/public/blacklist/check?provider=discord&id=700000000000000001", "/v1/public/stats", "/v1/public/search?q=rugpuller", "/u/rugpuller", "/v1/public/trust/rugpuller"];
    for (const path of paths) {
      const res = await w.t.call("GET", path);
      const text = await res.text();
      for (const secretText of ["PRIVATE", "710000000000000001", "rpt_", "case_", "evd_", "Rug pull."]) expect(text, `${path} ${secretText}`).not.toContain(secretText);
    }
  });
});
