// /metrics in Prometheus text: request counters by route pattern and status, latency, gauges.
import { afterEach, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers";

let t: TestApp;
afterEach(() => t?.close());

test("requests are counted by method, route pattern and status; gauges read the store", async () => {
  t = await createTestApp();
  const admin = await t.account({ tier: "enterprise", scope: "admin", burst: 10_000 });
  await t.services.blacklist.add({ provider: "discord", provider_user_id: "1", severity: "ban", reason_code: "scam" }, { kind: "cli", id: "test" });
  await t.services.blacklist.add({ provider: "discord", provider_user_id: "2", severity: "warn", reason_code: "spam", watchlist: true }, { kind: "cli", id: "test" });
  for (const id of ["1", "2", "3"]) await t.call("GET", `/v1/blacklist/check?provider=discord&id=${id}`, { key: admin.key });
  await t.call("GET", "/v1/blacklist/check?provider=nope&id=1", { key: admin.key });
  await t.call("GET", "/v1/blacklist/entries/bl_missing", { key: admin.key });
  await t.call("GET", "/no/such/route");

  const text = await (await t.call("GET", "/metrics", { key: admin.key })).text();
  const sample = (line: string) => text.split("\n").find((l) => l.startsWith(line + " "))?.split(" ")[1];
  expect(sample('trustlist_http_requests_total{method="GET",route="/v1/blacklist/check",status="200"}')).toBe("3");
  expect(sample('trustlist_http_requests_total{method="GET",route="/v1/blacklist/check",status="400"}')).toBe("1");
  expect(sample('trustlist_http_requests_total{method="GET",route="/v1/blacklist/entries/:id",status="404"}')).toBe("1");
  expect(sample('trustlist_http_requests_total{method="GET",route="unmatched",status="404"}')).toBe("1");
  expect(sample('trustlist_http_request_duration_seconds_bucket{le="+Inf"}')).toBe("6");
  expect(sample("trustlist_http_request_duration_seconds_count")).toBe("6");
  // The watchlist row is not a listed entry.
  expect(sample("trustlist_blacklist_active_entries")).toBe("1");
  expect(sample("trustlist_outbox_pending_events")).toBe("1");
  expect(Number(sample("trustlist_process_resident_memory_bytes"))).toBeGreaterThan(1_000_000);
});
