// Idempotency-Key on keyed writes (docs/api.md, "Conventions"), as a client retrying over a flaky network
// meets it: a repeat gets the first answer and changes nothing; a reuse for another request, a
// repeat racing the first, a malformed key each get their own clear answer.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { isKeyedPath } from "../../src/http/conventions";
import { Logger } from "../../src/logger";
import { createTestApp, expectEnvelope, repeatUntilReplayed, type TestApp } from "../helpers";

let t: TestApp;
let writer: { key: string; accountId: string };
beforeEach(async () => {
  t = await createTestApp();
  // The 500s provoked below are logged; keep them out of the test output.
  t.runtime.log = new Logger({ access: false }, () => {});
  writer = await t.account({ tier: "pro", scope: "write", burst: 10_000, dailyQuota: 100_000 });
});
afterEach(() => t.close());

const ENTRY = { provider: "discord", provider_user_id: "80351110224678912", severity: "ban", reason_code: "scam_trade" };
const addEntry = (idempotencyKey: string, body: unknown = ENTRY, key = writer.key) =>
  t.json("POST", "/v1/partner/blacklist", { key, body, headers: { "idempotency-key": idempotencyKey } });

const count = async (table: string) => (await t.rows<{ n: number }>(`SELECT CAST(count(*) AS INTEGER) AS n FROM ${table}`))[0]!.n;
const outboxTypes = async () =>
  (await t.rows<{ type: string }>("SELECT type FROM outbox_events ORDER BY id")).map((r) => r.type);

describe("a repeat of the same request", () => {
  test("gets the same status and body with Idempotent-Replayed, and writes no second entry or event", async () => {
    const first = await addEntry("retry-1");
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    t.clock.advance(5_000);

    const again = await addEntry("retry-1");
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("content-type")).toContain("application/json");
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));

    expect(await count("blacklist_entries")).toBe(1);
    expect(await outboxTypes()).toEqual(["blacklist.added"]);
    expect(await count("blacklist_changes")).toBe(1);
  });

  test("an error answer (4xx) is kept and replayed too, request_id of the first answer included", async () => {
    const bad = { ...ENTRY, provider: "myspace" };
    const first = await addEntry("bad-1", bad);
    expectEnvelope(first, 422, "unprocessable");
    const again = await addEntry("bad-1", bad);
    expect(again.status).toBe(422);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);

    const overturnMissing = () =>
      t.json("POST", "/v1/partner/blacklist/bl_missing/overturn", { key: writer.key, body: {}, headers: { "idempotency-key": "nf-1" } });
    expectEnvelope(await overturnMissing(), 404, "not_found");
    const replayed = await overturnMissing();
    expect(replayed.status).toBe(404);
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
  });

  test("is metered like any admitted call (docs/api.md: every keyed request past auth counts)", async () => {
    const first = await addEntry("metered-1");
    const again = await addEntry("metered-1");
    expect(Number(again.headers.get("x-ratelimit-remaining"))).toBe(Number(first.headers.get("x-ratelimit-remaining")) - 1);
  });

  test("admin writes share the mechanism: a replayed key revoke answers the first revoke", async () => {
    const admin = await t.account({ tier: "enterprise", scope: "admin", burst: 10_000 });
    const victim = await t.account();
    const revoke = () => t.json("DELETE", `/v1/admin/keys/${victim.keyId}`, { key: admin.key, headers: { "idempotency-key": "revoke-1" } });
    const first = await revoke();
    expect(first.status).toBe(200);
    t.clock.advance(60_000);
    const again = await revoke();
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
  });
});

describe("the same key for another request", () => {
  test("another body, path or method is 422 idempotency_key_reused and writes nothing", async () => {
    expect((await addEntry("reused-1")).status).toBe(201);
    expectEnvelope(await addEntry("reused-1", { ...ENTRY, severity: "warn" }), 422, "idempotency_key_reused");
    expectEnvelope(
      await t.json("PUT", "/v1/partner/creators/alice", { key: writer.key, body: {}, headers: { "idempotency-key": "reused-1" } }),
      422,
      "idempotency_key_reused",
    );
    expect(await count("blacklist_entries")).toBe(1);
    expect(await count("creators")).toBe(0);
  });

  test("another account's identical key does not collide", async () => {
    const other = await t.account({ tier: "pro", scope: "write", burst: 10_000 });
    const mine = await addEntry("shared-1");
    const theirs = await addEntry("shared-1", { ...ENTRY, provider_user_id: "2" }, other.key);
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
    expect(await count("blacklist_entries")).toBe(2);
  });
});

test("a repeat while the first is still being answered is 409 conflict; only one write happens", async () => {
  const [a, b] = await Promise.all([addEntry("race-1"), addEntry("race-1")]);
  expect([a.status, b.status].sort()).toEqual([201, 409]);
  expectEnvelope(a.status === 409 ? a : b, 409, "conflict");
  expect(await count("blacklist_entries")).toBe(1);
  expect(await outboxTypes()).toEqual(["blacklist.added"]);
  // Once the first is answered, a repeat gets its answer.
  expect((await addEntry("race-1")).headers.get("idempotent-replayed")).toBe("true");
});

