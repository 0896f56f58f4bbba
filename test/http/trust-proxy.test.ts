// Which client a keyless request counts against (docs/api.md, "Plans and limits", `--trust-proxy [N]`): the
// X-Forwarded-For entry N hops from the right, never the entries the client wrote to its left;
// the socket address when the header does not hold that entry; IPv6 by /64.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { parse } from "../../src/cli/args";
import { serve } from "../../src/cli/serve";
import { ConfigError, loadConfig } from "../../src/config";
import { clientKey, forwardedClient, MAX_FORWARDED_FOR } from "../../src/http/client-address";
import { LEADERBOARD_IP_RULE } from "../../src/http/limits";
import { trustlist } from "../cli-helpers";
import { createTestApp, expectEnvelope, tempDir, type TestApp } from "../helpers";

let t: TestApp;
afterEach(() => t?.close());

const CAPACITY = LEADERBOARD_IP_RULE.capacity;

describe("addresses", () => {
  test.each([
    ["203.0.113.7", "203.0.113.7"],
    [" 203.0.113.7 ", null], // the caller trims; an entry with spaces inside is not an address
    ["203.0.113.7:443", "203.0.113.7"],
    ["2001:db8:1:2::a", "2001:db8:1:2::/64"],
    ["2001:DB8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"],
    ["[2001:db8:1:2::1]:8443", "2001:db8:1:2::/64"],
    ["[2001:db8:1:2::1]", "2001:db8:1:2::/64"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    ["::ffff:cb00:7107", "203.0.113.7"],
    ["::1", "0:0:0:0::/64"],
    ["1:2:3:4:5:6:1.2.3.4", "1:2:3:4::/64"],
  ])("%p is the client %p", (text, key) => {
    expect(clientKey(text)).toBe(key);
  });

  test.each(["", "unknown", "evil.example", "203.0.113", "203.0.113.7.1", "203.0.113.256", "01.2.3.4", "203.0.113.7:99999", "203.0.113.7:", "2001:db8::1::2", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "fe80::1%eth0", "[2001:db8::1", "2001:db8::g", "_"])(
    "%p is not an address",
    (text) => {
      expect(clientKey(text)).toBeNull();
    },
  );

  test("the entry N hops from the right; fewer entries or a non-address is null; only the end is read", () => {
    expect(forwardedClient("1.1.1.1, 2.2.2.2, 3.3.3.3", 1)).toBe("3.3.3.3");
    expect(forwardedClient("1.1.1.1, 2.2.2.2, 3.3.3.3", 2)).toBe("2.2.2.2");
    expect(forwardedClient("1.1.1.1, 2.2.2.2, 3.3.3.3", 3)).toBe("1.1.1.1");
    expect(forwardedClient("1.1.1.1, 2.2.2.2, 3.3.3.3", 4)).toBeNull();
    expect(forwardedClient("1.1.1.1,2.2.2.2", 1)).toBe("2.2.2.2");
    expect(forwardedClient("1.1.1.1, unknown", 1)).toBeNull();
    expect(forwardedClient("", 1)).toBeNull();
    expect(forwardedClient("1.1.1.1, ", 1)).toBeNull();
    // Whatever precedes the entries read is never looked at, even without a single comma.
    expect(forwardedClient(`${"x".repeat(1_000_000)},203.0.113.7`, 1)).toBe("203.0.113.7");
    expect(forwardedClient(`${"x".repeat(1_000_000)}203.0.113.7`, 1)).toBeNull();
  });
});

describe("configuration", () => {
  test("--trust-proxy takes an optional count; the environment takes a count or the old yes/no", () => {
    const flag = (...args: string[]) => loadConfig(parse(args, serve).values, {}).trustProxy;
    expect(flag("--trust-proxy")).toBe(1);
    expect(flag("--trust-proxy", "--port", "80")).toBe(1);
    expect(flag("--trust-proxy", "2", "--port", "80")).toBe(2);
    expect(flag("--trust-proxy=3")).toBe(3);
    const hops = (flag: string | undefined, env?: string) =>
      loadConfig(flag === undefined ? {} : { "trust-proxy": flag }, env === undefined ? {} : { TRUSTLIST_TRUST_PROXY: env }).trustProxy;
    expect(hops(undefined)).toBe(0);
    expect(hops("1")).toBe(1);
    expect(hops("2")).toBe(2);
    expect(hops(undefined, "3")).toBe(3);
    expect(hops(undefined, "yes")).toBe(1);
    expect(hops(undefined, "true")).toBe(1);
    expect(hops(undefined, "off")).toBe(0);
    expect(hops(undefined, "0")).toBe(0);
    expect(hops("0", "2")).toBe(0);
    expect(() => hops("many")).toThrow(ConfigError);
    expect(() => hops("11")).toThrow("--trust-proxy: 11 is outside 0..10");
    expect(() => hops(undefined, "-1")).toThrow("TRUSTLIST_TRUST_PROXY: '-1' is not a number of proxies");
  });
});

describe("per-IP buckets behind --trust-proxy", () => {
  const leaderboard = (forwardedFor?: string) =>
    t.json("GET", "/referrals/leaderboard", { headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor } });

  test("entries the client wrote to the left never choose a bucket: a spoofing flood shares one and gets 429", async () => {
    t = await createTestApp();
    t.runtime.config.trustProxy = 1;
    const statuses: number[] = [];
    for (let i = 0; i < 120; i++) statuses.push((await leaderboard(`10.${i}.0.1, 198.51.100.${i}, 203.0.113.7`)).status);
    expect(statuses.slice(0, CAPACITY)).toEqual(Array(CAPACITY).fill(200));
    expect(statuses.slice(CAPACITY)).toEqual(Array(120 - CAPACITY).fill(429));
    expect(t.runtime.ipBuckets.size).toBe(1);
    // The proxy's own entry is the client: another one has its own bucket.
    expect((await leaderboard("10.0.0.1, 203.0.113.8")).status).toBe(200);
  });

  test("--trust-proxy 2: the entry before the last; the nearer proxy's address does not matter", async () => {
    t = await createTestApp();
    t.runtime.config.trustProxy = 2;
    for (let i = 0; i < CAPACITY; i++) expect((await leaderboard(`spoof-${i}, 203.0.113.7, 10.0.0.${i}`)).status).toBe(200);
    expectEnvelope(await leaderboard("198.51.100.1, 203.0.113.7, 10.0.9.9"), 429, "rate_limited");
    expect((await leaderboard("203.0.113.7, 198.51.100.1, 10.0.0.1")).status).toBe(200);
  });

  test("too few entries or a non-address falls back to the socket address, which the client cannot choose", async () => {
    t = await createTestApp();
    t.runtime.config.trustProxy = 2;
    // app.handle has no socket: every fallback lands in the one bucket of that absent socket.
    const fallbacks = ["203.0.113.1", "203.0.113.2", "unknown, 10.0.0.1", "not an ip, 10.0.0.2", ", 10.0.0.3"];
    for (let i = 0; i < CAPACITY; i++) expect((await leaderboard(fallbacks[i % fallbacks.length])).status).toBe(200);
    expectEnvelope(await leaderboard("203.0.113.3"), 429, "rate_limited");
    expectEnvelope(await leaderboard(), 429, "rate_limited");
    expect((await leaderboard("203.0.113.4, 10.0.0.1")).status).toBe(200);
  });

  test("IPv6 clients share a bucket per /64; IPv4-mapped IPv6 is the IPv4 client", async () => {
    t = await createTestApp();
    t.runtime.config.trustProxy = 1;
    for (let i = 0; i < CAPACITY; i++) expect((await leaderboard(`2001:db8:1:2::${(i + 1).toString(16)}`)).status).toBe(200);
    expectEnvelope(await leaderboard("2001:db8:1:2:ffff:ffff:ffff:ffff"), 429, "rate_limited");
    expectEnvelope(await leaderboard("[2001:db8:1:2::99]:443"), 429, "rate_limited");
    expect((await leaderboard("2001:db8:1:3::1")).status).toBe(200);

    for (let i = 0; i < CAPACITY; i++) expect((await leaderboard(i % 2 ? "203.0.113.9" : "::ffff:203.0.113.9")).status).toBe(200);
    expectEnvelope(await leaderboard("203.0.113.9:5000"), 429, "rate_limited");
  });

  test(`an X-Forwarded-For over ${MAX_FORWARDED_FOR} characters is 400 and still costs its client a token`, async () => {
    t = await createTestApp();
    t.runtime.config.trustProxy = 1;
    const padded = `${"1.1.1.1, ".repeat(1000)}203.0.113.7`;
    const refused = await leaderboard(padded);
    expectEnvelope(refused, 400, "invalid_request");
    expect(refused.body.error.message).toContain("X-Forwarded-For");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe(String(CAPACITY - 1));
    for (let i = 1; i < CAPACITY; i++) expect((await leaderboard(padded)).status).toBe(400);
    expectEnvelope(await leaderboard(padded), 429, "rate_limited");
    expectEnvelope(await leaderboard("203.0.113.7"), 429, "rate_limited");
    // Keyless routes that take no token (the badge) are not refused: an image always gets an image.
    expect((await t.call("GET", "/badge/someone", { headers: { "x-forwarded-for": padded } })).status).toBe(200);
  });
});

