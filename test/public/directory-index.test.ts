// The in-memory directory index against a plain reading of the same rows: the same matches for
// every query, and every page in exactly the order SQLite's ORDER BY gives, for every sort, with
// heavy ties (most creators have no vouches or deals) and with rows written in any order. It writes
// and reads creators with SQLite's own statements, so it runs on SQLite only; test/public/directory-store.test.ts
// runs the index on both databases.
import { afterAll, beforeAll, expect } from "bun:test";
import { createMetaStore } from "../../src/db/meta-store";
import { createCreatorsStore } from "../../src/modules/creators/store";
import { DirectoryIndex } from "../../src/modules/public/directory-index";
import { backend, sqliteOnly } from "../backend";
import { createTestApp, type TestApp } from "../helpers";

let t: TestApp;
let index: DirectoryIndex;
const WORDS = ["forge", "pixel", "studio", "the", "crimson", "blox", "realm", "owl", "ninja", "craft"];

interface TestCreator {
  id: string;
  handle: string;
  createdAt?: number;
  trust?: number;
  vouches?: number;
  deals?: number;
  /** The haystack; the handle when absent. */
  text?: string;
  platforms?: string;
}

/** Creators written straight into the table, in one transaction, as another process's import leaves them. */
function insertCreators(sqlite: TestApp["sqlite"], creators: Iterable<TestCreator>): void {
  const insert = sqlite.prepare(
    `INSERT INTO creators (id, handle, joined_at, created_at, updated_at, trust_computed_at, trust_score, vouch_count, deal_count, search_text, platforms)
     VALUES (?1, ?2, 0, ?3, 0, 0, ?4, ?5, ?6, ?7, ?8)`,
  );
  sqlite.transaction(() => {
    for (const c of creators) insert.run(c.id, c.handle, c.createdAt ?? 0, c.trust ?? 50, c.vouches ?? 0, c.deals ?? 0, c.text ?? c.handle, c.platforms ?? "discord");
  })();
}

/** Each query's matches equal a plain reading of every haystack: as typed, else every word. */
function expectPlainReading(sqlite: TestApp["sqlite"], index: DirectoryIndex, queries: string[], label: string): void {
  const rows = sqlite.query<{ rowid: number; search_text: string }, []>("SELECT rowid, search_text FROM creators").all();
  for (const q of queries) {
    let expected = rows.filter((r) => r.search_text.includes(q));
    if (expected.length === 0 && q.includes(" ")) expected = rows.filter((r) => q.split(" ").every((w) => r.search_text.includes(w)));
    const matched = index.page(index.match(q, null), "newest", 0, 100_000);
    expect(matched.toSorted((a, b) => a - b), `${q} ${label}`).toEqual(expected.map((r) => r.rowid).sort((a, b) => a - b));
  }
}

beforeAll(async () => {
  if (backend !== "sqlite") return;
  t = await createTestApp();
  const sqlite = t.sqlite;
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  insertCreators(
    sqlite,
    Array.from({ length: 3000 }, (_, i) => ({
      // Ids are not in insertion order, and created_at repeats, so ties reach the id.
      id: `crt_${String(random(1_000_000)).padStart(7, "0")}_${i}`,
      handle: `maker${i}`,
      text: `maker${i} ${WORDS[random(WORDS.length)]} ${WORDS[random(WORDS.length)]}${random(100)}`,
      createdAt: 1_000 * random(500),
      trust: 50 + random(120),
      vouches: random(4) === 0 ? random(5) : 0,
      deals: random(6) === 0 ? random(3) : 0,
      platforms: random(2) ? "discord" : "discord,roblox",
    })),
  );
  index = new DirectoryIndex(createCreatorsStore(t.runtime.store), t.runtime.store, createMetaStore(t.runtime.store));
  await index.refresh();
});
afterAll(() => t?.close());

const ORDER = { newest: "created_at DESC, id", trust: "trust_score DESC, id", vouches: "vouch_count DESC, id", deals: "deal_count DESC, id" } as const;