test("two servers on one database: the write that loses the race for a key rolls back and answers 409", async () => {
  const other = await createTestApp({ dir: t.dir, clock: t.clock });
  try {
    // This server has looked the key up (free) and is about to write when the other one answers
    // the same request under the same key.
    const add = t.services.blacklist.add.bind(t.services.blacklist);
    t.services.blacklist.add = async (...args) => {
      // The other server's request starts from the event loop, as a real one does, not inside
      // this request's synchronous stack (where its request slot would become this one's).
      const theirs = await new Promise<Awaited<ReturnType<typeof other.json>>>((resolve, reject) =>
        setImmediate(() => other.json("POST", "/v1/partner/blacklist", { key: writer.key, body: ENTRY, headers: { "idempotency-key": "two-1" } }).then(resolve, reject)),
      );
      expect(theirs.status).toBe(201);
      return add(...args);
    };
    expectEnvelope(await addEntry("two-1"), 409, "conflict");
    expect(await count("blacklist_entries")).toBe(1);
    expect(await outboxTypes()).toEqual(["blacklist.added"]);
    t.services.blacklist.add = add;
    // The stored answer is the other server's, and both servers replay it.
    expect((await addEntry("two-1")).headers.get("idempotent-replayed")).toBe("true");
  } finally {
    other.runtime.store.close();
  }
});

test("a 5xx answer is not kept: the retry runs again and writes once", async () => {
  const restore = await t.failWrites("outbox_events", "INSERT");
  expectEnvelope(await addEntry("flaky-1"), 500, "internal");
  await restore();
  const retry = await addEntry("flaky-1");
  expect(retry.status).toBe(201);
  expect(retry.headers.get("idempotent-replayed")).toBeNull();
  expect(await count("blacklist_entries")).toBe(1);
});

test("the key is stored by the write's own transaction: after a crash right behind the commit, a retry does not write again", async () => {
  // The write commits, then the process "dies" before it can record the answer.
  const add = t.services.blacklist.add.bind(t.services.blacklist);
  t.services.blacklist.add = async (...args) => {
    await add(...args);
    throw new Error("process killed after commit");
  };
  expectEnvelope(await addEntry("crash-1"), 500, "internal");

  // A restarted server on the same database file: nothing of the first process's memory is left.
  const restarted = await createTestApp({ dir: t.dir, clock: t.clock });
  try {
    const retry = await restarted.json("POST", "/v1/partner/blacklist", { key: writer.key, body: ENTRY, headers: { "idempotency-key": "crash-1" } });
    expectEnvelope(retry, 409, "conflict");
    expect(await count("blacklist_entries")).toBe(1);
    expect(await outboxTypes()).toEqual(["blacklist.added"]);
  } finally {
    restarted.runtime.store.close();
  }
});

test("a key expires after 24 h and the prune job removes it", async () => {
  expect((await addEntry("daily-1")).status).toBe(201);
  t.clock.advance(24 * 3600_000 - 1);
  expect((await addEntry("daily-1")).headers.get("idempotent-replayed")).toBe("true");
  t.clock.advance(2);
  const fresh = await addEntry("daily-1", { ...ENTRY, provider_user_id: "3" });
  expect(fresh.status).toBe(201);
  expect(fresh.headers.get("idempotent-replayed")).toBeNull();
  expect(await count("blacklist_entries")).toBe(2);

  expect((await addEntry("other-1", { ...ENTRY, provider_user_id: "4" })).status).toBe(201);
  t.clock.advance(24 * 3600_000 + 1);
  expect(await count("idempotency_keys")).toBe(2);
  expect(await t.runtime.idempotency.prune(1)).toBe(2);
  expect(await count("idempotency_keys")).toBe(0);
});

test.each([
  ["empty", ""],
  ["256 characters", "k".repeat(256)],
  ["a control character", "abc\tdef"],
])("a malformed key (%s) is 422 with a clear message and writes nothing", async (_name, key) => {
  const res = await addEntry(key);
  expectEnvelope(res, 422, "unprocessable");
  expect(res.body.error.message).toContain("Idempotency-Key");
  expect(await count("blacklist_entries")).toBe(0);
});

test("writes without the header are untouched: two identical posts make two entries", async () => {
  const post = () => t.json("POST", "/v1/partner/blacklist", { key: writer.key, body: ENTRY });
  expect((await post()).status).toBe(201);
  expect((await post()).status).toBe(201);
  expect(await count("blacklist_entries")).toBe(2);
  expect(await count("idempotency_keys")).toBe(0);
});

