// A writer's issued_at may be backdated but may run at most 60 s ahead of the server's clock
// (docs/api.md, "Blacklist rules"): one entry dated minutes ahead would move every mirror's `since` high-water mark
// past the entries added in those minutes. The API and import share the rule.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { TransferService } from "../../src/modules/transfer/service";
import { createTestApp, expectEnvelope, type TestApp } from "../helpers";

let t: TestApp;
let writer: string;
beforeEach(async () => {
  t = await createTestApp();
  writer = (await t.account({ scope: "write", tier: "pro", burst: 10_000 })).key;
});
afterEach(() => t.close());

const ahead = (seconds: number) => new Date(t.clock.now() + seconds * 1000).toISOString();
const entry = (id: string, issued_at: string) => ({ provider: "discord", provider_user_id: id, severity: "ban", reason_code: "scam", issued_at });

test("the API takes issued_at 59 s ahead and refuses 61 s ahead with 422, storing nothing", async () => {
  const accepted = await t.json("POST", "/v1/partner/blacklist", { key: writer, body: entry("1", ahead(59)) });
  expect(accepted.status).toBe(201);
  expect(accepted.body.issued_at).toBe(ahead(59));

  const refused = await t.json("POST", "/v1/partner/blacklist", { key: writer, body: entry("2", ahead(61)) });
  expectEnvelope(refused, 422, "unprocessable");
  expect(refused.body.error.message).toContain("more than 60 s in the future");
  const listed = await t.json("GET", "/v1/blacklist", { key: writer });
  expect(listed.body.data.map((e: any) => e.issued_at)).toEqual([ahead(59)]);
});

test("import refuses an entry 61 s ahead with its line number and keeps one 59 s ahead", async () => {
  const importLines = (rows: unknown[]) => {
    const file = join(t.dir, `import-${Math.random().toString(36).slice(2)}.jsonl`);
    writeFileSync(file, rows.map((r) => JSON.stringify({ type: "entry", scope: "global", vertical: "all", appealable: true, ...(r as object) })).join("\n") + "\n");
    return new TransferService(t.runtime.store, t.services, t.clock).importFile(file);
  };
  await expect(importLines([entry("3", ahead(-3600)), entry("4", ahead(61))])).rejects.toThrow(/line 2: issued_at .* more than 60 s in the future/);
  expect(await importLines([entry("5", ahead(59))])).toMatchObject({ entries: 1 });
  const listed = await t.json("GET", "/v1/blacklist", { key: writer });
  expect(listed.body.data.map((e: any) => e.issued_at)).toEqual([ahead(59)]);
});
