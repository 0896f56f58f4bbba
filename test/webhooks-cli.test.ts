// Webhooks across a crash: a live `serve` killed with SIGKILL while deliveries are pending (some
// of them in flight) delivers them after a restart, none lost, and none sent again once its 2xx
// was recorded. On either database: a SQLite file's one server lets go of the dead run's claims
// at its start; on PostgreSQL they lapse with their lease (shortened here with --webhook-lease).
import { afterAll, expect, test } from "bun:test";
import { MIN_WEBHOOK_LEASE_MS } from "../src/config";
import { databasesOfThisFile } from "./backend";
import { cliJson, MAIN, startServer } from "./cli-helpers";
import { Receiver } from "./webhook-receiver";

const receiver = new Receiver();
afterAll(() => receiver.stop());
const databases = databasesOfThisFile();

const FLAGS = ["--allow-private-webhooks", "--webhook-retry-delays", "50,50,50,50,50,50,50", "--webhook-lease", String(MIN_WEBHOOK_LEASE_MS)];

test("SIGKILL while deliveries are pending: after a restart every event arrives, none twice after its 2xx", async () => {
  const db = await databases.location();
  let server = await startServer([process.execPath, MAIN], db, undefined, true, FLAGS);
  try {
    cliJson(db, "accounts", "create", "--name", "hooks", "--tier", "pro");
    const reader = cliJson(db, "keys", "create", "--account", "hooks", "--burst", "1000").key as string;
    const writer = cliJson(db, "keys", "create", "--account", "hooks", "--scope", "write", "--burst", "1000").key as string;
    const call = (method: string, path: string, key: string, body?: unknown) =>
      fetch(`${server.base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });

    const registered = await call("POST", "/v1/webhooks", reader, { url: receiver.url("/crash"), events: ["blacklist.added"] });
    expect(registered.status).toBe(201);
    const endpoint = (await registered.json()) as { id: string; secret: string };

    // The first 5 are answered 200; then the receiver hangs, so attempts are in flight at the kill.
    receiver.answer = (_r, i) => (i < 5 ? 200 : "hang");
    const entries: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await call("POST", "/v1/partner/blacklist", writer, { provider: "roblox", provider_user_id: String(7000 + i), severity: "ban", reason_code: "scam_trade" });
      expect(res.status).toBe(201);
      entries.push(((await res.json()) as { id: string }).id);
    }
    // Wait until the first 5 are recorded as delivered and more attempts hang in flight.
    const deadline = Date.now() + 15_000;
    for (;;) {
      const page = (await (await call("GET", `/v1/webhooks/${endpoint.id}/deliveries?limit=100`, reader)).json()) as { data: { status: string }[] };
      if (page.data.filter((d) => d.status === "delivered").length === 5 && receiver.received.length > 5) break;
      if (Date.now() > deadline) throw new Error(`not settled: ${JSON.stringify(page.data.map((d) => d.status))}`);
      await Bun.sleep(50);
    }

    server.proc.kill("SIGKILL");
    await server.proc.exited;
    receiver.answer = () => 200;
    server = await startServer([process.execPath, MAIN], db, undefined, false, FLAGS);

    const okIds = () => receiver.received.filter((r) => r.answered === 200).map((r) => r.headers["webhook-id"]!);
    // On PostgreSQL the dead run's leases lapse first (at most MIN_WEBHOOK_LEASE_MS after the kill).
    await receiver.waitFor(() => new Set(okIds()).size === 20, MIN_WEBHOOK_LEASE_MS + 20_000);
    // Room for a duplicate to show.
    await Bun.sleep(500);
    const ok = okIds();
    expect(ok).toHaveLength(20);
    expect(new Set(ok).size).toBe(20);
    const delivered = receiver.received.filter((r) => r.answered === 200).map((r) => (Receiver.verify(endpoint.secret, r) as { data: { id: string } }).data.id);
    expect(delivered.sort()).toEqual([...entries].sort());

    const page = (await (await call("GET", `/v1/webhooks/${endpoint.id}/deliveries?limit=100`, reader)).json()) as { data: { status: string }[] };
    expect(page.data.map((d) => d.status)).toEqual(new Array(20).fill("delivered"));
  } finally {
    server.proc.kill("SIGKILL");
    await server.proc.exited;
  }
}, 60_000);
