// Large imports suspend the suggestion index's triggers and rebuild it once at the end: what is
// searchable afterwards must be exactly what row-by-row indexing would give, and a failed import
// must leave the triggers in place.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { TransferService } from "../src/modules/transfer/service";
import { createTestApp, type TestApp } from "./helpers";

let t: TestApp;
let writer: string;
beforeEach(async () => {
  t = await createTestApp();
  writer = (await t.account({ scope: "write", burst: 10_000 })).key;
});
afterEach(() => t.close());

const lines = [
  { type: "creator", handle: "lotusforge", display_name: "Lotus Forge Studio", verification_level: 1, joined_at: "2026-01-01T00:00:00Z" },
  { type: "connection", creator: "lotusforge", provider: "roblox", provider_user_id: "777", provider_username: "LotusRBX", public: true },
  { type: "entry", provider: "discord", provider_user_id: "4242", username: "ScamHydra", severity: "ban", scope: "global", vertical: "all", reason_code: "scam", appealable: true },
];

function importLines(rows: unknown[], rebuildIndexesFromBytes: number) {
  const file = join(t.dir, `import-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return new TransferService(t.runtime.store, t.services, t.clock, { rebuildIndexesFromBytes }).importFile(file);
}

const triggerCount = () => (t.runtime.store.sqlite.query("SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger'").get() as { n: number }).n;
const search = async (q: string) => (await t.json("GET", `/v1/public/blacklist/check?q=${q}`)).body;
const directory = async (q: string) => (await t.json("GET", `/v1/public/directory?q=${q}`)).body;

test("a bulk import rebuilds the suggestion index: names, usernames and haystacks are all searchable", async () => {
  const before = triggerCount();
  expect(await importLines(lines, 0)).toMatchObject({ creators: 1, connections: 1, entries: 1 });
  expect(triggerCount()).toBe(before);
  expect((await directory("forge%20studio")).items.map((i: any) => i.handle)).toEqual(["lotusforge"]);
  expect((await directory("lotusrbx")).total).toBe(1);
  expect((await search("scamhydr")).suggestions).toContain("scamhydra");
  expect((await search("lotusforg")).suggestions).toContain("lotusforge");
  t.runtime.store.sqlite.run("INSERT INTO search_names_fts(search_names_fts) VALUES ('integrity-check')");

  // The triggers are back: later writes are indexed row by row again.
  await t.json("PUT", "/v1/partner/creators/nightowl", { key: writer, body: { display_name: "Night Owl Builds" } });
  expect((await directory("owl%20build")).items.map((i: any) => i.handle)).toEqual(["nightowl"]);
});

test("a failed bulk import leaves triggers, indexes and data as they were", async () => {
  const before = triggerCount();
  await expect(importLines([...lines, { type: "vouch", from: "lotusforge", to: "lotusforge" }], 0)).rejects.toThrow("line 4");
  expect(triggerCount()).toBe(before);
  expect((await directory("lotus")).total).toBe(0);
  await t.json("PUT", "/v1/partner/creators/nightowl", { key: writer, body: { display_name: "Night Owl Builds" } });
  expect((await directory("night%20owl")).total).toBe(1);
  expect((await search("nightow")).suggestions).toContain("nightowl");
});
