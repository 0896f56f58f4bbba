// The moderation record travels with an export: staff roles, cases, reports, evidence files
// (bytes and all), comments, muted reporters, appeals and every audit event, whole and unchanged,
// plus an entry's `supersedes`. Export, import into an empty database of the same backend, export
// again: the same lines; and the audit route answers the restored events as they were.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { insertRow } from "../../src/db/records";
import { appeals } from "../../src/modules/appeals/tables";
import { moderationCases, moderationComments, moderationEvidence, moderationMutes, moderationReports } from "../../src/modules/moderation/tables";
import { TransferService } from "../../src/modules/transfer/service";
import { createTestApp, partnerWriter, type TestApp } from "../helpers";

let source: TestApp;
let target: TestApp;
const FILE_BYTES = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from(Array.from({ length: 300 }, (_, i) => i % 256))]);

async function exported(t: TestApp): Promise<string[]> {
  const lines: string[] = [];
  await new TransferService(t.runtime.store, t.services, t.clock).exportAll((line) => {
    lines.push(line);
  });
  return lines;
}

beforeAll(async () => {
  source = await createTestApp();
  target = await createTestApp();
  const write = await partnerWriter(source);
  const admin = (await source.account({ scope: "admin" })).key;
  await write("PUT", "/v1/partner/creators/alicemod", { display_name: "Alice" });
  expect((await source.json("PUT", "/v1/admin/staff/alicemod", { key: admin, body: { role: "moderator" } })).status).toBe(200);
  const old = await write("POST", "/v1/partner/blacklist", { provider: "discord", provider_user_id: "80351110224678912", severity: "ban", reason_code: "scam" });
  await write("POST", `/v1/partner/blacklist/${old.id}/overturn`, { reason: "downgraded" });
  const actor = { kind: "staff" as const, id: "alicemod" };
  const replacement = await source.services.blacklist.add(
    { provider: "discord", provider_user_id: "80351110224678912", severity: "warn", reason_code: "scam", supersedes: old.id },
    actor,
  );
  const now = source.clock.now();
  const db = source.runtime.store;
  await insertRow(db, moderationCases, { id: "case_1", status: "closed", subjectKey: "discord:80351110224678912", provider: "discord", providerUserId: "80351110224678912", username: null, creatorHandle: null, assigneeId: null, muted: false, outcome: "decided", entryId: old.id, createdAt: now, updatedAt: now, closedAt: now });
  await insertRow(db, moderationReports, { id: "rpt_1", caseId: "case_1", reasonCode: "scam", description: "He took my Robux", evidenceUrls: JSON.stringify(["https://example.org/shot.png"]), reporterKind: "member", reporterId: "discord:111", filedBy: "acct_x", relayedBy: "key_x", status: "closed", outcome: "upheld", createdAt: now, closedAt: now });
  await insertRow(db, moderationEvidence, { id: "evd_1", reportId: "rpt_1", sha256: new Bun.CryptoHasher("sha256").update(FILE_BYTES).digest("hex"), bytes: FILE_BYTES.length, contentType: "image/png", data: FILE_BYTES, public: true, entryId: old.id, createdAt: now });
  await insertRow(db, moderationComments, { id: "cmt_1", caseId: "case_1", authorKind: "staff", authorId: "alicemod", body: "Private: matches the 2025 ring", createdAt: now });
  await insertRow(db, moderationMutes, { reporterId: "discord:999", mutedAt: now, mutedBy: "staff:alicemod" });
  await insertRow(db, appeals, { id: "apl_1", entryId: old.id, status: "decided", statement: "I paid back", filedByKind: "key", filedBy: "acct_x", relayedBy: "key_x", provider: "discord", providerUserId: "80351110224678912", outcome: "downgraded", note: "Lowered to a warning", severity: "warn", newEntryId: replacement.id, decidedBy: "staff:alicemod", createdAt: now, decidedAt: now });
});

afterAll(async () => {
  await source.close();
  await target.close();
});

test("export, import into an empty database and export again gives the same moderation lines", async () => {
  const first = await exported(source);
  const kinds = new Set(first.map((line) => JSON.parse(line).type));
  for (const kind of ["staff", "case", "report", "evidence", "comment", "mute", "appeal", "audit"]) expect(kinds.has(kind), kind).toBe(true);
  const evidence = JSON.parse(first.find((line) => line.includes('"type":"evidence"'))!);
  expect(Buffer.from(evidence.data, "base64").equals(FILE_BYTES)).toBe(true);
  expect(first.some((line) => JSON.parse(line).supersedes !== undefined)).toBe(true);

  const file = join(target.dir, "moderation.jsonl");
  writeFileSync(file, first.join("\n") + "\n");
  const summary = await new TransferService(target.runtime.store, target.services, target.clock).importFile(file);
  expect(summary.records).toBe(first.filter((line) => ["staff", "case", "report", "evidence", "comment", "mute", "appeal", "audit"].includes(JSON.parse(line).type)).length);
  expect(await exported(target)).toEqual(first);
  expect(readFileSync(file, "utf8")).toContain('"type":"audit"');

  // The restored log reads as the first one did, ids, times, actors and details unchanged.
  const key = (await target.account({ scope: "admin" })).key;
  const sourceKey = (await source.account({ scope: "admin" })).key;
  const restored = await target.json("GET", "/v1/admin/audit?limit=200", { key });
  const original = await source.json("GET", "/v1/admin/audit?limit=200", { key: sourceKey });
  expect(restored.body.data).toEqual(original.body.data);
  expect(restored.body.data.some((e: any) => e.action === "staff.granted")).toBe(true);
});

test("a record line with a wrong field fails the import at that line and writes nothing", async () => {
  const fresh = await createTestApp();
  try {
    const file = join(fresh.dir, "bad.jsonl");
    const lines = [
      { type: "audit", id: "aud_1", at: "2026-11-21T10:00:00.000Z", actor_kind: "cli", actor_id: "root", action: "entry.added", details: "{}" },
      { type: "audit", id: "aud_2", at: "yesterday", actor_kind: "cli", actor_id: "root", action: "entry.added", details: "{}" },
    ];
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const transfer = new TransferService(fresh.runtime.store, fresh.services, fresh.clock);
    await expect(transfer.importFile(file)).rejects.toThrow("line 2: audit.at must be an ISO 8601 time");
    writeFileSync(file, JSON.stringify({ type: "case", id: "case_9", status: "sideways" }) + "\n");
    await expect(transfer.importFile(file)).rejects.toThrow("line 1: case.status must be one of open, escalated, closed");
    writeFileSync(file, JSON.stringify({ type: "case", id: "case_9", status: "open" }) + "\n");
    await expect(transfer.importFile(file)).rejects.toThrow("line 1: case.subject_key is required");
    writeFileSync(file, JSON.stringify({ type: "mute", reporter_id: "x", muted_at: "2026-11-21T10:00:00Z", muted_by: "cli:root", extra: 1 }) + "\n");
    await expect(transfer.importFile(file)).rejects.toThrow("line 1: mute: unknown field 'extra'");
    expect(await exported(fresh)).toEqual([]);
  } finally {
    await fresh.close();
  }
});
