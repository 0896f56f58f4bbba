// The destination guard is no DNS oracle: a refused URL (webhook registration, a tripwire's Discord
// webhook, a delivery attempt) never says what its host resolves to, nor whether it resolved at
// all, and the tripwire route refuses a host that is not Discord's before looking anything up.
// The app runs without --allow-private-webhooks, with a resolver the test controls and counts: no
// name here is looked up in real DNS, and nothing is sent anywhere (every destination is refused).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock";
import { WebhookWorker } from "../../src/jobs/webhook-worker";
import { createTestApp, expectEnvelope, partnerWriter, type TestApp } from "../helpers";

/** What the test's resolver answers; a missing name does not resolve. */
const ZONE: Record<string, string[]> = {
  vm: ["127.0.0.1"],
  "intranet.example": ["10.20.30.40"],
  "metadata.example": ["169.254.169.254"],
  "v6.example": ["fd00::7"],
  "split.example": ["93.184.216.34", "192.168.1.9"],
  "public.example": ["93.184.216.34"],
};

const IP_ADDRESS = /\b\d{1,3}(\.\d{1,3}){3}\b|[0-9a-f]{0,4}:[0-9a-f]{0,4}:[0-9a-f:]*/i;
const REFUSAL = "url: The host does not resolve to a public address (private, loopback, link-local and reserved addresses are refused).";

let t: TestApp;
let lookups: string[];

beforeEach(async () => {
  t = await createTestApp({ clock: new ManualClock(Date.now()) });
  lookups = [];
  t.services.webhooks.options.policy.resolve = async (name) => {
    lookups.push(name);
    const addresses = ZONE[name];
    if (!addresses) throw new Error(`getaddrinfo ENOTFOUND ${name}`);
    return addresses;
  };
});
afterEach(() => t.close());

describe("POST /v1/webhooks", () => {
  let key: string;
  beforeEach(async () => {
    key = (await t.account({ tier: "pro" })).key;
  });
  const register = (url: string) => t.json("POST", "/v1/webhooks", { key, body: { url, events: ["blacklist.added"] } });

  test("a name resolving privately and a name that does not resolve get the same refusal, naming no address", async () => {
    for (const url of ["https://vm:8443/", "https://intranet.example/hook", "https://metadata.example/", "https://v6.example/", "https://split.example/", "https://no-such.example/", "https://127.0.0.1/", "https://[::1]/x"]) {
      const res = await register(url);
      expectEnvelope(res, 422, "unprocessable");
      expect(res.body.error.message, url).toBe(REFUSAL);
      expect(res.body.error.message, url).not.toMatch(IP_ADDRESS);
    }
    expect((await t.json("GET", "/v1/webhooks", { key })).body.data).toEqual([]);
  });

  test("a name resolving only to public addresses is registered", async () => {
    const res = await register("https://public.example/hook");
    expect(res.status).toBe(201);
    expect(res.body.url).toBe("https://public.example/hook");
    expect(lookups).toEqual(["public.example"]);
  });

  test("a delivery attempt to a name now resolving privately records the refusal without the address", async () => {
    const hook = await register("https://public.example/hook");
    expect(hook.status).toBe(201);
    // The name rebinds to a private address after registration.
    ZONE["public.example"] = ["10.9.8.7"];
    try {
      const write = await partnerWriter(t);
      await write("POST", "/v1/partner/blacklist", { provider: "discord", provider_user_id: "300000000000000001", severity: "ban", reason_code: "scam_trade" });
      const worker = new WebhookWorker(t.services.webhooks, t.clock, t.runtime.metrics, t.runtime.log);
      await worker.drain();
      await worker.stop();
      const page = await t.json("GET", `/v1/webhooks/${hook.body.id}/deliveries`, { key });
      expect(page.status).toBe(200);
      const attempt = page.body.data[0].attempts[0];
      expect(attempt.error).toBe(`refused: ${REFUSAL.slice("url: ".length)}`);
      expect(JSON.stringify(page.body)).not.toContain("10.9.8.7");
      const endpoint = await t.json("GET", `/v1/webhooks/${hook.body.id}`, { key });
      expect(JSON.stringify(endpoint.body)).not.toContain("10.9.8.7");
    } finally {
      ZONE["public.example"] = ["93.184.216.34"];
    }
  });
});

describe("PUT /v1/me/tripwires/preferences", () => {
  let cookie: string;
  beforeEach(async () => {
    const write = await partnerWriter(t);
    await write("PUT", "/v1/partner/creators/freefred", {});
    const { key } = await t.account({ scope: "write" });
    const link = new URL((await t.json("POST", "/v1/partner/login-links", { key, body: { handle: "freefred" } })).body.url);
    cookie = (await t.call("GET", link.pathname + link.search)).headers.get("set-cookie")!.split(";")[0]!;
  });
  const setUrl = (url: string) => t.json("PUT", "/v1/me/tripwires/preferences", { body: { discord_webhook_url: url }, headers: { cookie } });

  test("a host that is not Discord's is refused before any look-up, whatever it would resolve to", async () => {
    for (const url of ["https://vm:8443/api/webhooks/1/abc", "https://intranet.example/api/webhooks/1/abc", "https://no-such.example/x", "https://127.0.0.1/api/webhooks/1/abc", "https://discord.com.evil.example/api/webhooks/1/abc"]) {
      const res = await setUrl(url);
      expectEnvelope(res, 422, "unprocessable");
      expect(res.body.error.message, url).toBe("url: not a Discord webhook URL (https://discord.com/api/webhooks/{id}/{token}).");
    }
    // A Discord host with another path is not a webhook either.
    expectEnvelope(await setUrl("https://discord.com/channels/1/2"), 422, "unprocessable");
    expect(lookups).toEqual([]);
    expect((await t.json("GET", "/v1/me/tripwires", { headers: { cookie } })).body.preferences.discord_webhook_url).toBeNull();
  });

  test("a Discord webhook URL is then resolved: refused without naming the address when it is not public, kept when it is", async () => {
    const url = "https://discord.com/api/webhooks/123456789012345678/tok-EN_1";
    ZONE["discord.com"] = ["127.0.0.1"];
    try {
      const refused = await setUrl(url);
      expectEnvelope(refused, 422, "unprocessable");
      expect(refused.body.error.message).toBe(REFUSAL);
      expect(lookups).toEqual(["discord.com"]);
      ZONE["discord.com"] = ["162.159.135.232"];
      const kept = await setUrl(url);
      expect(kept.status).toBe(200);
      expect(kept.body.discord_webhook_url).toBe(url);
    } finally {
      delete ZONE["discord.com"];
    }
  });
});
