// The public module's stores on whichever backend the suite runs on (test/backend.ts), on a fresh
// database each: the suggestion pool (`search_names`), filled by the real creators service.
import { afterAll, beforeEach, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { ManualClock } from "../src/clock";
import { CursorCodec } from "../src/cursor";
import type { Database } from "../src/db/database";
import { BlacklistService } from "../src/modules/blacklist/service";
import { CreatorsService } from "../src/modules/creators/service";
import { createSearchNamesStore, type SearchNamesStore } from "../src/modules/public/store";
import { Outbox } from "../src/outbox";
import { dropDatabase, freshDatabase } from "./backend";
import { tempDir } from "./helpers";

const dir = tempDir();
const opened: Array<{ database: Database; location: string }> = [];
afterAll(async () => {
  for (const { database, location } of opened) {
    await database.close();
    await dropDatabase(location);
  }
  rmSync(dir, { recursive: true, force: true });
});

let creators: CreatorsService;
let names: SearchNamesStore;

beforeEach(async () => {
  const fresh = await freshDatabase(`${dir}/${opened.length}`);
  opened.push(fresh);
  const clock = new ManualClock();
  const outbox = new Outbox(fresh.database);
  const blacklist = new BlacklistService(fresh.database, clock, new CursorCodec("public-store-test"), outbox);
  creators = new CreatorsService(fresh.database, clock, outbox, blacklist, "https://trust.example");
  names = createSearchNamesStore(fresh.database);
});

const lookup = { minSimilarity: 0.3, limit: 48 };

test("handles and public linked usernames are candidates for a near miss; the closest come first", async () => {
  await creators.upsert("shadowbuilds", {});
  await creators.upsert("brightforge", {});
  await creators.link("brightforge", { provider: "github", provider_user_id: "7", provider_username: "ForgeMaster" });
  await names.refreshStatistics(false);

  expect(await names.candidates("shadowbuild", lookup)).toEqual(["shadowbuilds"]);
  expect(await names.candidates("forgemastr", lookup)).toContain("forgemaster");
  expect(await names.candidates("zzzzqqqq", lookup)).toEqual([]);
  // Under three characters there is no trigram to look up.
  expect(await names.candidates("ab", lookup)).toEqual([]);
});

test("a privately linked username is never a candidate; it becomes one when linked publicly elsewhere", async () => {
  await creators.upsert("alice", {});
  await creators.upsert("bob", {});
  await creators.link("alice", { provider: "discord", provider_user_id: "80351110224678912", provider_username: "carol_hidden", public: false });
  await names.refreshStatistics(true);
  expect(await names.candidates("carol_hiden", lookup)).toEqual([]);

  await creators.link("bob", { provider: "github", provider_user_id: "9", provider_username: "carol_hidden" });
  await names.refreshStatistics(true);
  expect(await names.candidates("carol_hiden", lookup)).toEqual(["carol_hidden"]);
});
