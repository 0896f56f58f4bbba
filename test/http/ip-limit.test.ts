// The per-IP bucket guard that keyless routes mount: one bucket per client address, 429 with
// Retry-After when it is empty, refilling with time.
import { afterEach, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { conventions } from "../../src/http/conventions";
import { limitByIp } from "../../src/http/guards";
import { LEADERBOARD_IP_RULE } from "../../src/http/limits";
import { createTestApp, type TestApp } from "../helpers";

let t: TestApp;
afterEach(() => t?.close());

test("an address gets the bucket's burst, then 429 rate_limited with Retry-After; others are unaffected", async () => {
  t = await createTestApp();
  const app = new Elysia()
    .use(conventions(t.runtime).plugin)
    .use(limitByIp(t.runtime, "leaderboard", LEADERBOARD_IP_RULE).get("/referrals/leaderboard", () => ({ ok: true })));
  const from = (ip: string) =>
    app.handle(new Request("http://localhost/referrals/leaderboard", { headers: { "x-forwarded-for": ip } }));
  t.runtime.config.trustProxy = 1;

  const answers = [];
  for (let i = 0; i < LEADERBOARD_IP_RULE.capacity + 2; i++) answers.push(await from("203.0.113.7"));
  expect(answers.slice(0, LEADERBOARD_IP_RULE.capacity).map((r) => r.status)).toEqual(Array(LEADERBOARD_IP_RULE.capacity).fill(200));
  const refused = answers[LEADERBOARD_IP_RULE.capacity]!;
  expect(refused.status).toBe(429);
  expect(refused.headers.get("retry-after")).toBe("1");
  expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
  expect(refused.headers.get("access-control-allow-origin")).toBe("*");
  expect(((await refused.json()) as any).error.code).toBe("rate_limited");

  expect((await from("198.51.100.1")).status).toBe(200);
  t.clock.advance(1000); // 2 tokens a second
  expect((await from("203.0.113.7")).status).toBe(200);
  expect((await from("203.0.113.7")).status).toBe(200);
  expect((await from("203.0.113.7")).status).toBe(429);

  // Without --trust-proxy the header is ignored: every request here comes from the same socket.
  t.runtime.config.trustProxy = 0;
  const sameSocket = [];
  for (let i = 0; i < LEADERBOARD_IP_RULE.capacity + 1; i++) sameSocket.push((await from(`192.0.2.${i}`)).status);
  expect(sameSocket.at(-1)).toBe(429);
});