describe("serve --trust-proxy", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  async function serve(args: string[], env: Record<string, string> = {}) {
    const dir = tempDir("trustlist-proxy-");
    dirs.push(dir);
    const proc = Bun.spawn([trustlist(), "serve", "--port", "0", "--db", join(dir, "t.db"), "--access-log", "off", ...args], {
      stdout: "ignore",
      stderr: "pipe",
      env: { ...process.env, ...env },
    });
    const reader = proc.stderr.getReader();
    let stderr = "";
    while (!/listening on (http:\/\/\S+)/.test(stderr)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`server exited: ${stderr}`);
      stderr += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    const base = stderr.match(/listening on (http:\/\/\S+)/)![1]!;
    const leaderboard = async (forwardedFor?: string) =>
      (await fetch(`${base}/referrals/leaderboard`, { headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor } })).status;
    return { proc, leaderboard };
  }

  test.each([
    ["a bare --trust-proxy as the last flag", ["--trust-proxy"], {}],
    ["TRUSTLIST_TRUST_PROXY=yes", [], { TRUSTLIST_TRUST_PROXY: "yes" }],
  ])("%s trusts one proxy: spoofed left entries share the appended address's bucket", async (_, args, env) => {
    const server = await serve(args, env);
    try {
      const statuses: number[] = [];
      for (let i = 0; i <= CAPACITY; i++) statuses.push(await server.leaderboard(`10.0.${i}.1, 203.0.113.7`));
      expect(statuses.at(-1)).toBe(429);
      expect(await server.leaderboard("203.0.113.8")).toBe(200);
    } finally {
      server.proc.kill("SIGTERM");
      await server.proc.exited;
    }
  });

  test("--trust-proxy 2 before other flags; without the header the socket address is the client", async () => {
    const server = await serve(["--trust-proxy", "2", "--host", "127.0.0.1"]);
    try {
      for (let i = 0; i < CAPACITY; i++) expect(await server.leaderboard(`10.0.${i}.1, 203.0.113.7, 10.9.9.${i}`)).toBe(200);
      expect(await server.leaderboard("203.0.113.7")).toBe(200); // one entry: the socket's bucket
      expect(await server.leaderboard("10.0.0.1, 203.0.113.7, 10.9.9.1")).toBe(429);
      for (let i = 1; i < CAPACITY; i++) expect(await server.leaderboard()).toBe(200);
      expect(await server.leaderboard()).toBe(429);
    } finally {
      server.proc.kill("SIGTERM");
      await server.proc.exited;
    }
  });
});
