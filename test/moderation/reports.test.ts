// Reports and their evidence through real HTTP: filing by a bot (for a member or for itself) and by
// a signed-in creator, grouping into one case per subject, the hourly limit, the reporter's own
// view (and nobody else's), and evidence files checked by their leading bytes, bounded, counted,
// stored and read back byte for byte.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectEnvelope } from "../helpers";
import { as, fileReport, HTML, JPEG, PNG, reportAbout, sha256, upload, type World, world } from "./setup";

let w: World;

beforeAll(async () => {
  w = await world();
});
afterAll(() => w.t.close());

const count = async (table: string) => (await w.t.rows<{ n: number }>(`SELECT CAST(count(*) AS INTEGER) AS n FROM ${table}`))[0]!.n;

describe("filing", () => {
  test("a bot relays a member's report: 201 with the receipt; a second report on the subject joins its case", async () => {
    const res = await w.t.json("POST", "/v1/reports", { key: w.bot.key, body: reportAbout("100000000000000001", { reporter: { provider: "discord", id: "200000000000000001" }, evidence_urls: ["https://example.org/proof.png"] }) });
    expect(res.status).toBe(201);
    const caseId: string = res.body.case_id;
    expect(Object.keys(res.body).sort()).toEqual(["case_id", "created_at", "id", "status"]);
    expect(res.body.status).toBe("open");
    expect(res.body.id).toMatch(/^rpt_/);
    expect(caseId).toMatch(/^case_/);
    const second = await fileReport(w, reportAbout(" 100000000000000001 "));
    expect(second.case_id).toBe(caseId);
    const kase = await w.t.json("GET", `/v1/moderation/cases/${res.body.case_id}`, { key: w.adminKey });
    expect(kase.body.subject).toEqual({ key: "discord:100000000000000001", provider: "discord", id: "100000000000000001", username: null, handle: null });
    expect(kase.body.reports.map((r: any) => r.reporter)).toEqual([
      { kind: "member", id: "discord:200000000000000001" },
      { kind: "key", id: w.bot.keyId },
    ]);
    expect(kase.body.reports[0].evidence_urls).toEqual(["https://example.org/proof.png"]);
    const audit = await w.t.services.audit.list({ subject: "discord:100000000000000001" });
    expect(audit.data.map((e) => e.action).reverse()).toEqual(["case.opened", "report.filed", "report.filed"]);
  });

  test("a signed-in creator reports a creator by handle; the case shows the reporter's handle", async () => {
    await w.write("PUT", "/v1/partner/creators/shadyseller", {});
    const res = await w.t.json("POST", "/v1/reports", { ...as(w, "alice"), body: { subject: { handle: "@ShadySeller" }, reason_code: "scam_trade", description: "Sold me a stolen map." } });
    expect(res.status).toBe(201);
    const kase = await w.t.json("GET", `/v1/moderation/cases/${res.body.case_id}`, { key: w.adminKey });
    expect(kase.body.subject).toMatchObject({ key: "creator:shadyseller", handle: "shadyseller" });
    expect(kase.body.reports[0].reporter).toEqual({ kind: "creator", id: expect.stringMatching(/^crt_/), handle: "alice" });
    expect(kase.body.reports[0].standing).toEqual({ filed: 1, upheld: 0, dismissed: 0 });
  });

  test("bad input is refused with a clear error and stores nothing", async () => {
    const before = [await count("moderation_reports"), await count("moderation_cases")];
    const bad: Array<[unknown, number, { key?: string; headers?: Record<string, string> }?]> = [
      [reportAbout("100000000000000009", { description: "" }), 422],
      [reportAbout("100000000000000009", { description: "x".repeat(4001) }), 422],
      [reportAbout("100000000000000009", { description: " \u0000\u0007 " }), 422],
      [reportAbout("100000000000000009", { evidence_urls: Array.from({ length: 11 }, (_, i) => `https://example.org/${i}`) }), 422],
      [reportAbout("100000000000000009", { evidence_urls: ["http://example.org/a"] }), 422],
      [reportAbout("100000000000000009", { evidence_urls: ["javascript:alert(1)"] }), 422],
      [reportAbout("not-digits"), 422],
      [{ ...reportAbout("100000000000000009"), subject: { provider: "myspace", id: "1" } }, 422],
      [reportAbout("100000000000000009", { reporter: { provider: "discord", id: "abc" } }), 422],
      [reportAbout("100000000000000009", { extra: true }), 422],
      [{ subject: { handle: "nobody_here" }, reason_code: "scam_trade", description: "x" }, 404],
      [{ ...reportAbout("100000000000000009"), reason_code: "Not A Code!" }, 422],
      [reportAbout("100000000000000009", { reporter: { provider: "discord", id: "200000000000000001" } }), 422, as(w, "alice")],
    ];
    for (const [body, status, auth] of bad) {
      const res = await w.t.json("POST", "/v1/reports", { ...(auth ?? { key: w.bot.key }), body });
      expect(res.status, JSON.stringify(body).slice(0, 120)).toBe(status);
      expect(res.body.error.code).toBe(status === 404 ? "not_found" : "unprocessable");
    }
    expectEnvelope(await w.t.json("POST", "/v1/reports", { key: w.bot.key, body: "{not json" }), 400, "invalid_request");
    expect([await count("moderation_reports"), await count("moderation_cases")]).toEqual(before);
  });

  test("no key and no session is 401; a session's write from another origin is 403", async () => {
    expectEnvelope(await w.t.json("POST", "/v1/reports", { body: reportAbout("100000000000000002") }), 401, "unauthorized");
    expectEnvelope(await w.t.json("POST", "/v1/reports", { headers: { cookie: w.cookies.alice!, origin: "https://evil.example" }, body: reportAbout("100000000000000002") }), 403, "forbidden");
  });
});

