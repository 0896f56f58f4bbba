// Account members in the export and back, on either database: the export names each by its
// account's name and its creator's handle (account ids are not exported), and an import restores
// the membership, so the member manages the account in the console of the new instance.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { TransferService } from "../../src/modules/transfer/service";
import { createTestApp, signIn, type TestApp } from "../helpers";
import { page, type World, world } from "./setup";

let w: World;
let copy: TestApp;

beforeAll(async () => {
  w = await world();
  copy = await createTestApp();
});

afterAll(async () => {
  await copy.close();
  await w.t.close();
});

test("an exported member is imported as a member of the same account, who then manages it", async () => {
  const lines: string[] = [];
  await new TransferService(w.t.runtime.store, w.t.services, w.t.clock).exportAll((line) => {
    lines.push(line);
  });
  const members = lines.map((l) => JSON.parse(l)).filter((l) => l.type === "account_member");
  expect(members).toEqual([{ type: "account_member", account: "guild", handle: "dev", role: "developer", added_at: expect.any(String) }]);
  const file = join(copy.dir, "export.jsonl");
  writeFileSync(file, lines.join("\n") + "\n");
  await new TransferService(copy.runtime.store, copy.services, copy.clock).importFile(file);
  const guild = await copy.services.accounts.getAccount("guild");
  const cookie = await signIn(copy, "dev");
  const res = await copy.call("GET", `/console/accounts/${guild.id}`, { headers: { cookie } });
  expect(res.status).toBe(200);
  expect(await res.text()).toContain("<dt>Your role</dt><dd>developer</dd>");
  // The source instance is untouched.
  expect((await page(w, "dev", `/console/accounts/${w.guild.id}`)).status).toBe(200);
});
