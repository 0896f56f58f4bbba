// The OpenAPI document's `webhooks` section, against real deliveries: one entry per event an
// endpoint can subscribe to (and `webhook.test`), each a signed POST whose body schema every
// delivery the server actually sends satisfies. A receiver subscribed to every event gets each
// one made by the routes a partner uses; each body is checked against its schema in the document
// as a client generator reads it ($refs resolved).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock";
import { WebhookWorker } from "../../src/jobs/webhook-worker";
import { EVENT_TYPES } from "../../src/modules/outbox/service";
import { createTestApp, partnerWriter, type TestApp } from "../helpers";
import { Receiver } from "../webhook-receiver";

let t: TestApp;
let receiver: Receiver;
let worker: WebhookWorker;
let doc: any;
let secret = "";
let hookId = "";

beforeAll(async () => {
  t = await createTestApp({ clock: new ManualClock(Date.now()), config: { allowPrivateWebhooks: true } });
  receiver = new Receiver();
  worker = new WebhookWorker(t.services.webhooks, t.clock, t.runtime.metrics, t.runtime.log, { pollMs: 10 });
  doc = await (await t.app.handle(new Request("http://localhost/openapi.json"))).json();
  const pro = await t.account({ tier: "pro", burst: 10_000 });
  const hook = await t.json("POST", "/v1/webhooks", { key: pro.key, body: { url: receiver.url("/all"), events: [...EVENT_TYPES] } });
  expect(hook.status).toBe(201);
  secret = hook.body.secret;
  hookId = hook.body.id;
  t.clock.advance(1);

  const write = await partnerWriter(t);
  await write("PUT", "/v1/partner/creators/openoscar", {});
  await write("PUT", "/v1/partner/creators/bettybuilds", {});
  await write("POST", "/v1/partner/creators/openoscar/connections", { provider: "discord", provider_user_id: "322222222222222222", provider_username: "oscar_dc" });
  const entry = await write("POST", "/v1/partner/blacklist", { provider: "discord", provider_user_id: "322222222222222222", severity: "ban", reason_code: "scam_trade", summary: "Never delivered." });
  await write("POST", `/v1/partner/blacklist/${entry.id}/overturn`, { reason: "appeal upheld" });
  const confirmed = await write("POST", "/v1/partner/deals", { from: "bettybuilds", to: "openoscar" });
  await write("POST", `/v1/partner/deals/${confirmed.id}/confirm`, undefined);
  const declined = await write("POST", "/v1/partner/deals", { from: "bettybuilds", to: "openoscar" });
  await write("POST", `/v1/partner/deals/${declined.id}/decline`, undefined);
  expect((await t.json("POST", `/v1/webhooks/${hookId}/test`, { key: pro.key })).status).toBe(202);
  await worker.drain();
});
afterAll(async () => {
  await worker.stop();
  receiver.stop();
  await t.close();
});

/** Problems of `value` under `schema` (the keywords the document uses), with $refs resolved in `doc`. */
function problems(value: unknown, schema: any, path = "$"): string[] {
  if (schema.$ref) return problems(value, doc.components.schemas[schema.$ref.split("/").pop()], path);
  if (schema.anyOf) return schema.anyOf.some((branch: any) => problems(value, branch, path).length === 0) ? [] : [`${path}: matches no branch`];
  if ("const" in schema && value !== schema.const) return [`${path}: not ${schema.const}`];
  if (schema.enum && !schema.enum.includes(value)) return [`${path}: not one of ${schema.enum}`];
  const types: string[] = schema.type === undefined ? [] : [schema.type].flat();
  const actual = value === null ? "null" : Array.isArray(value) ? "array" : Number.isInteger(value) ? "integer" : typeof value;
  if (types.length && !types.includes(actual) && !(actual === "integer" && types.includes("number"))) return [`${path}: ${actual}, not ${types}`];
  if (actual !== "object") return [];
  const object = value as Record<string, unknown>;
  return [
    ...(schema.required ?? []).filter((key: string) => !(key in object)).map((key: string) => `${path}.${key}: missing`),
    ...Object.keys(object).filter((key) => !schema.properties?.[key]).map((key) => `${path}.${key}: not in the schema`),
    ...Object.entries(object).flatMap(([key, v]) => (schema.properties?.[key] ? problems(v, schema.properties[key], `${path}.${key}`) : [])),
  ];
}

test("one webhook per subscribable event and webhook.test, each a signed JSON POST", () => {
  expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES, "webhook.test"].sort());
  for (const [name, item] of Object.entries<any>(doc.webhooks)) {
    expect(item.post.parameters.map((p: any) => p.name)).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
    const body = item.post.requestBody.content["application/json"].schema;
    expect(body.properties.type).toMatchObject({ const: name });
    expect(body.required).toEqual(["type", "timestamp", "data"]);
  }
  // The blacklist events reuse the entry model the routes answer with.
  expect(doc.webhooks["blacklist.added"].post.requestBody.content["application/json"].schema.properties.data).toEqual({ $ref: "#/components/schemas/BlacklistEntry" });
});

test("every delivery the server sent satisfies its event's schema in the document", () => {
  const bodies = receiver.at("/all").map((request) => Receiver.verify(secret, request));
  expect(bodies.map((b) => b.type).sort()).toEqual([...EVENT_TYPES, "webhook.test"].sort());
  for (const body of bodies) {
    expect({ type: body.type, problems: problems(body, doc.webhooks[body.type].post.requestBody.content["application/json"].schema) }).toEqual({ type: body.type, problems: [] });
  }
});

test("the checker fails a body that drifts from the schema", () => {
  const schema = doc.webhooks["creator.blacklisted"].post.requestBody.content["application/json"].schema;
  const good = { type: "creator.blacklisted", timestamp: "2026-11-21T10:00:00.000Z", data: { creator_id: "crt_1", handle: "x", entry_id: null } };
  expect(problems(good, schema)).toEqual([]);
  expect(problems({ ...good, data: { ...good.data, provider_user_id: "1" } }, schema)).toEqual(["$.data.provider_user_id: not in the schema"]);
  expect(problems({ ...good, type: "deal.confirmed" }, schema)).toEqual(["$.type: not creator.blacklisted"]);
});