describe("the hourly limit", () => {
  test("the 21st report in an hour from one account is 429 with Retry-After, whichever of its keys sends it; an hour later it is accepted", async () => {
    const bot = await w.t.account({ scope: "read", burst: 10_000 });
    const other = await w.t.services.accounts.createKey({ account: bot.accountId, scope: "write", rate_tier: "free", burst: 10_000 });
    for (let i = 0; i < 20; i++) {
      await fileReport(w, reportAbout(String(300000000000000000 + i)), i % 2 ? other.key : bot.key);
      w.t.clock.advance(60_000);
    }
    const refused = await w.t.json("POST", "/v1/reports", { key: other.key, body: reportAbout("300000000000000099") });
    expectEnvelope(refused, 429, "rate_limited");
    // The oldest of the 20 was filed 20 minutes ago: it leaves the window in 40 minutes.
    expect(Number(refused.headers.get("retry-after"))).toBe(40 * 60);
    expect((await w.t.rows("SELECT id FROM moderation_reports WHERE reporter_id = ?", "300000000000000099")).length).toBe(0);
    w.t.clock.advance(40 * 60_000);
    await fileReport(w, reportAbout("300000000000000099"), bot.key);
  });

  test("a signed-in creator is limited on their own", async () => {
    await w.write("PUT", "/v1/partner/creators/eager", {});
    const { signIn } = await import("../helpers");
    const eager = { headers: { cookie: await signIn(w.t, "eager") } };
    for (let i = 0; i < 20; i++) expect((await w.t.json("POST", "/v1/reports", { ...eager, body: reportAbout(String(400000000000000000 + i)) })).status).toBe(201);
    expectEnvelope(await w.t.json("POST", "/v1/reports", { ...eager, body: reportAbout("400000000000000099") }), 429, "rate_limited");
    // Other reporters are not held back by it.
    await fileReport(w, reportAbout("400000000000000099"));
  });
});