test("OpenAPI shows the header on every keyed write and on no read", async () => {
  const spec: any = await (await t.call("GET", "/openapi.json")).json();
  const header = (op: any) => op.parameters?.find((p: any) => p.in === "header" && p.name === "idempotency-key");
  let writes = 0;
  for (const [path, ops] of Object.entries<any>(spec.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      // Session routes (/v1/me…, course submissions) take no API key and no Idempotency-Key.
      const keyedWrite = method !== "get" && isKeyedPath(path.replace(/\{(\w+)\}/g, ":$1"));
      expect(!!header(op), `${method} ${path}`).toBe(keyedWrite);
      if (keyedWrite) writes++;
    }
  }
  expect(writes).toBeGreaterThan(15);
});

describe("answers that issue a secret", () => {
  // Such an answer is shown once and not kept: a repeat is 409 naming what was issued (marked as a
  // replay, so a client does not retry it), it issues nothing more, and the record holds no secret.
  const expectShownOnce = async (again: { status: number; body: any; headers: Headers }, secret: string, names: string) => {
    expectEnvelope(again, 409, "conflict");
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.error.message).toContain("shown only once");
    expect(again.body.error.message).toContain(names);
    expect(JSON.stringify(again.body)).not.toContain(secret);
    const stored = await t.rows<{ body: string | null; content_type: string | null }>("SELECT body, content_type FROM idempotency_keys");
    expect(stored.length).toBeGreaterThan(0);
    for (const row of stored) expect(`${row.content_type} ${row.body}`).not.toContain(secret);
  };

  test("an issued key (POST /v1/admin/accounts/{id}/keys): a repeat is 409, issues no second key, and the first still works", async () => {
    const admin = await t.account({ tier: "enterprise", scope: "admin", burst: 10_000 });
    const keysBefore = await count("api_keys");
    const issue = () =>
      t.json("POST", `/v1/admin/accounts/${writer.accountId}/keys`, { key: admin.key, body: { scope: "read" }, headers: { "idempotency-key": "issue-1" } });
    const first = await issue();
    expect(first.status).toBe(201);
    const secret: string = first.body.key;
    expect(secret).toMatch(/^tl_live_[A-Za-z0-9]{32}$/);

    await expectShownOnce(await repeatUntilReplayed(issue), secret, first.body.id);
    expect(await count("api_keys")).toBe(keysBefore + 1);
    // The secret of the first answer still works: the repeat issued nothing new.
    expect((await t.json("GET", "/v1/account/usage", { key: secret })).status).toBe(200);
  });

  test("a rotated key (POST /v1/admin/keys/{id}/rotate): a repeat is 409 and does not rotate again", async () => {
    const admin = await t.account({ tier: "enterprise", scope: "admin", burst: 10_000 });
    const target = await t.account({ tier: "pro", scope: "read" });
    const rotate = () => t.json("POST", `/v1/admin/keys/${target.keyId}/rotate`, { key: admin.key, headers: { "idempotency-key": "rotate-1" } });
    const first = await rotate();
    expect(first.status).toBe(200);
    const secret: string = first.body.key;
    expect(secret).toMatch(/^tl_live_/);
    await expectShownOnce(await repeatUntilReplayed(rotate), secret, target.keyId);
    // Rotated once: the new secret works, the old one does not.
    expect((await t.json("GET", "/v1/account/usage", { key: secret })).status).toBe(200);
    expectEnvelope(await t.json("GET", "/v1/account/usage", { key: target.key }), 401, "unauthorized");
  });

  test("a sign-in link (POST /v1/partner/login-links): a repeat is 409 and mints no second link; the first link still signs in", async () => {
    await t.json("PUT", "/v1/partner/creators/alicemakes", { key: writer.key, body: {} });
    const ask = () => t.json("POST", "/v1/partner/login-links", { key: writer.key, body: { handle: "alicemakes" }, headers: { "idempotency-key": "link-1" } });
    const first = await ask();
    expect(first.status).toBe(201);
    const token = new URL(first.body.url).searchParams.get("token")!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await expectShownOnce(await repeatUntilReplayed(ask), token, "alicemakes");
    expect(await count("login_links")).toBe(1);
    const signIn = await t.call("GET", `/auth/magic?token=${token}`);
    expect(signIn.status).toBe(302);
    expect(signIn.headers.get("set-cookie")).toContain("session=");
  });

  test("another request under a key that issued a secret is still 422, and a new key issues anew", async () => {
    await t.json("PUT", "/v1/partner/creators/alicemakes", { key: writer.key, body: {} });
    const ask = (key: string, handle = "alicemakes") =>
      t.json("POST", "/v1/partner/login-links", { key: writer.key, body: { handle }, headers: { "idempotency-key": key } });
    expect((await ask("link-2")).status).toBe(201);
    await repeatUntilReplayed(() => ask("link-2"));
    expectEnvelope(await ask("link-2", "someoneelse"), 422, "idempotency_key_reused");
    const fresh = await ask("link-3");
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get("idempotent-replayed")).toBeNull();
    expect(await count("login_links")).toBe(2);
  });

  test("an answer without a secret is kept and replayed as before", async () => {
    const first = await addEntry("plain-1");
    const again = await repeatUntilReplayed(() => addEntry("plain-1"));
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
  });
});
