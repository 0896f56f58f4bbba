// After the whole moderation record exists (a bot's report relayed for a member, a creator's report,
// evidence files public and not, staff comments, a decision with a private note, a muted reporter,
// an appeal with its statement), nothing of it but the decision's public face reaches a keyless
// answer, a page, a webhook payload or a non-staff key: every keyless GET route of the OpenAPI
// document is swept (the test fails when a keyless route is added and not visited), then the
// pages and every delivered event. Last, the whole record survives export and import: the second
// instance's staff read the same case, appeal and audit log.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ManualClock } from "../../src/clock";
import { WebhookWorker } from "../../src/jobs/webhook-worker";
import { TransferService } from "../../src/modules/transfer/service";
import { as, fileReport, PNG, upload, type World, world } from "../moderation/setup";
import { createTestApp, type TestApp } from "../helpers";
import { Receiver } from "../webhook-receiver";

const MEMBER = "111122223333444455";
const MUTED_MEMBER = "999988887777666655";
const SUBJECT = "80351110224678912";
const SECRET_TEXT = {
  description: "desc-marker-7Qx: he sent the trade link from his alt",
  creatorReport: "creator-report-marker-Kp2",
  comment: "comment-marker-Zt9: matches the 2025 ring",
  privateNote: "private-note-marker-Hh4",
  statement: "statement-marker-Vb1: I was hacked",
  mutedReport: "muted-marker-Rr5",
};
const PRIVATE_FILE = new TextEncoder().encode("private-file-marker-Ww3: chat log with the victim's address");

let w: World;
let receiver: Receiver;
let worker: WebhookWorker;
let entryId: string;
let caseId: string;
let appealId: string;
let privateEvidence: { id: string; sha256: string };
let publicEvidence: { id: string; sha256: string };

/** Every text of moderation that must stay with staff. */
function forbiddenIn(text: string): string[] {
  const found = Object.values(SECRET_TEXT).filter((marker) => text.includes(marker));
  for (const marker of [MEMBER, MUTED_MEMBER, privateEvidence.id, privateEvidence.sha256, caseId, "private-file-marker"]) if (text.includes(marker)) found.push(marker);
  return found;
}