describe("a reporter reads its own report only", () => {
  test("the filing account's keys and the filing creator read status; anyone else gets 404", async () => {
    const report = await fileReport(w, reportAbout("500000000000000001"));
    const own = await w.t.json("GET", `/v1/reports/${report.id}`, { key: w.bot.key });
    expect(own.status).toBe(200);
    expect(own.body).toEqual({ id: report.id, status: "open", created_at: report.created_at });
    expect((await w.t.json("GET", `/v1/reports/${report.id}`, { key: w.bot.sibling })).body).toEqual(own.body);
    const stranger = await w.t.account({ scope: "admin" });
    expectEnvelope(await w.t.json("GET", `/v1/reports/${report.id}`, { key: stranger.key }), 404, "not_found");
    expectEnvelope(await w.t.json("GET", `/v1/reports/${report.id}`, as(w, "alice")), 404, "not_found");
    expectEnvelope(await w.t.json("GET", `/v1/reports/${report.id}`), 401, "unauthorized");

    const mine = await w.t.json("POST", "/v1/reports", { ...as(w, "alice"), body: reportAbout("500000000000000002") });
    expect((await w.t.json("GET", `/v1/reports/${mine.body.id}`, as(w, "alice"))).body.status).toBe("open");
    expectEnvelope(await w.t.json("GET", `/v1/reports/${mine.body.id}`, as(w, "plain")), 404, "not_found");
    expectEnvelope(await w.t.json("GET", `/v1/reports/${mine.body.id}`, { key: w.bot.key }), 404, "not_found");
    expectEnvelope(await w.t.json("GET", "/v1/reports/rpt_01kdvdna009aqnt2ae7ejrkvaj", { key: w.bot.key }), 404, "not_found");
  });

  test("the reporter never sees staff notes: a dismissed report shows its outcome and nothing else", async () => {
    const report = await fileReport(w, reportAbout("500000000000000003"));
    expect((await w.t.json("POST", `/v1/moderation/cases/${report.case_id}/comment`, { key: w.adminKey, body: { body: "Reporter seems to hold a grudge." } })).status).toBe(200);
    expect((await w.t.json("POST", `/v1/moderation/cases/${report.case_id}/dismiss`, { key: w.adminKey, body: { reason: "No proof of payment." } })).status).toBe(200);
    const seen = await w.t.json("GET", `/v1/reports/${report.id}`, { key: w.bot.key });
    expect(seen.body).toEqual({ id: report.id, status: "closed", outcome: "dismissed", created_at: report.created_at });
    expect(JSON.stringify(seen.body)).not.toContain("grudge");
    expect(JSON.stringify(seen.body)).not.toContain("proof");
  });
});

