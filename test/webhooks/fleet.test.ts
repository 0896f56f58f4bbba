// Two `trustlist serve` processes on one PostgreSQL database share the webhook work: 1,000
// events written through both are delivered exactly once between them (claims are leased with
// FOR UPDATE SKIP LOCKED). Real processes on a real PostgreSQL database; skipped on SQLite, where
// one file has one server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { backend, databasesOfThisFile, until } from "../backend";
import { type Server, startServer, trustlist } from "../cli-helpers";
import { Receiver } from "../webhook-receiver";

const onPostgres = backend === "postgres" ? describe : describe.skip;
const FLAGS = ["--allow-private-webhooks"];

onPostgres("webhooks from two instances on one PostgreSQL database", () => {
  const databases = databasesOfThisFile();
  const receiver = new Receiver();
  let a: Server;
  let b: Server;
  let admin: string;

  const call = async (server: Server, method: string, path: string, key: string, body?: unknown) => {
    const res = await fetch(`${server.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };

  beforeAll(async () => {
    const location = await databases.location();
    a = await startServer([trustlist()], location, undefined, true, FLAGS);
    admin = a.stderr.match(/tl_live_\w{32}/)![0];
    b = await startServer([trustlist()], location, undefined, false, FLAGS);
  }, 30_000);

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    receiver.stop();
  });

  test("1,000 events reach the receiver exactly once, each instance delivering a share", async () => {
    const account = await call(a, "POST", "/v1/admin/accounts", admin, { name: "hooks", tier: "pro", daily_quota: 1_000_000 });
    expect(account.status).toBe(201);
    const key = async (scope: string) => (await call(a, "POST", `/v1/admin/accounts/${account.body.id}/keys`, admin, { scope, rate_tier: "partner", burst: 100_000 })).body.key as string;
    const reader = await key("read");
    const writer = await key("write");
    const endpoint = await call(a, "POST", "/v1/webhooks", reader, { url: receiver.url("/fleet"), events: ["blacklist.added"] });
    expect(endpoint.status).toBe(201);

    const entries: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < 1000) {
          const n = next++;
          // Everything keyed goes through A and B only delivers: a key lookup on one instance
          // that races another's commit is not cached (KeyRegistry.load) and answers 401.
          const added = await call(a, "POST", "/v1/partner/blacklist", writer, {
            provider: "roblox",
            provider_user_id: String(500_000 + n),
            severity: "ban",
            reason_code: "scam_trade",
          });
          expect(added.status).toBe(201);
          entries.push(added.body.id);
        }
      }),
    );

    await receiver.waitFor(() => receiver.at("/fleet").length >= 1000, 60_000);
    // Each instance's own count of deliveries, recorded once it has read the receiver's 2xx.
    const deliveredBy = async (server: Server) => {
      const res = await fetch(`${server.base}/metrics`, { headers: { authorization: `Bearer ${admin}` } });
      const line = (await res.text()).split("\n").find((l) => l.startsWith('trustlist_webhook_attempts_total{outcome="delivered"}'));
      return line ? Number(line.split(" ")[1]) : 0;
    };
    // Until both have recorded every answer: a duplicate sent meanwhile would show below.
    expect(await until(async () => (await deliveredBy(a)) + (await deliveredBy(b)) >= 1000, 30_000)).toBe(true);
    const requests = receiver.at("/fleet");
    expect(requests).toHaveLength(1000);
    expect(new Set(requests.map((r) => r.headers["webhook-id"])).size).toBe(1000);
    const delivered = requests.map((r) => (Receiver.verify(endpoint.body.secret, r) as { data: { id: string } }).data.id);
    expect(delivered.sort()).toEqual(entries.sort());

    // Together exactly the 1,000, and both took part.
    const [byA, byB] = [await deliveredBy(a), await deliveredBy(b)];
    expect(byA + byB).toBe(1000);
    expect(byA).toBeGreaterThan(0);
    expect(byB).toBeGreaterThan(0);
  }, 90_000);
});
