// The SDK's retries against a live server: a real 429 waited out, a write whose answer is lost on
// the way back repeated with the same Idempotency-Key, 5xx and silence in front of the server.
// The proxy is a real HTTP server between the SDK and trustlist that can answer in their place or
// drop an answer the server gave.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { cliJson } from "../../test/cli-helpers";
import { createTrustlist, TrustlistError } from "../src/index";
import { liveServer } from "./live";

const live = liveServer();

interface Seen {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  status: number | "dropped" | "cut" | "withheld";
  replayed: string | null;
}

/** What the proxy does with one request; `forward` passes it on, the others answer in the server's place. */
type Plan = "forward" | "drop-answer" | "cut-answer" | "502" | "409" | "withhold";

let proxy: Server;
let proxyBase = "";
let plans: Plan[] = [];
let seen: Seen[] = [];

async function relay(req: IncomingMessage, res: ServerResponse) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const plan = plans.shift() ?? "forward";
  const record: Seen = { method: req.method!, path: req.url!, idempotencyKey: req.headers["idempotency-key"] as string | undefined, status: 0 as never, replayed: null };
  seen.push(record);
  if (plan === "502") {
    record.status = 502;
    return res.writeHead(502, { "content-type": "text/plain" }).end("bad gateway");
  }
  if (plan === "409") {
    // What the server answers a repeat that arrives while the first attempt is still being answered.
    record.status = 409;
    const envelope = { error: { code: "conflict", message: "A request with this Idempotency-Key is still being answered.", request_id: "proxy-409" } };
    return res.writeHead(409, { "content-type": "application/json", "x-request-id": "proxy-409" }).end(JSON.stringify(envelope));
  }
  if (plan === "withhold") {
    record.status = "withheld";
    return; // never answers; the client's timeout ends the attempt
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string" && name !== "host" && name !== "connection") headers.set(name, value);
  const upstream = await fetch(live.base + req.url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
  const body = Buffer.from(await upstream.arrayBuffer());
  record.replayed = upstream.headers.get("idempotent-replayed");
  if (plan === "drop-answer") {
    // The server has done the work and answered; the client never hears it.
    record.status = "dropped";
    return req.socket.destroy();
  }
  if (plan === "cut-answer") {
    // The status line and half the body arrive, then the connection breaks.
    record.status = "cut";
    res.writeHead(upstream.status, { "content-type": "application/json", "content-length": String(body.length) });
    res.write(body.subarray(0, body.length >> 1));
    return setTimeout(() => req.socket.destroy(), 20);
  }
  record.status = upstream.status;
  const out: Record<string, string> = {};
  upstream.headers.forEach((value, name) => {
    if (name !== "content-length" && name !== "transfer-encoding" && name !== "content-encoding") out[name] = value;
  });
  res.writeHead(upstream.status, out).end(body);
}

beforeAll(async () => {
  // One connection per request: a client may silently resend a request whose reused keep-alive
  // connection broke, which would hide the SDK's own retries from these tests.
  proxy = createServer((req, res) => {
    res.shouldKeepAlive = false;
    void relay(req, res);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyBase = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(() => {
  proxy.closeAllConnections();
  proxy.close();
});

/** Requests the SDK itself sent: each must reach the proxy once (no retry hidden inside fetch). */
let sent = 0;

function through(plan: Plan[], options: { apiKey?: string; attempts?: number; timeoutMs?: number; maxRetryAfter?: number } = {}) {
  plans = plan;
  seen = [];
  sent = 0;
  const counted = (request: Request) => {
    sent++;
    return fetch(request);
  };
  return createTrustlist({ baseUrl: proxyBase, apiKey: options.apiKey ?? live.adminKey, backoffMs: 20, attempts: options.attempts, timeoutMs: options.timeoutMs, maxRetryAfter: options.maxRetryAfter, fetch: counted });
}

afterEach(() => expect(seen.length).toBe(sent));

test("a 429 from a spent burst is waited out for its Retry-After, then the call succeeds", async () => {
  // --burst 1: one request per second, a bucket of four; six calls in a row spend it.
  const tl = through([], { apiKey: live.key("--burst", "1") });
  for (let i = 0; i < 6; i++) expect((await tl.checkAccount({ provider: "discord", id: "1" })).banned).toBe(false);
  const statuses = seen.map((s) => s.status);
  expect(statuses).toContain(429);
  // Every refusal was followed by a repeat that the server answered.
  statuses.forEach((status, i) => status === 429 && expect(statuses[i + 1]).toBe(200));
  expect(statuses.filter((s) => s === 200)).toHaveLength(6);
});

test("with retries off, the 429 is a TrustlistError carrying code and Retry-After", async () => {
  const tl = through([], { apiKey: live.key("--burst", "1"), attempts: 1 });
  let error: any;
  for (let i = 0; i < 10 && !error; i++) error = await tl.checkAccount({ provider: "discord", id: "1" }).then(() => undefined, (e) => e);
  expect(error).toBeInstanceOf(TrustlistError);
  expect(error).toMatchObject({ status: 429, code: "rate_limited" });
  expect(error.retryAfter).toBeGreaterThanOrEqual(1);
  expect(error.requestId).toMatch(/\S+/);
  expect(seen.filter((s) => s.status === 429)).toHaveLength(1);
});

test("a spent daily quota is thrown at once with its Retry-After, not waited out until midnight", async () => {
  const account = cliJson(live.db, "accounts", "create", "--name", "tiny-quota", "--tier", "free", "--daily-quota", "1").id;
  const key = cliJson(live.db, "keys", "create", "--account", account).key;
  const tl = through([], { apiKey: key, maxRetryAfter: 5 });
  await tl.checkAccount({ provider: "discord", id: "1" });
  const error = await tl.checkAccount({ provider: "discord", id: "1" }).catch((e) => e);
  expect(error).toMatchObject({ status: 429, code: "quota_exceeded" });
  // Seconds to the next midnight UTC: more than the five this client waits (except in the day's last five).
  expect(error.retryAfter).toBeGreaterThan(5);
  expect(seen.map((s) => s.status)).toEqual([200, 429]);
});

// The server answers a repeated Idempotency-Key from its record (docs/api.md), so the repeat writes
// nothing a second time.
test("a write whose answer is lost is repeated with the same Idempotency-Key and creates one entry", async () => {
  const tl = through(["drop-answer"]);
  const summary = `lost answer ${crypto.randomUUID()}`;
  const created = await tl.addEntry({ provider: "roblox", provider_user_id: "777001", severity: "restrict", reason_code: "chargeback", summary });
  expect(created.severity).toBe("restrict");
  expect(seen.map((s) => s.status)).toEqual(["dropped", 201]);
  expect(seen[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  expect(seen[1]!.idempotencyKey).toBe(seen[0]!.idempotencyKey!);
  expect(seen[1]!.replayed).toBe("true");
  const reader = createTrustlist({ baseUrl: live.base, apiKey: live.adminKey });
  const matching: string[] = [];
  for await (const entry of reader.eachEntry({ limit: 100 })) if (entry.summary === summary) matching.push(entry.id);
  expect(matching).toEqual([created.id]);
});

test("after a lost answer, a 409 for the attempt still in progress is waited out; a first-attempt 409 is final", async () => {
  const retried = through(["drop-answer", "409"]);
  expect((await retried.upsertCreator("conflicted_one", { display_name: "Conflicted" })).handle).toBe("conflicted_one");
  // The third answer is the creation's 201 replayed by a server that keeps idempotency keys, or a
  // plain 200 update by one that does not.
  expect(seen.map((s) => (typeof s.status === "number" && s.status < 300 ? "ok" : s.status))).toEqual(["dropped", 409, "ok"]);
  expect(new Set(seen.map((s) => s.idempotencyKey)).size).toBe(1);

  const final = through(["409"]);
  const error = await final.upsertCreator("conflicted_one", { display_name: "Conflicted" }).catch((e) => e);
  expect(error).toMatchObject({ status: 409, code: "conflict", requestId: "proxy-409" });
  expect(seen).toHaveLength(1);
});

test("each write gets its own key, reads get none, and a caller's key is kept", async () => {
  const tl = through([]);
  await tl.checkAccount({ provider: "discord", id: "2" });
  await tl.upsertCreator("keyed_one", { display_name: "Keyed One" });
  await tl.upsertCreator("keyed_two", { display_name: "Keyed Two" });
  await tl.upsertCreator("keyed_three", { display_name: "Keyed Three" }, { idempotencyKey: "my-own-key-1" });
  const [read, first, second, own] = seen;
  expect(read!.idempotencyKey).toBeUndefined();
  expect(first!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  expect(second!.idempotencyKey).not.toBe(first!.idempotencyKey!);
  expect(own!.idempotencyKey).toBe("my-own-key-1");
});

test("a 5xx is retried with backoff; one that persists ends as a TrustlistError", async () => {
  const recovered = through(["502", "502"]);
  expect((await recovered.getUser("keyed_one")).handle).toBe("keyed_one");
  expect(seen.map((s) => s.status)).toEqual([502, 502, 200]);

  const failing = through(["502", "502", "502"], { attempts: 3 });
  const error = await failing.getUser("keyed_one").catch((e) => e);
  expect(error).toBeInstanceOf(TrustlistError);
  expect(error).toMatchObject({ status: 502, code: "internal" });
  expect(seen).toHaveLength(3);
});

test("an attempt that gets no answer times out and is retried; silence throughout is a timeout error", async () => {
  const recovered = through(["withhold"], { timeoutMs: 300 });
  expect((await recovered.checkAccount({ provider: "discord", id: "3" })).banned).toBe(false);
  expect(seen.map((s) => s.status)).toEqual(["withheld", 200]);

  const silent = through(["withhold", "withhold"], { timeoutMs: 300, attempts: 2 });
  const error = await silent.checkAccount({ provider: "discord", id: "3" }).catch((e) => e);
  expect(error).toBeInstanceOf(TrustlistError);
  expect(error).toMatchObject({ status: 0, code: "timeout" });
});

test("an answer cut off halfway is retried like one that never came", async () => {
  const tl = through(["cut-answer"]);
  expect((await tl.getUser("keyed_one")).handle).toBe("keyed_one");
  expect(seen.map((s) => s.status)).toEqual(["cut", 200]);
});

test("a caller's abort ends the call at once, waits included", async () => {
  const tl = through(["withhold"]);
  const controller = new AbortController();
  const call = tl.checkAccount({ provider: "discord", id: "4" }, { signal: controller.signal });
  while (seen.length === 0) await Bun.sleep(5);
  controller.abort(new Error("shutting down"));
  await expect(call).rejects.toThrow("shutting down");
});