beforeAll(async () => {
  // Real time on the clock: the webhook library refuses timestamps far from its own.
  w = await world({ config: { allowPrivateWebhooks: true, webhookRetryDelaysMs: [10, 10, 10] } });
  const { t } = w;
  receiver = new Receiver();
  worker = new WebhookWorker(t.services.webhooks, t.clock, t.runtime.metrics, t.runtime.log, { pollMs: 10 });
  const hooks = await t.account({ tier: "pro", scope: "read" });
  const endpoint = await t.json("POST", "/v1/webhooks", { key: hooks.key, body: { url: receiver.url("/all"), events: ["blacklist.added", "blacklist.overturned", "creator.blacklisted"] } });
  expect(endpoint.status).toBe(201);

  // A creator whose Discord account is linked privately: the decision names the account, the
  // keyless answers may name the creator as blacklisted but never the account.
  await w.write("PUT", "/v1/partner/creators/shadybuilds", { display_name: "Shady Builds" });
  await w.write("POST", "/v1/partner/creators/shadybuilds/connections", { provider: "discord", provider_user_id: SUBJECT, provider_username: "ShadyDiscord", public: false });

  const relayed = await fileReport(w, { subject: { provider: "discord", id: SUBJECT }, reason_code: "scam_trade", description: SECRET_TEXT.description, reporter: { provider: "discord", id: MEMBER } });
  caseId = relayed.case_id;
  const secretUpload = await upload(w, relayed.id, PRIVATE_FILE, "text/plain");
  expect(secretUpload.status).toBe(201);
  privateEvidence = (await secretUpload.json()) as typeof privateEvidence;
  const shownUpload = await upload(w, relayed.id, PNG, "image/png");
  publicEvidence = (await shownUpload.json()) as typeof publicEvidence;
  const fromCreator = await t.json("POST", "/v1/reports", { ...as(w, "alice"), body: { subject: { provider: "discord", id: SUBJECT }, reason_code: "scam_trade", description: SECRET_TEXT.creatorReport } });
  expect(fromCreator.status).toBe(201);

  // A reporter muted after a first report: the second is closed at once, unseen.
  const first = await fileReport(w, { subject: { provider: "roblox", id: "1234567" }, reason_code: "spam", description: "first", reporter: { provider: "discord", id: MUTED_MEMBER } });
  expect((await t.json("POST", `/v1/moderation/reporters/discord:${MUTED_MEMBER}/mute`, as(w, "mod"))).status).toBe(200);
  await fileReport(w, { subject: { provider: "roblox", id: "7654321" }, reason_code: "spam", description: SECRET_TEXT.mutedReport, reporter: { provider: "discord", id: MUTED_MEMBER } });
  expect(first.case_id).toBeDefined();

  expect((await t.json("POST", `/v1/moderation/cases/${caseId}/comment`, { ...as(w, "triager"), body: { body: SECRET_TEXT.comment } })).status).toBe(200);
  const decided = await t.json("POST", `/v1/moderation/cases/${caseId}/decide`, {
    ...as(w, "mod"),
    body: { severity: "ban", reason_code: "scam_trade", summary: "Took payment, never delivered", private_note: SECRET_TEXT.privateNote, appealable: true, public_evidence: [publicEvidence.id] },
  });
  expect(decided.status, JSON.stringify(decided.body)).toBe(200);
  entryId = decided.body.entry_id ?? decided.body.entry?.id;
  expect(entryId).toStartWith("bl_");

  const writer = await t.account({ scope: "write" });
  const appeal = await t.json("POST", "/v1/partner/appeals", { key: writer.key, body: { entry_id: entryId, provider: "discord", provider_user_id: SUBJECT, statement: SECRET_TEXT.statement } });
  expect(appeal.status, JSON.stringify(appeal.body)).toBe(201);
  appealId = appeal.body.id;
  const downgrade = await t.json("POST", `/v1/moderation/appeals/${appealId}/decide`, { ...as(w, "mod"), body: { outcome: "downgraded", severity: "restrict", note: "Lowered: first offence" } });
  expect(downgrade.status, JSON.stringify(downgrade.body)).toBe(200);

  await worker.drain();
});

afterAll(async () => {
  await worker.stop();
  receiver.stop();
  await w.t.close();
});

