// Text no route can take (control characters, broken percent-encoding) is refused with 400 before
// any handler runs, in the query and in the path alike, after the key or the address is charged; and text routes do take (quotes, FTS5
// operators, LIKE wildcards) is searched for as the literal text it is, by the suggestion index and
// by the directory's handle prefix, on SQLite and PostgreSQL.
import { describe, expect, test } from "bun:test";
import { createTestApp, expectEnvelope } from "../helpers";
import { publicKit } from "../public-kit";

const kit = publicKit();
const { get, creator, link } = kit;

/** Percent-encoded text that is not UTF-8 or holds a control character, as a client could send it. */
const UNREADABLE = {
  nul: "a%00b",
  "quote then nul": "a%22b%00",
  "c0 control": "ab%1Fc",
  tab: "ab%09c",
  del: "ab%7Fc",
  "c1 control": "abc%C2%80",
  "c1 NEL": "abc%C2%85",
  "surrogate half": "%ED%A0%80abc",
  "overlong slash": "%C0%AFabc",
  "overlong nul": "ab%C0%80c",
  "bare percent": "ab%",
  "truncated escape": "ab%4",
  "not hex": "ab%zz",
  "truncated sequence": "ab%E2%9C",
  "over U+10FFFF": "ab%F4%90%80%80",
} as const;

describe("a query value no route can take is 400 on every kind of route", () => {
  test("the keyless search, named by parameter, with CORS so a page can read why", async () => {
    for (const [what, value] of Object.entries(UNREADABLE)) {
      const res = await get(`/v1/public/blacklist/check?q=${value}`);
      expectEnvelope(res, 400, "invalid_request");
      expect(res.body.error.message, what).toContain("'q'");
      expect(res.headers.get("access-control-allow-origin"), what).toBe("*");
    }
    // Valid escapes of any character but a control one are text as usual.
    for (const q of ["caf%C3%A9", "%E2%9C%93mark", "%F0%9F%98%80smile", "50%25", "a%2Bb", "o%22brien", "%EF%BF%BFend"]) {
      const res = await get(`/v1/public/blacklist/check?q=${q}`);
      expect(res.status, q).toBe(200);
      expect(res.body.query).toBe(decodeURIComponent(q));
    }
  });

  test("a parameter the route does not know is held to the same rule, and so is a parameter's name", async () => {
    expectEnvelope(await get("/v1/public/blacklist/check?q=alice&utm=%00"), 400, "invalid_request");
    const badName = await get("/v1/public/blacklist/check?q=alice&a%00b=1");
    expectEnvelope(badName, 400, "invalid_request");
    expect(badName.body.error.message).toContain("name");
    expect((await get("/v1/public/blacklist/check?q=alice&utm=campaign%201")).status).toBe(200);
  });

  test("keyed routes refuse it after the key, as any malformed parameter: 401 without one, counted with one, over HTTP too", async () => {
    for (const http of [false, true]) {
      const t = await createTestApp({ http });
      try {
        const { key } = await t.account({ burst: 10_000, dailyQuota: 10_000 });
        const ok = await t.json("GET", "/v1/blacklist/check?provider=discord&id=80351110224678912", { key });
        expect(ok.status).toBe(200);
        let remaining = Number(ok.headers.get("x-ratelimit-remaining"));
        for (const value of Object.values(UNREADABLE)) {
          for (const path of [`/v1/blacklist/check?provider=discord&id=${value}`, `/v1/blacklist/check?provider=github&id=${value}`, `/v1/blacklist?cursor=${value}`, `/v1/blacklist?vertical=${value}`]) {
            const res = await t.json("GET", path, { key });
            expectEnvelope(res, 400, "invalid_request");
            // The daily quota's headers, one call further down: it was admitted, then refused.
            expect(Number(res.headers.get("x-ratelimit-remaining")), path).toBe(--remaining);
            expectEnvelope(await t.json("GET", path), 401, "unauthorized");
          }
        }
      } finally {
        await t.close();
      }
    }
  });

  test("a keyless caller's refusals are charged to its address like any request", async () => {
    const first = await get("/v1/public/blacklist/check?q=a%00b", "10.200.0.1");
    const second = await get("/v1/public/blacklist/check?q=a%00b", "10.200.0.1");
    expectEnvelope(second, 400, "invalid_request");
    expect(Number(second.headers.get("x-ratelimit-remaining"))).toBe(Number(first.headers.get("x-ratelimit-remaining")) - 1);
  });
});

