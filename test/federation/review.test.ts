// The `review` policy: each item a source adds is filed as that source's report about the account,
// in the account's open case or a new one, for staff to decide; nothing is held from it. A switch
// to review overturns what was held and files its items.
import { expect, test } from "bun:test";
import { addEntry, eachTestTwoInstances, follow, held, type Instance, sync } from "./kit";

let a: Instance;
let b: Instance;
eachTestTwoInstances((x, y) => ((a = x), (b = y)));

test("each added item opens a case with the source as reporter; staff see it in the queue; nothing is held", async () => {
  await follow(b, a, "alpha", { policy: "review" });
  const first = await addEntry(a, { summary: "Took the money and ran." });
  const second = await addEntry(a, { severity: "warn" });
  await sync(b, "alpha");
  expect((await held(b, "alpha")).size).toBe(0);
  const queue = await b.json("GET", "/v1/moderation/cases", { key: b.admin });
  expect(queue.status, JSON.stringify(queue.body)).toBe(200);
  expect(queue.body.data).toHaveLength(2);
  const view = await b.json("GET", `/v1/moderation/cases/${queue.body.data[0].id}`, { key: b.admin });
  expect(view.status).toBe(200);
  expect(JSON.stringify(view.body)).toContain("source:alpha");
  const reports = await b.rows<{ reporter_kind: string; reporter_id: string; description: string }>("SELECT reporter_kind, reporter_id, description FROM moderation_reports ORDER BY created_at, id");
  expect(reports.map((r) => [r.reporter_kind, r.reporter_id])).toEqual([
    ["source", "source:alpha"],
    ["source", "source:alpha"],
  ]);
  expect(reports.some((r) => r.description.includes(first.id) && r.description.includes("Took the money and ran."))).toBe(true);
  expect(reports.some((r) => r.description.includes(second.id))).toBe(true);
  const opened = await b.rows<{ actor_kind: string; actor_id: string }>("SELECT actor_kind, actor_id FROM audit_events WHERE action = 'case.opened'");
  expect(opened).toEqual([
    { actor_kind: "source", actor_id: "alpha" },
    { actor_kind: "source", actor_id: "alpha" },
  ]);
  // The same items read again (a re-apply) open nothing more.
  await b.json("PATCH", "/v1/admin/sources/alpha", { key: b.admin, body: { max_severity: "restrict" } });
  expect(await b.rows("SELECT id FROM moderation_reports")).toHaveLength(2);
});

test("a switch from apply to review overturns what was held and files its items once", async () => {
  await follow(b, a, "alpha");
  await addEntry(a);
  await sync(b, "alpha");
  expect((await held(b, "alpha")).size).toBe(1);
  await b.json("PATCH", "/v1/admin/sources/alpha", { key: b.admin, body: { policy: "review" } });
  expect((await held(b, "alpha")).size).toBe(0);
  expect(await b.rows("SELECT id FROM moderation_cases WHERE status = 'open'")).toHaveLength(1);
  await b.json("PATCH", "/v1/admin/sources/alpha", { key: b.admin, body: { policy: "review", max_severity: "warn" } });
  expect(await b.rows("SELECT id FROM moderation_reports")).toHaveLength(1);
});

test("the source's watchlist rows are held as watchlist hits even under review, and open no case", async () => {
  await follow(b, a, "alpha", { policy: "review" });
  const watched = await addEntry(a, { watchlist: true });
  await sync(b, "alpha");
  expect((await held(b, "alpha")).get(watched.id)).toMatchObject({ watchlist: true });
  expect(await b.rows("SELECT id FROM moderation_reports")).toHaveLength(0);
});