describe("nothing of moderation but its public face leaves through", () => {
  test("every keyless GET route of the OpenAPI document, asked about the subject every way", async () => {
    const { t } = w;
    const doc = (await t.json("GET", "/openapi.json")).body;
    const keyless: string[] = [];
    for (const [path, operations] of Object.entries<any>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        if (method === "get" && Array.isArray(operation.security) && operation.security.length === 0) keyless.push(path);
      }
    }
    const askedAbout: Record<string, string[]> = {
      "/v1/public/blacklist/check": [`?q=${SUBJECT}`, "?q=ShadyDiscord", "?q=shadybuilds", `?q=discord:${MEMBER}`, `?q=${MEMBER}`],
      "/v1/public/resolve": [`?provider=discord&id=${SUBJECT}`, "?username=shadybuilds", `?provider=discord&id=${MEMBER}`],
      "/v1/public/directory": ["", "?q=shady", "?sort=trust"],
      "/v1/public/users/{handle}/vouches": [""],
      "/v1/public/trust/{handle}": [""],
      "/badge/{handle}": ["", "?theme=dark"],
    };
    const visited = new Set<string>();
    for (const path of keyless) {
      const concrete = path.replace("{handle}", "shadybuilds").replace("{slug}", "scam-safety-basics");
      for (const query of askedAbout[path] ?? [""]) {
        const res = await t.call("GET", concrete + query);
        expect(res.status, `${path}${query}`).toBeLessThan(500);
        // An answer may echo what it was asked (a member's id in `q`); nothing else of the record.
        const text = (await res.text()).replaceAll(decodeURIComponent(query.replace(/^\?[a-z]+=/, "")), "");
        expect(forbiddenIn(text), `${path}${query}`).toEqual([]);
        visited.add(path);
      }
    }
    expect([...visited].sort()).toEqual([...new Set(keyless)].sort());
    // The public face is there: the creator shows blacklisted, the hit says it may be appealed.
    const hit = (await t.json("GET", `/v1/public/blacklist/check?q=${SUBJECT}`)).body;
    expect(JSON.stringify(hit)).toContain("restrict");
  });

  test("the pages and the embed scripts", async () => {
    for (const path of ["/", `/?q=${SUBJECT}`, "/?q=shadybuilds", "/u/shadybuilds", "/u/alice", "/widget.js", "/widget/trust.js"]) {
      const res = await w.t.call("GET", path);
      expect(res.status, path).toBeLessThan(500);
      expect(forbiddenIn(await res.text()), path).toEqual([]);
    }
  });

  test("every webhook payload delivered for the decision and the downgrade", async () => {
    const delivered = receiver.at("/all");
    const types = delivered.map((r) => JSON.parse(r.body).type);
    expect(types).toContain("blacklist.added");
    expect(types).toContain("blacklist.overturned");
    expect(types).toContain("creator.blacklisted");
    for (const request of delivered) expect(forbiddenIn(request.body), request.body).toEqual([]);
    // The privately linked account is not tied to the creator in the announcement.
    const announced = delivered.map((r) => JSON.parse(r.body)).find((e) => e.type === "creator.blacklisted");
    expect(announced.data.entry_id).toBeNull();
  });

  test("a key that is not staff reads the public evidence only, and nothing of the case", async () => {
    const { t } = w;
    const reader = await t.account({ scope: "read" });
    const superseding = (await t.json("GET", `/v1/blacklist/check?provider=discord&id=${SUBJECT}`, { key: reader.key })).body;
    expect(forbiddenIn(JSON.stringify(superseding))).toEqual([]);
    expect((await t.call("GET", `/v1/moderation/cases/${caseId}`, { key: reader.key })).status).toBe(403);
    expect((await t.call("GET", `/v1/moderation/evidence/${privateEvidence.id}`, { key: reader.key })).status).toBe(403);
    expect((await t.call("GET", `/v1/admin/audit?entry=${entryId}`, { key: reader.key })).status).toBe(403);
    // The downgraded entry is overturned, so its evidence went with it; nobody but staff reads files.
    expect((await t.call("GET", `/v1/blacklist/entries/${entryId}/evidence/${privateEvidence.id}`, { key: reader.key })).status).toBe(404);
  });
});

describe("the whole record travels", () => {
  let copy: TestApp;
  afterAll(() => copy?.close());

  test("export, import into an empty instance: staff read the same case, appeal and audit log", async () => {
    const lines: string[] = [];
    await new TransferService(w.t.runtime.store, w.t.services, w.t.clock).exportAll((line) => {
      lines.push(line);
    });
    copy = await createTestApp({ clock: new ManualClock(w.t.clock.now()) });
    const file = join(copy.dir, "export.jsonl");
    writeFileSync(file, lines.join("\n") + "\n");
    await new TransferService(copy.runtime.store, copy.services, copy.clock).importFile(file);
    const key = (await copy.account({ scope: "admin" })).key;
    const original = (path: string) => w.t.json("GET", path, { key: w.adminKey });
    const restored = (path: string) => copy.json("GET", path, { key });
    for (const path of [`/v1/moderation/cases/${caseId}`, `/v1/moderation/appeals/${appealId}`, "/v1/admin/audit?limit=200"]) {
      const [a, b] = await Promise.all([original(path), restored(path)]);
      expect(b.status, path).toBe(200);
      expect(b.body, path).toEqual(a.body);
    }
    for (const evidence of [publicEvidence, privateEvidence]) {
      const file = await copy.call("GET", `/v1/moderation/evidence/${evidence.id}`, { key });
      expect(file.status).toBe(200);
      expect(new Bun.CryptoHasher("sha256").update(new Uint8Array(await file.arrayBuffer())).digest("hex")).toBe(evidence.sha256);
    }
  });
});