sqliteOnly("matches and pages agree with SQL for every sort, page size and offset", () => {
  const sqlite = t.sqlite;
  const rows = sqlite.query<{ rowid: number; search_text: string; platforms: string }, []>("SELECT rowid, search_text, platforms FROM creators").all();
  for (const q of ["forge", "the", "pixel studio", "owl craft", "crimson9", "maker12", "zzz"]) {
    for (const platform of [null, "roblox"]) {
      // As typed; else, for several words, every word.
      const on = rows.filter((r) => platform === null || r.platforms.split(",").includes(platform));
      let expected = on.filter((r) => r.search_text.includes(q));
      if (expected.length === 0 && q.includes(" ")) expected = on.filter((r) => q.split(" ").every((w) => r.search_text.includes(w)));
      const slots = index.match(q, platform);
      const matched = index.page(slots, "newest", 0, slots.length);
      expect(matched.toSorted((a, b) => a - b), `${q} ${platform}`).toEqual(expected.map((r) => r.rowid).sort((a, b) => a - b));
      for (const [sort, order] of Object.entries(ORDER) as Array<[keyof typeof ORDER, string]>) {
        const all = sqlite
          .query<{ rowid: number }, [string]>(`SELECT rowid FROM creators WHERE rowid IN (SELECT value FROM json_each(?)) ORDER BY ${order}`)
          .all(JSON.stringify(matched))
          .map((r) => r.rowid);
        for (const [offset, limit] of [[0, 24], [24, 24], [48, 7], [0, 100], [990, 24]] as const) {
          expect(index.page(slots, sort, offset, limit), `${q} ${sort} ${offset}+${limit}`).toEqual(all.slice(offset, offset + limit));
        }
      }
    }
  }
});

/** Every page of `query` for prefixes and platforms, against SQL's ORDER BY on the same filter. */
async function expectQueriesAgree(app: TestApp, dirIndex: DirectoryIndex) {
  const sqlite = app.sqlite;
  for (const prefix of ["", "m", "maker1", "maker2", "x"]) {
    for (const platform of [null, "roblox", "discord"]) {
      for (const [sort, order] of Object.entries(ORDER) as Array<[keyof typeof ORDER, string]>) {
        const all = sqlite
          .query<{ rowid: number }, [string, string]>(
            `SELECT rowid FROM creators WHERE handle >= ?1 AND handle < ?1 || '~' AND (?2 = '' OR instr(',' || platforms || ',', ',' || ?2 || ',') > 0) ORDER BY ${order}`,
          )
          .all(prefix, platform ?? "")
          .map((r) => r.rowid);
        for (const [offset, limit] of [[0, 24], [24, 24], [0, 100], [976, 24]] as const) {
          const page = (await dirIndex.query(prefix, platform, sort, offset, limit, 1000))!;
          expect(page.total, `${prefix} ${platform} ${sort}`).toBe(all.length);
          expect(page.rowids, `${prefix} ${platform} ${sort} ${offset}+${limit}`).toEqual(all.slice(offset, offset + limit));
        }
      }
    }
  }
}

sqliteOnly("handle prefixes and platforms, through query(), agree with SQL: ids out of slot order", async () => {
  await expectQueriesAgree(t, index);
});

sqliteOnly("the same with ids ascending with slots (ties broken by slot), and after changes", async () => {
  const ordered = await createTestApp();
  try {
    const sqlite = ordered.sqlite;
    insertCreators(
      sqlite,
      Array.from({ length: 2500 }, (_, i) => ({
        id: `crt_${String(i).padStart(6, "0")}`,
        handle: `maker${i}`,
        createdAt: 1_000 * (i % 40),
        trust: 50 + (i % 7),
        vouches: i % 5 === 0 ? i % 3 : 0,
        platforms: i % 3 ? "discord" : "discord,roblox",
      })),
    );
    const orderedIndex = new DirectoryIndex(createCreatorsStore(ordered.runtime.store), ordered.runtime.store, createMetaStore(ordered.runtime.store));
    await orderedIndex.refresh();
    expect((orderedIndex as unknown as { idsFollowSlots: boolean }).idsFollowSlots).toBe(true);
    await expectQueriesAgree(ordered, orderedIndex);
    // A change empties the kept windows: the next query sees the new order.
    sqlite.run("UPDATE creators SET vouch_count = 99 WHERE handle = 'maker2499'");
    orderedIndex.markDirty("crt_002499");
    await orderedIndex.refresh();
    expect((await orderedIndex.query("", "discord", "vouches", 0, 1, 1000))!.rowids).toEqual([2500]);
    await expectQueriesAgree(ordered, orderedIndex);
  } finally {
    ordered.close();
  }
});

