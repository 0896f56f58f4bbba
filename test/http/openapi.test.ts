// /openapi.json is generated from the same schemas that validate requests; /docs is served from
// the binary. Every route must be described with its responses and error statuses.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { isSessionPath } from "../../src/http/conventions";
import { createTestApp, type TestApp } from "../helpers";

let t: TestApp;
let spec: any;
beforeAll(async () => {
  t = await createTestApp();
  const res = await t.call("GET", "/openapi.json");
  expect(res.status).toBe(200);
  spec = await res.json();
});
afterAll(() => t.close());

/** Routes left out of the document: the docs themselves, scripts and pages (`detail: { hide: true }`). */
const isHidden = (route: { hooks?: any }) => route.hooks?.detail?.hide === true;
const toOpenApiPath = (path: string) => path.replace(/:(\w+)/g, "{$1}");
/** A `$ref` inside the document, followed. */
const resolve = (node: any) => (node?.$ref ? node.$ref.slice(2).split("/").reduce((at: any, key: string) => at[key], spec) : node);

test("the description is version 1.0.0 with bearer security", () => {
  expect(spec.openapi).toStartWith("3.");
  expect(spec.info).toMatchObject({ title: "trustlist", version: "1.0.0" });
  expect(spec.components.securitySchemes.apiKey).toMatchObject({ type: "http", scheme: "bearer" });
});

test("every route the app serves is described, with a success schema and its error statuses", () => {
  const routes = t.app.routes.filter((r) => !isHidden(r));
  expect(routes.length).toBeGreaterThan(15);
  for (const route of routes) {
    const operation = spec.paths[toOpenApiPath(route.path)]?.[route.method.toLowerCase()];
    expect(operation, `${route.method} ${route.path}`).toBeDefined();
    const statuses = Object.keys(operation.responses ?? {});
    const success = statuses.find((s) => s.startsWith("2"));
    expect(success, `${route.method} ${route.path} success`).toBeDefined();
    expect(operation.responses[success!].content, `${route.method} ${route.path} success body`).toBeDefined();
    const keyless = route.path.startsWith("/v1/public/") || route.path === "/v1/stats/public";
    const session = isSessionPath(route.path) || route.path.startsWith("/v1/courses");
    const keyed = (route.path.startsWith("/v1/") && !keyless && !session) || route.path === "/metrics";
    if (isSessionPath(route.path)) {
      expect(operation.security, `${route.method} ${route.path} takes a session`).toEqual([{ session: [] }]);
      expect(statuses, `${route.method} ${route.path}`).toContain("401");
    }
    if (keyless) {
      expect(operation.security, `${route.method} ${route.path} needs no key`).toEqual([]);
      expect(statuses, `${route.method} ${route.path}`).toContain("429");
    }
    if (keyed) {
      for (const status of ["401", "402", "429"]) expect(statuses, `${route.method} ${route.path}`).toContain(status);
      const envelope = resolve(resolve(operation.responses["401"]).content["application/json"].schema);
      expect(JSON.stringify(envelope)).toContain("request_id");
    }
  }
});

test("the seed's error statuses are listed on the blacklist routes", () => {
  const statuses = (path: string, method: string) => Object.keys(spec.paths[path][method].responses).sort();
  expect(statuses("/v1/blacklist", "get")).toEqual(["200", "400", "401", "402", "422", "429"]);
  expect(statuses("/v1/blacklist/check", "get")).toEqual(["200", "400", "401", "402", "422", "429"]);
  expect(statuses("/v1/blacklist/check/batch", "post")).toEqual(["200", "400", "401", "402", "403", "413", "415", "422", "429"]);
  expect(statuses("/v1/blacklist/batch", "post")).toEqual(["200", "400", "401", "402", "413", "415", "422", "429"]);
  expect(statuses("/v1/blacklist/entries/{id}", "get")).toEqual(["200", "401", "402", "404", "429"]);
});

test("every route with a body lists the body reader's refusals, and every cookie write the origin refusal", () => {
  let bodies = 0;
  let cookieWrites = 0;
  for (const [path, item] of Object.entries<any>(spec.paths)) {
    for (const [method, operation] of Object.entries<any>(item)) {
      const statuses = Object.keys(operation.responses);
      if (operation.requestBody) {
        bodies++;
        expect({ path, method, statuses }).toEqual({ path, method, statuses: expect.arrayContaining(["400", "413", "415"]) });
      }
      if (method !== "get" && operation.security?.some((r: any) => "session" in r)) {
        cookieWrites++;
        expect({ path, method, statuses }).toEqual({ path, method, statuses: expect.arrayContaining(["401", "403"]) });
      }
    }
  }
  expect(bodies).toBeGreaterThanOrEqual(20);
  expect(cookieWrites).toBeGreaterThanOrEqual(4);
  expect(spec.components.responses.UnsupportedMediaType.content["application/json"].examples.unsupported_media_type.value.error.code).toBe("unsupported_media_type");
});

test("request schemas carry the validation rules and enums", () => {
  const check = spec.paths["/v1/blacklist/check"].get;
  const provider = check.parameters.find((p: any) => p.name === "provider");
  expect(provider.required).toBe(true);
  expect(JSON.stringify(provider.schema)).toContain("discord");
  const limit = spec.paths["/v1/blacklist"].get.parameters.find((p: any) => p.name === "limit");
  expect(limit.schema).toMatchObject({ minimum: 1, maximum: 100 });
  const batch = resolve(spec.paths["/v1/blacklist/check/batch"].post.requestBody.content["application/json"].schema);
  expect(JSON.stringify(batch)).toContain('"maxItems":50');
});

test("/docs is served from the binary, without a CDN", async () => {
  const page = await t.call("GET", "/docs");
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain("/docs/assets/scalar.js");
  expect(html).not.toMatch(/https?:\/\/(cdn\.jsdelivr|unpkg|cdnjs)/);
  const script = await t.call("GET", "/docs/assets/scalar.js");
  expect(script.status).toBe(200);
  expect(script.headers.get("content-type")).toContain("javascript");
});
