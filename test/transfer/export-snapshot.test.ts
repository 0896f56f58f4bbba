// Export reads one snapshot (docs/cli.md, "Import format"): whatever the server writes while the file is being
// written, the file imports cleanly into an empty database. Writes land through the real partner
// routes on the server's connection, beside the export's own read transaction.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { TransferService } from "../../src/modules/transfer/service";
import { createTestApp, type TestApp } from "../helpers";

let t: TestApp;
let writer: string;
beforeEach(async () => {
  t = await createTestApp();
  writer = (await t.account({ scope: "write", tier: "enterprise", burst: 1_000_000, dailyQuota: 1_000_000 })).key;
});
afterEach(() => t.close());

const creator = (handle: string) => t.json("PUT", `/v1/partner/creators/${handle}`, { key: writer, body: { display_name: handle } });
const vouch = (from: string, to: string) => t.json("POST", "/v1/partner/vouches", { key: writer, body: { from, to } });

/** Imports `file` into a fresh, empty database and returns the summary. */
async function importIntoEmpty(file: string) {
  const empty = await createTestApp();
  try {
    return await new TransferService(empty.runtime.store, empty.services, empty.clock).importFile(file);
  } finally {
    empty.close();
  }
}

test("a creator and a vouch written between the export's passes are both left out, and the file imports", async () => {
  await creator("alice");
  await creator("bob");
  await t.json("POST", "/v1/partner/creators/alice/connections", {
    key: writer,
    body: { provider: "github", provider_user_id: "alice-gh", public: true },
  });
  expect((await vouch("bob", "alice")).status).toBe(201);

  const lines: string[] = [];
  let wroteMeanwhile = false;
  await new TransferService(t.runtime.store, t.services, t.clock).exportAll(async (line) => {
    // The creator pass is over once the connections start: write a new creator and its vouch now.
    if (!wroteMeanwhile && JSON.parse(line).type === "connection") {
      wroteMeanwhile = true;
      expect((await creator("carol")).status).toBe(201);
      expect((await vouch("carol", "alice")).status).toBe(201);
    }
    lines.push(line);
  });
  expect(wroteMeanwhile).toBe(true);
  const records = lines.map((l) => JSON.parse(l));
  expect(records.filter((r) => r.type === "creator").map((r) => r.handle)).toEqual(["alice", "bob"]);
  expect(records.filter((r) => r.type === "vouch")).toEqual([expect.objectContaining({ from: "bob", to: "alice" })]);

  const file = join(t.dir, "snapshot.jsonl");
  writeFileSync(file, lines.join("\n") + "\n");
  expect(await importIntoEmpty(file)).toMatchObject({ creators: 2, connections: 1, vouches: 1 });
  // The writes made meanwhile were not lost: they are in the database, just not in this file.
  expect((await t.json("GET", "/v1/public/users/alice/vouches")).body.count).toBe(2);
});