describe("a path no route can take is 400, never a 404 for a NUL, a 422 or a 500", () => {
  test("handles, ids and slugs in the path", async () => {
    const t = await createTestApp();
    try {
      const { key } = await t.account({ burst: 10_000 });
      for (const [what, value] of Object.entries(UNREADABLE)) {
        for (const path of [`/v1/users/${value}`, `/v1/users/${value}/trust`, `/v1/blacklist/entries/${value}`, `/v1/courses/${value}`, `/v1/public/users/${value}/vouches`, `/v1/public/trust/${value}`, `/u/${value}`]) {
          const res = await t.json("GET", path, { key });
          expectEnvelope(res, 400, "invalid_request");
          expect(res.body.error.message, `${what} ${path}`).toStartWith("The path");
        }
      }
      // No route, nothing to read: the path is only named back.
      expectEnvelope(await t.json("GET", "/nowhere/a%00b", { key }), 404, "not_found");
      // A valid escape in a path is a handle like any other: an unknown one is 404.
      expectEnvelope(await t.json("GET", "/v1/users/caf%C3%A9", { key }), 404, "not_found");
    } finally {
      await t.close();
    }
  });

  test("the badge alone still answers its neutral image: it is always an SVG", async () => {
    const t = await createTestApp();
    try {
      for (const value of Object.values(UNREADABLE)) {
        const res = await t.call("GET", `/badge/${value}.svg?theme=${value}`);
        expect(res.status, value).toBe(200);
        expect(res.headers.get("content-type")).toContain("image/svg+xml");
        expect(await res.text()).toContain("Not Verified");
      }
    } finally {
      await t.close();
    }
  });
});

/** FTS5 query syntax and LIKE wildcards, in names a platform could really hand out. */
const SYNTAX_NAMES = ['o"brien"x', "star*gazer", "^caret^top", "near(ab cd)", "col:umn:name", "this and that or not", "(paren)(paren)", "50%_off_deal"];

describe("search text is literal", () => {
  test("usernames full of FTS5 syntax are found exactly, and suggested for a near miss", async () => {
    await creator("holder");
    for (const [i, name] of SYNTAX_NAMES.entries()) await link("holder", { provider: "github", provider_user_id: String(100 + i), provider_username: name });
    for (const name of SYNTAX_NAMES) {
      const exact = await get(`/v1/public/blacklist/check?q=${encodeURIComponent(name)}`);
      expect(exact.status, name).toBe(200);
      expect(exact.body.platforms.map((p: any) => p.username), name).toEqual([name]);
      const middle = Math.floor(name.length / 2);
      const nearMiss = `${name.slice(0, middle)}q${name.slice(middle + 1)}`;
      const miss = await get(`/v1/public/blacklist/check?q=${encodeURIComponent(nearMiss)}`);
      expect(miss.status, nearMiss).toBe(200);
      expect(miss.body.found, nearMiss).toBe(false);
      expect(miss.body.suggestions, nearMiss).toContain(name);
    }
  });

  test("operators and wildcards alone match nothing and suggest nothing", async () => {
    await creator("holder");
    for (const [i, name] of SYNTAX_NAMES.entries()) await link("holder", { provider: "github", provider_user_id: String(100 + i), provider_username: name });
    for (const q of ['"', '""', '"*"', "*", "^", "^*", "NEAR(*)", "a OR b", "NOT x", "(", ")", "name:*", "%", "_", "%%%", "___", "%_%", "\\", "\\%"]) {
      const res = await get(`/v1/public/blacklist/check?q=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(200);
      expect(res.body.found, q).toBe(false);
      expect(res.body.suggestions, q).toEqual([]);
    }
  });

  test("the directory's short q is a literal handle prefix: _ and % are no wildcards", async () => {
    for (const handle of ["a_bc", "abcd", "a.bc", "_ab", "ab_x"]) await creator(handle);
    const handles = async (q: string) => {
      const res = await get(`/v1/public/directory?q=${encodeURIComponent(q)}&limit=100`);
      expect(res.status, q).toBe(200);
      return res.body.items.map((i: any) => i.handle).sort();
    };
    expect(await handles("a_")).toEqual(["a_bc"]);
    expect(await handles("_")).toEqual(["_ab"]);
    expect(await handles("a")).toEqual(["a.bc", "a_bc", "ab_x", "abcd"]);
    expect(await handles("%")).toEqual([]);
    expect(await handles("a%")).toEqual([]);
    expect(await handles("\\")).toEqual([]);
    expect(await handles("a\\")).toEqual([]);
    // Longer text is matched as a substring, wildcards included literally.
    expect(await handles("b_x")).toEqual(["ab_x"]);
    expect(await handles("b%x")).toEqual([]);
  });
});