describe("evidence files", () => {
  test("a PNG round-trips byte for byte with its SHA-256; staff download it as an attachment that is never sniffed or run", async () => {
    const report = await fileReport(w, reportAbout("600000000000000001"));
    const res = await upload(w, report.id, PNG, "image/png");
    expect(res.status).toBe(201);
    const receipt = (await res.json()) as any;
    expect(receipt).toEqual({ id: expect.stringMatching(/^evd_/), sha256: sha256(PNG), bytes: PNG.length, content_type: "image/png" });
    const file = await w.t.call("GET", `/v1/moderation/evidence/${receipt.id}`, { key: w.adminKey });
    expect(file.status).toBe(200);
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(PNG);
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(file.headers.get("content-disposition")).toBe(`attachment; filename="${receipt.id}.png"`);
    expect(file.headers.get("x-content-type-options")).toBe("nosniff");
    expect(file.headers.get("content-security-policy")).toBe("sandbox; default-src 'none'");
    expect(file.headers.get("x-request-id")).toBeTruthy();
    const kase = await w.t.json("GET", `/v1/moderation/cases/${report.case_id}`, { key: w.adminKey });
    expect(kase.body.reports[0].evidence).toEqual([{ ...receipt, public: false }]);
    expect((await w.t.rows("SELECT action FROM audit_events WHERE case_id = ? AND action = 'evidence.added'", report.case_id)).length).toBe(1);
  });

  test("text, JPEG, GIF, WEBP and PDF pass when their bytes agree; a signed-in creator uploads to their own report", async () => {
    const report = await fileReport(w, reportAbout("600000000000000002"));
    const files: Array<[Uint8Array, string]> = [
      [new TextEncoder().encode("Chat log:\n<buyer> paid 40 USD\n"), "text/plain; charset=utf-8"],
      [JPEG, "image/jpeg"],
      [new TextEncoder().encode("GIF89a\u0001\u0000"), "image/gif"],
      [new Uint8Array([...new TextEncoder().encode("RIFF"), 4, 0, 0, 0, ...new TextEncoder().encode("WEBPVP8 ")]), "image/webp"],
      [new TextEncoder().encode("%PDF-1.7\n%\u00e2\u00e3"), "application/pdf"],
    ];
    for (const [bytes, type] of files) {
      const res = await upload(w, report.id, bytes, type);
      expect(res.status, type).toBe(201);
      expect(((await res.json()) as any).sha256).toBe(sha256(bytes));
    }
    const mine = await w.t.json("POST", "/v1/reports", { ...as(w, "alice"), body: reportAbout("600000000000000003") });
    expect((await upload(w, mine.body.id, PNG, "image/png", as(w, "alice"))).status).toBe(201);
  });

  test("HTML sent as an image or as text is 415, as is a type the bytes deny or one not taken; nothing is stored", async () => {
    const report = await fileReport(w, reportAbout("600000000000000004"));
    const before = await count("moderation_evidence");
    const refused: Array<[Uint8Array, string]> = [
      [HTML, "image/png"],
      [HTML, "text/plain"],
      [new TextEncoder().encode("  \n<html><body>hi</body></html>"), "text/plain"],
      [new TextEncoder().encode("<script>alert(1)</script>"), "text/plain"],
      [new TextEncoder().encode('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>'), "text/plain"],
      [new TextEncoder().encode("<svg onload=alert(1)>"), "image/gif"],
      [JPEG, "image/png"],
      [PNG, "text/plain"],
      [new Uint8Array([0x61, 0x00, 0x62]), "text/plain"],
      [new Uint8Array([0xc3, 0x28]), "text/plain"],
      [new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2]), "text/plain"],
      [PNG, "image/svg+xml"],
      [PNG, "application/octet-stream"],
      [new TextEncoder().encode('{"a":1}'), "application/json"],
      [PNG, ""],
    ];
    for (const [bytes, type] of refused) {
      const res = await upload(w, report.id, bytes, type);
      const body = (await res.json()) as any;
      expect(res.status, `${type}: ${JSON.stringify(body)}`).toBe(415);
      expect(body.error.code).toBe("unsupported_media_type");
    }
    expect((await upload(w, report.id, new Uint8Array(0), "image/png")).status).toBe(422);
    expect(await count("moderation_evidence")).toBe(before);
  });

  test("a file over 8 MiB is 413 whether or not it declares its length; 8 MiB exactly is taken", async () => {
    const report = await fileReport(w, reportAbout("600000000000000005"));
    const big = new Uint8Array(8 * 1024 * 1024 + 1);
    big.set(PNG);
    const declared = await upload(w, report.id, big, "image/png");
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as any).error.code).toBe("payload_too_large");
    const streamed = await w.t.app.handle(
      new Request(`http://localhost/v1/reports/${report.id}/evidence`, {
        method: "POST",
        headers: { authorization: `Bearer ${w.bot.key}`, "content-type": "image/png" },
        body: new ReadableStream({
          start(controller) {
            for (let i = 0; i < 9; i++) controller.enqueue(i === 0 ? big.subarray(0, 1024 * 1024) : new Uint8Array(1024 * 1024));
            controller.close();
          },
        }),
      }),
    );
    expect(streamed.status).toBe(413);
    const exact = big.subarray(0, 8 * 1024 * 1024);
    const taken = await upload(w, report.id, exact, "image/png");
    expect(taken.status).toBe(201);
    expect(((await taken.json()) as any).bytes).toBe(8 * 1024 * 1024);
  });

  test("the eleventh file of a report is 409; only its reporter may upload (404 for anyone else, 401 for nobody)", async () => {
    const report = await fileReport(w, reportAbout("600000000000000006"));
    for (let i = 0; i < 10; i++) expect((await upload(w, report.id, PNG, "image/png")).status).toBe(201);
    const eleventh = await upload(w, report.id, PNG, "image/png");
    expect(eleventh.status).toBe(409);
    expect(((await eleventh.json()) as any).error.code).toBe("conflict");
    const other = await fileReport(w, reportAbout("600000000000000007"));
    const stranger = await w.t.account({ scope: "read" });
    expect((await upload(w, other.id, PNG, "image/png", { key: stranger.key })).status).toBe(404);
    expect((await upload(w, other.id, PNG, "image/png", as(w, "alice"))).status).toBe(404);
    expect((await upload(w, other.id, PNG, "image/png", {})).status).toBe(401);
    expect((await upload(w, other.id, PNG, "image/png", { key: w.bot.sibling })).status).toBe(201);
  });
});
