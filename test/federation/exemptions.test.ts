// Exemptions win over every source (or the one named): an entry already applied is overturned at
// once, without a sync; the source's later items for the account are refused; removing the
// exemption applies them again.
import { expect, test } from "bun:test";
import { expectEnvelope } from "../helpers";
import { addEntry, check, eachTestTwoInstances, follow, held, type Instance, sync } from "./kit";

let a: Instance;
let b: Instance;
eachTestTwoInstances((x, y) => ((a = x), (b = y)));

const subjectOf = async (on: Instance, entryId: string) =>
  (await on.rows<{ provider_user_id: string }>("SELECT provider_user_id FROM blacklist_entries WHERE id = ?", entryId))[0]!.provider_user_id;

test("an exemption overturns at once, refuses the source's later items, survives its updates, and its removal applies them again", async () => {
  await follow(b, a, "alpha");
  const entry = await addEntry(a);
  const account = await subjectOf(a, entry.id);
  await sync(b, "alpha");
  expect((await check(b, account)).banned).toBe(true);

  const made = await b.json("POST", "/v1/admin/exemptions", { key: b.admin, body: { provider: "discord", provider_user_id: account, reason: "cleared by our mods" } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  expect(made.body).toMatchObject({ provider: "discord", provider_user_id: account, source: null, reason: "cleared by our mods", entries_overturned: 1 });
  expect((await check(b, account)).banned).toBe(false);
  const [row] = await b.rows<{ overturn_reason: string }>("SELECT overturn_reason FROM blacklist_entries WHERE upstream_id = ?", entry.id);
  expect(row!.overturn_reason).toBe("exempted");

  // The source lists the account again, and its policy changes: the exemption still wins.
  await addEntry(a, { provider_user_id: account, severity: "restrict" });
  await sync(b, "alpha");
  await b.json("PATCH", "/v1/admin/sources/alpha", { key: b.admin, body: { max_severity: "warn" } });
  expect((await check(b, account)).severity).toBeUndefined();
  const rejected = await b.rows<{ details: string }>("SELECT details FROM audit_events WHERE action = 'source.item_rejected'");
  expect(rejected.map((r) => JSON.parse(r.details).reason)).toEqual(["exempted"]);

  const listed = await b.json("GET", "/v1/admin/exemptions", { key: b.admin });
  expect(listed.body.data).toHaveLength(1);
  const removed = await b.json("DELETE", `/v1/admin/exemptions/${made.body.id}`, { key: b.admin });
  expect(removed.body).toEqual({ id: made.body.id, removed: true, entries_applied: 2 });
  const hit = await check(b, account);
  expect(hit.severity).toBe("warn");
  expect(hit.entry.source).toBe("alpha");
});

test("an exemption for one source leaves another source's entry for the account", async () => {
  await follow(b, a, "alpha");
  await follow(b, a, "beta");
  const entry = await addEntry(a);
  const account = await subjectOf(a, entry.id);
  await sync(b, "alpha");
  await sync(b, "beta");
  const made = await b.json("POST", "/v1/admin/exemptions", { key: b.admin, body: { provider: "discord", provider_user_id: account, source: "alpha", reason: "not theirs to say" } });
  expect(made.body.entries_overturned).toBe(1);
  expect((await held(b, "alpha")).size).toBe(0);
  expect((await held(b, "beta")).size).toBe(1);
  // A local entry is never touched by an exemption.
  const local = await addEntry(b, { provider_user_id: account });
  await b.json("POST", "/v1/admin/exemptions", { key: b.admin, body: { provider: "discord", provider_user_id: account, reason: "every source" } });
  expect((await b.rows<{ status: string }>("SELECT status FROM blacklist_entries WHERE id = ?", local.id))[0]!.status).toBe("active");
  expect((await held(b, "beta")).size).toBe(0);
});

test("refused: bad account ids, an unknown source, a non-admin key, an unknown exemption", async () => {
  expectEnvelope(await b.json("POST", "/v1/admin/exemptions", { key: b.admin, body: { provider: "discord", provider_user_id: "not-digits", reason: "x" } }), 422, "unprocessable");
  expectEnvelope(await b.json("POST", "/v1/admin/exemptions", { key: b.admin, body: { provider: "discord", provider_user_id: "123", source: "nobody", reason: "x" } }), 404, "not_found");
  expectEnvelope(await b.json("POST", "/v1/admin/exemptions", { key: b.admin, body: { provider: "discord", provider_user_id: "123" } }), 400, "invalid_request");
  expectEnvelope(await b.json("POST", "/v1/admin/exemptions", { key: b.writer, body: { provider: "discord", provider_user_id: "123", reason: "x" } }), 403, "forbidden");
  expectEnvelope(await b.json("GET", "/v1/admin/exemptions"), 401, "unauthorized");
  expectEnvelope(await b.json("DELETE", "/v1/admin/exemptions/exm_nope", { key: b.admin }), 404, "not_found");
  expect((await b.json("GET", "/v1/admin/exemptions", { key: b.admin })).body.data).toEqual([]);
});
