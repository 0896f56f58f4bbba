// The subject filter lets checks of unlisted accounts skip SQLite. It must never turn a listed
// account into a clean answer, including rows written by another process after it was built.
import { afterEach, expect, test } from "bun:test";
import { createBlacklistStore } from "../../src/modules/blacklist/store";
import { SubjectFilter } from "../../src/modules/blacklist/subject-filter";
import { whenCommitArrives, writeAsAnotherProcess } from "../backend";
import { createTestApp, type TestApp } from "../helpers";

let t: TestApp;
afterEach(() => t?.close());

/** Writes an active row the way another process would: through its own connection. */
function insertFromOtherProcess(location: string, id: string, providerUserId: string, watchlist = false) {
  const at = Date.parse("2026-11-21T09:00:00Z");
  return writeAsAnotherProcess(
    location,
    `INSERT INTO blacklist_entries (id, provider, provider_user_id, severity, scope, vertical, reason_code, issued_at,
       appealable, high_risk, watchlist, status, created_at)
     VALUES ($1, 'discord', $2, 'ban', 'global', 'all', 'scam', $3, TRUE, FALSE, ${watchlist ? "TRUE" : "FALSE"}, 'active', $3)`,
    [id, providerUserId, at],
  );
}

test("rows another process writes after the filter is built are found on the very next check", async () => {
  t = await createTestApp({ http: true });
  const { key } = await t.account({ burst: 10_000 });
  await t.services.blacklist.add({ provider: "discord", provider_user_id: "100", severity: "ban", reason_code: "scam" }, { kind: "cli", id: "test" });
  expect(t.services.blacklist.subjects.ready).toBe(true);

  expect((await t.json("GET", "/v1/blacklist/check?provider=discord&id=100", { key })).body.banned).toBe(true);
  expect((await t.json("GET", "/v1/blacklist/check?provider=discord&id=200", { key })).body.banned).toBe(false);

  await insertFromOtherProcess(t.dbPath, "bl_other1", "200");
  await insertFromOtherProcess(t.dbPath, "bl_other2", "300", true);
  await whenCommitArrives(async () => {
    const banned = await t.json("GET", "/v1/blacklist/check?provider=discord&id=200", { key });
    expect(banned.body).toMatchObject({ banned: true, entry: { id: "bl_other1" } });
  });
  const watched = await t.json("GET", "/v1/blacklist/check?provider=discord&id=300", { key });
  expect(watched.body).toMatchObject({ banned: false, watchlist: true });
  const batch = await t.json("POST", "/v1/blacklist/check/batch", {
    key: (await t.account({ tier: "pro", burst: 10_000 })).key,
    body: { accounts: [{ provider: "discord", id: "400" }, { provider: "discord", id: "200" }] },
  });
  expect(batch.body.results.map((r: { banned: boolean }) => r.banned)).toEqual([false, true]);
});

test("a built filter says no for almost every unlisted subject and yes for every listed one", async () => {
  t = await createTestApp();
  for (let from = 0; from < 20_000; from += 1_000) {
    const rows = Array.from({ length: 1_000 }, (_, j) => {
      const i = from + j;
      return `('bl_f${i}', 'roblox', '${i * 7}', 'ban', 'global', 'all', 'scam', 0, TRUE, FALSE, FALSE, '${i % 10 === 0 ? "overturned" : "active"}', 0)`;
    });
    await t.rows(
      `INSERT INTO blacklist_entries (id, provider, provider_user_id, severity, scope, vertical, reason_code, issued_at,
         appealable, high_risk, watchlist, status, created_at) VALUES ${rows.join(", ")}`,
    );
  }
  const filter = new SubjectFilter(createBlacklistStore(t.runtime.store));
  expect(filter.mightContain("roblox", "7")).toBe(true); // not built yet: always "maybe"
  await filter.build();
  expect(filter.size).toBe(18_000);
  for (let i = 0; i < 20_000; i++) if (i % 10 !== 0) expect(filter.mightContain("roblox", String(i * 7))).toBe(true);
  let falsePositives = 0;
  for (let i = 0; i < 20_000; i++) if (filter.mightContain("roblox", String(i * 7 + 1))) falsePositives++;
  expect(falsePositives).toBeLessThan(200); // under 1 %
});

test("a filter never asked to fill reads nothing when another process commits; its fill finds every row", async () => {
  t = await createTestApp();
  await t.services.blacklist.add({ provider: "discord", provider_user_id: "100", severity: "ban", reason_code: "scam" }, { kind: "cli", id: "test" });
  // A process that never checks (the supervisor of `serve --workers N`) holds a filter like this one.
  const filter = new SubjectFilter(createBlacklistStore(t.runtime.store));
  await insertFromOtherProcess(t.dbPath, "bl_other1", "200");
  filter.noticeExternalWrite();
  for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
  expect(filter.size).toBe(0);
  expect(filter.mightContain("discord", "200")).toBe(true); // not filled: always "maybe"

  await filter.build();
  expect(filter.size).toBe(2);
  expect(filter.mightContain("discord", "100")).toBe(true);
  expect(filter.mightContain("discord", "200")).toBe(true);
});

test("a filter never asked to fill takes no note of its own process's writes; its fill finds them, and later writes are noted", async () => {
  t = await createTestApp();
  // The CLI's import holds a filter like this one: nothing checks against it.
  const filter = new SubjectFilter(createBlacklistStore(t.runtime.store));
  await t.services.blacklist.add({ provider: "discord", provider_user_id: "100", severity: "ban", reason_code: "scam" }, { kind: "cli", id: "test" });
  filter.add("discord", "100");
  expect(filter.size).toBe(0);

  await filter.build();
  expect(filter.size).toBe(1);
  expect(filter.mightContain("discord", "100")).toBe(true);
  filter.add("discord", "555");
  expect(filter.size).toBe(2);
  expect(filter.mightContain("discord", "555")).toBe(true);
});
