// Every error subclass as a caller meets it, from a live server (or from no server at all): each is
// still a TrustlistError, carries the answer's metadata, and is told apart with `instanceof`.
// Per-call `attempts`, `timeoutMs` and `deadlineMs` against a listener that never answers.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { cliJson } from "../../test/cli-helpers";
import {
  ConflictError,
  createTrustlist,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  QuotaExceededError,
  RateLimitedError,
  TimeoutError,
  TrustlistError,
  UnauthorizedError,
  ValidationError,
} from "../src/index";
import { liveServer } from "./live";

const live = liveServer();
/** A listener that takes requests and never answers them; counts what reached it. */
let silent: Server;
let silentBase = "";
let silentHits = 0;

beforeAll(async () => {
  silent = createServer(() => void silentHits++);
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  silentBase = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
});
afterAll(() => {
  silent.closeAllConnections();
  silent.close();
});

const caught = (call: Promise<unknown>) => call.then(() => null, (e: unknown) => e as TrustlistError);

test("404, 401, 400, 422, 403 and 409 are their subclasses, with code, request id and metadata", async () => {
  const admin = createTrustlist({ baseUrl: live.base, apiKey: live.adminKey });
  const reader = createTrustlist({ baseUrl: live.base, apiKey: live.key() });

  const missing = await caught(reader.getEntry("bl_nothing_here"));
  expect(missing).toBeInstanceOf(NotFoundError);
  expect(missing).toMatchObject({ status: 404, code: "not_found", name: "NotFoundError" });
  expect(missing!.meta).toMatchObject({ status: 404, attempts: 1 });
  expect(missing!.meta!.requestId).toBe(missing!.requestId);

  const stranger = await caught(createTrustlist({ baseUrl: live.base, apiKey: "tl_live_" + "z".repeat(32) }).usage());
  expect(stranger).toBeInstanceOf(UnauthorizedError);

  const badCursor = await caught(reader.changes({ cursor: "forged" }));
  expect(badCursor).toBeInstanceOf(ValidationError);
  expect(badCursor).toMatchObject({ code: "invalid_cursor" });
  const badVertical = await caught(reader.checkAccount({ provider: "discord", id: "1", vertical: "fortnite" as never }));
  expect(badVertical).toBeInstanceOf(ValidationError);
  expect(badVertical).toMatchObject({ status: 422, code: "unprocessable" });

  const readOnly = await caught(reader.addEntry({ provider: "discord", provider_user_id: "7", severity: "ban", reason_code: "scam" }));
  expect(readOnly).toBeInstanceOf(ForbiddenError);
  expect(readOnly).toMatchObject({ status: 403, code: "forbidden" });

  const entry = await admin.addEntry({ provider: "discord", provider_user_id: "8", severity: "ban", reason_code: "scam" });
  await admin.overturnEntry(entry.id);
  const twice = await caught(admin.overturnEntry(entry.id));
  expect(twice).toBeInstanceOf(ConflictError);
  expect(twice).toMatchObject({ status: 409, code: "conflict" });

  for (const error of [missing, stranger, badCursor, badVertical, readOnly, twice]) expect(error).toBeInstanceOf(TrustlistError);
});

test("a spent burst is a RateLimitedError with retryAfter; a spent quota a QuotaExceededError", async () => {
  const bursty = createTrustlist({ baseUrl: live.base, apiKey: live.key("--burst", "1"), attempts: 1 });
  let limited: TrustlistError | null = null;
  for (let i = 0; i < 10 && !limited; i++) limited = await caught(bursty.checkAccount({ provider: "discord", id: "1" }));
  expect(limited).toBeInstanceOf(RateLimitedError);
  expect(limited!.retryAfter).toBeGreaterThanOrEqual(1);
  expect(limited!.meta!.retryAfter).toBe(limited!.retryAfter);

  const account = cliJson(live.db, "accounts", "create", "--name", "one-call", "--tier", "free", "--daily-quota", "1").id;
  const tiny = createTrustlist({ baseUrl: live.base, apiKey: cliJson(live.db, "keys", "create", "--account", account).key });
  await tiny.checkAccount({ provider: "discord", id: "1" });
  const spent = await caught(tiny.checkAccount({ provider: "discord", id: "1" }));
  expect(spent).toBeInstanceOf(QuotaExceededError);
  expect(spent).toMatchObject({ status: 429, code: "quota_exceeded" });
  expect(spent!.meta!.rateLimit).toMatchObject({ limit: 1, remaining: 0 });
});

test("nothing listening is a NetworkError after the call's attempts; its message names no host", async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const tl = createTrustlist({ baseUrl: `http://127.0.0.1:${port}`, apiKey: live.key(), backoffMs: 10 });
  const error = await caught(tl.checkAccount({ provider: "discord", id: "1" }, { attempts: 2 }));
  expect(error).toBeInstanceOf(NetworkError);
  expect(error).toMatchObject({ status: 0, code: "network_error", meta: null });
  expect(error!.message).toContain("GET /v1/blacklist/check");
  expect(error!.message).toContain("(2 attempts)");
  expect(error!.message).not.toContain("127.0.0.1");
});

test("per call: timeoutMs and attempts bound the attempts; deadlineMs bounds the whole call", async () => {
  // The client's own settings would wait 10 s per attempt, eight times.
  const tl = createTrustlist({ baseUrl: silentBase, backoffMs: 10 });
  silentHits = 0;
  const slow = await caught(tl.publicStats({ timeoutMs: 150, attempts: 3 }));
  expect(slow).toBeInstanceOf(TimeoutError);
  expect(slow).toMatchObject({ status: 0, code: "timeout" });
  expect(slow!.message).toContain("(3 attempts)");
  expect(silentHits).toBe(3);

  silentHits = 0;
  const started = Date.now();
  const bounded = await caught(tl.publicStats({ deadlineMs: 400 }));
  expect(bounded).toBeInstanceOf(TimeoutError);
  // At most the deadline plus scheduling slack; far below one default attempt (10 s).
  expect(Date.now() - started).toBeLessThan(5000);
  expect(silentHits).toBeGreaterThanOrEqual(1);

  const controller = new AbortController();
  const aborted = tl.publicStats({ signal: controller.signal });
  controller.abort(new Error("stop now"));
  await expect(aborted).rejects.toThrow("stop now");
});