sqliteOnly("directory queries that come while the index builds wait for it to read the creators, not for the postings, and answer as the built index", async () => {
  // The service's own index is not built yet (nothing has asked the directory).
  const service = t.services.public;
  const queries = [
    {},
    { sort: "trust" as const, page: 3, limit: 20 },
    { q: "forge" },
    { q: "studio", sort: "vouches" as const, limit: 50 },
    { q: "owl ninja", sort: "deals" as const },
    { q: "ninja owl zzz" },
    { q: "ma", platform: "roblox" },
    { q: "maker12", sort: "newest" as const },
    { platform: "roblox", sort: "trust" as const, page: 2, limit: 100 },
    { q: "nothing-like-it" },
  ];
  let built = false;
  const warming = service.warmDirectory().then(() => (built = true));
  const whileBuilding = await Promise.all(queries.map((query) => service.directory(query)));
  expect(built).toBe(false);
  await warming;
  const fromIndex = await Promise.all(queries.map((query) => service.directory(query)));
  expect(whileBuilding).toEqual(fromIndex);
  expect(fromIndex.map((page) => page.total).filter((n) => n > 0).length).toBeGreaterThan(6);
});

sqliteOnly("a creator written while the index builds is in the next answer: the database answers until the index has re-read it", async () => {
  const app = await createTestApp();
  try {
    const insert = app.sqlite.prepare(
      `INSERT INTO creators (id, handle, joined_at, created_at, updated_at, trust_computed_at, search_text) VALUES (?1, ?2, 0, 0, 0, 0, ?2)`,
    );
    app.sqlite.transaction(() => {
      for (let i = 0; i < 12_000; i++) insert.run(`crt_${String(i).padStart(6, "0")}`, `${WORDS[i % WORDS.length]}${i}`);
    })();
    const service = app.services.public;
    const state = (service as unknown as { directoryPages: { index: { rowids: number[] } } }).directoryPages.index;
    let built = false;
    const warming = service.warmDirectory().then(() => (built = true));
    // Once the build has read the first creators, one of them changes.
    while (state.rowids.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await app.services.creators.upsert("forge0", { display_name: "Zebra Finch" });
    const page = await service.directory({ q: "zebra" });
    expect(built).toBe(false);
    expect(page.items.map((item) => item.handle)).toEqual(["forge0"]);
    await warming;
    expect(await service.directory({ q: "zebra" })).toEqual(page);
  } finally {
    app.close();
  }
});

sqliteOnly("once a build has read every creator, queries are answered while it computes the postings, as after it", async () => {
  const building = new DirectoryIndex(createCreatorsStore(t.runtime.store), t.runtime.store, createMetaStore(t.runtime.store));
  const done = building.refresh();
  while (!building.answerable) await new Promise((resolve) => setImmediate(resolve));
  expect(building.ready).toBe(false);
  const queries = [
    ["forge", null],
    ["the", "roblox"],
    ["maker12", null],
    ["crimson9", null],
    ["pixel studio", "roblox"],
    ["studio pixel", null],
    ["ninja owl zzz", null],
    ["zzz", null],
    ["ma", "discord"],
    ["", "roblox"],
  ] as const;
  const during = [];
  for (const [q, platform] of queries) during.push(await building.query(q, platform, "trust", 24, 50, 1000));
  expect(building.ready).toBe(false);
  await done;
  const built = [];
  for (const [q, platform] of queries) built.push(await index.query(q, platform, "trust", 24, 50, 1000));
  expect(during).toEqual(built);
  expect(built.filter((page) => page!.total > 0).length).toBeGreaterThan(5);
});

sqliteOnly("fuzzy matches agree with a plain reading after haystacks change and creators are added since the build", async () => {
  const app = await createTestApp();
  try {
    const sqlite = app.sqlite;
    const text = (i: number, salt: number) => `maker${i} ${WORDS[(i * 7 + salt) % WORDS.length]} ${WORDS[(i * 3 + salt) % WORDS.length]}${i % 50}`;
    const creator = (i: number, salt: number) => ({ id: `crt_${String(i).padStart(6, "0")}`, handle: `maker${i}`, createdAt: i, text: text(i, salt) });
    insertCreators(sqlite, Array.from({ length: 2000 }, (_, i) => creator(i, 0)));
    const dirIndex = new DirectoryIndex(createCreatorsStore(app.runtime.store), app.runtime.store, createMetaStore(app.runtime.store));
    await dirIndex.refresh();
    // Changed haystacks (their old postings stay until the next build) and new creators, whose
    // postings are appended after the packed ones; then the same creators again, out of order.
    for (const round of [1, 2]) {
      for (let i = 1999; i >= 0; i -= 3 + round) {
        sqlite.run("UPDATE creators SET search_text = ?1 WHERE rowid = ?2", [text(i, round), i + 1]);
        dirIndex.markDirty(`crt_${String(i).padStart(6, "0")}`);
      }
      for (let i = 2000 + (round - 1) * 100; i < 2000 + round * 100; i++) {
        insertCreators(sqlite, [creator(i, round)]);
        dirIndex.markDirty(`crt_${String(i).padStart(6, "0")}`);
      }
      await dirIndex.refresh();
      // Three characters are one trigram, whose postings are taken without a check but for changed haystacks.
      const queries = ["forge", "pixel studio", "studio pixel", "owl craft1", "maker19", "maker205", "ninja realm", "realm4", "the crimson", "crimson zzz", "owl", "the", "ft1", "r19", "x y"];
      expectPlainReading(sqlite, dirIndex, queries, `round ${round}`);
    }
  } finally {
    app.close();
  }
});

sqliteOnly("haystacks with uncommon characters (accents, capitals, symbols, emoji) match as typed, built and changed", async () => {
  const app = await createTestApp();
  try {
    const sqlite = app.sqlite;
    const NAMES = ["zoë café", "łukasz ørsted", "Mixed Case", "fox🦊den", "a{b}c|d~e", "tab\there", "plain name", "café zoë", "ñandú 🦊"];
    insertCreators(
      sqlite,
      Array.from({ length: 300 }, (_, i) => ({ id: `crt_${String(i).padStart(6, "0")}`, handle: `maker${i}`, createdAt: i, text: `maker${i} ${NAMES[i % NAMES.length]}` })),
    );
    const dirIndex = new DirectoryIndex(createCreatorsStore(app.runtime.store), app.runtime.store, createMetaStore(app.runtime.store));
    await dirIndex.refresh();
    const queries = ["zoë", "é z", "afé", "łuk", "ørs", "Mixed", "d Ca", "x🦊d", "🦊de", "{b}", "|d~", "\there", "ñandú", "plain", "zoë café", "café zoë", "ørsted łukasz"];
    expectPlainReading(sqlite, dirIndex, queries, "built");
    for (let i = 0; i < 300; i += 7) {
      sqlite.run("UPDATE creators SET search_text = ?1 WHERE rowid = ?2", [`maker${i} ${NAMES[(i + 4) % NAMES.length]}`, i + 1]);
      dirIndex.markDirty(`crt_${String(i).padStart(6, "0")}`);
    }
    await dirIndex.refresh();
    expectPlainReading(sqlite, dirIndex, queries, "changed");
  } finally {
    app.close();
  }
});
