// GET /openapi.json and GET /docs. The document is generated from the same route schemas that
// validate requests (@elysiajs/openapi's generator), then finished by openapi-document.ts; /docs
// is Scalar's reference, its script served by the binary: self-hosters may have no CDN.
import { toOpenAPISchema } from "@elysiajs/openapi";
import { unwrapSchema } from "@elysiajs/openapi/openapi";
import { ScalarRender } from "@elysiajs/openapi/scalar";
import { OptionalKind } from "@sinclair/typebox";
import { Elysia, t, type TSchema } from "elysia";
// The docs UI's script, embedded in the binary.
import scalarScript from "../../node_modules/@scalar/api-reference/dist/browser/standalone.js" with { type: "file" };
import type { Runtime } from "../runtime";
import { sessionCookieName, sessionsAreSecure } from "./session-cookie";
import { isKeyedPath } from "./conventions";
import { idempotencyHeaderReferences } from "./idempotency";
import { finishDocument } from "./openapi-document";
import { DateTime } from "./model";
import { BlacklistEntry } from "../modules/blacklist/model";
import { CreatorProfile } from "../modules/creators/model";
import { Deal } from "../modules/network/model";
import type { EventType } from "../modules/outbox/service";
import { TEST_EVENT } from "../modules/webhooks/service.deliveries";
import { WebhookEndpoint } from "../modules/webhooks/model";

const SPEC_PATH = "/openapi.json";
const DOCS_PATH = "/docs";
const SCALAR_PATH = "/docs/assets/scalar.js";

const INFO = {
  title: "trustlist",
  version: "1.0.0",
  description:
    "Creator Trust and Blacklist API. Keyed routes take `Authorization: Bearer <key>`; every error is `{error: {code, message, request_id}}`; every response carries `X-Request-Id` and the `X-RateLimit-*` headers, and a 429 carries `Retry-After`.",
};

const DOCUMENTATION = {
  info: INFO,
  tags: [
    { name: "Blacklist", description: "Keyed reads of the global blacklist." },
    { name: "Creators", description: "Keyed reads of creator profiles and Trust Scores." },
    { name: "Public", description: "Keyless: search, trust tiers, directory, vouches, counters, leaderboard, badge. Limited per client IP." },
    { name: "Partner", description: "Write-scoped keys: blacklist entries, creators, linked accounts, vouches, deals, reviews, referrals, servers." },
    { name: "Account", description: "The calling key's usage." },
    { name: "Admin", description: "Admin-scoped keys: accounts, keys and running a job now." },
    { name: "Sign-in", description: "One-time sign-in links, the `session` cookie, and the signed-in creator's own reads." },
    { name: "Courses", description: "Creator-education courses: keyless reads (a session adds your progress); submissions need a session." },
    { name: "Tripwires", description: "Signed-in creators' alerts on a handle or a Discord account: blacklisted, trust drop, new connection." },
    { name: "Ops", description: "Health and metrics." },
  ],
  components: {
    securitySchemes: {
      apiKey: { type: "http", scheme: "bearer", description: "An API key, `tl_live_…`." },
      session: {
        type: "apiKey",
        in: "cookie",
        name: "session",
        description:
          "A signed-in web session, set by `GET /auth/magic` (named `__Host-session` where the service is served over https). Never an API key. Writes made with it must carry this service's own `Origin`.",
      },
    },
  },
  security: [{ apiKey: [] }],
};

// What each event's delivery carries as `data` (docs/webhooks.md), from the models the routes
// answer with, so the webhooks section cannot drift from the payloads. Keyed by EventType: a new
// event without its payload here does not compile.
const DealEvent = t.Object({ deal_id: Deal.properties.id, from: Deal.properties.from, to: Deal.properties.to, status: Deal.properties.status });
const EVENT_DATA: Record<EventType | typeof TEST_EVENT, { summary: string; data: TSchema }> = {
  "blacklist.added": { summary: "An entry was added (the public-safe entry view).", data: BlacklistEntry },
  "blacklist.overturned": { summary: "An entry was overturned (the public-safe entry view).", data: BlacklistEntry },
  "creator.blacklisted": {
    summary: "A creator became blacklisted; `entry_id` is null unless the ban ties to the creator in public.",
    data: t.Object({ creator_id: t.String(), handle: CreatorProfile.properties.handle, entry_id: t.Nullable(BlacklistEntry.properties.id) }),
  },
  "deal.confirmed": { summary: "A deal was confirmed.", data: DealEvent },
  "deal.declined": { summary: "A deal was declined.", data: DealEvent },
  [TEST_EVENT]: { summary: "A test delivery queued with `POST /v1/webhooks/{id}/test`.", data: t.Object({ webhook_id: WebhookEndpoint.properties.id, message: t.String() }) },
};

const SIGNATURE_HEADERS = [
  { name: "webhook-id", description: "The delivery's `msg_…` id, the same on every retry: drop duplicates by it." },
  { name: "webhook-timestamp", description: "The attempt's Unix seconds." },
  { name: "webhook-signature", description: "`v1,<base64 HMAC-SHA256 of \"id.timestamp.body\">`, keyed by the base64 after `whsec_` (Standard Webhooks)." },
].map((header) => ({ in: "header", required: true, schema: { type: "string" }, ...header }));

/** OpenAPI's `webhooks`: one POST per event an endpoint receives, so generators type the deliveries. */
const WEBHOOKS = Object.fromEntries(
  Object.entries(EVENT_DATA).map(([type, { summary, data }]) => [type, {
    post: {
      operationId: `on_${type.replace(".", "_")}`,
      summary,
      parameters: SIGNATURE_HEADERS,
      requestBody: {
        required: true,
        content: {
          "application/json": {
            // In the form the generator gives the routes' schemas, so a shared model is recognised as the same.
            schema: unwrapSchema(t.Object({ type: t.Literal(type), timestamp: DateTime("When the event was committed."), data }), undefined, "output", "3.1.2"),
          },
        },
      },
      responses: { "200": { description: "Any 2xx within 10 s counts as delivered; anything else is retried." } },
    },
  }]),
);

// The page uses system fonts and makes no request to another host, so it works where a
// self-hoster has no internet access. Scalar's hosted extras (telemetry, AI chat, MCP, deploy
// toolbar) are switched off for the same reason.
const SCALAR_CONFIG = {
  // Relative, as the generator's own page has it: /docs and /openapi.json sit side by side.
  url: SPEC_PATH.slice(1),
  cdn: SCALAR_PATH,
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: "never",
  showToolbar: "never",
  mcp: { disabled: true },
  agent: { disabled: true },
  _integration: "elysiajs",
} as unknown as Parameters<typeof ScalarRender>[1];

/** Elysia's `/a/:b` as OpenAPI's `/a/{b}`. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, "{$1}");

export function apiDocs(runtime: Runtime) {
  const page = ScalarRender(INFO, SCALAR_CONFIG);
  let cached: { routes: number; document: Record<string, unknown> } | null = null;
  const app = new Elysia({ name: "api-docs" });
  return app
    .get(SPEC_PATH, () => {
      // Every route of the application, wherever this plugin is mounted (a plugin's own `routes`
      // are only its three). Generated on first use, again only if routes were added since.
      const routes = (app as unknown as { getGlobalRoutes(): typeof app.routes }).getGlobalRoutes();
      if (cached?.routes !== routes.length) {
        // Every keyed write documents the Idempotency-Key header (http/idempotency.ts). Paths with a
        // dot are not taken for static files: the served files are hidden, and the identity
        // document (/.well-known/trustlist.json) is an API route.
        const generated = toOpenAPISchema(app as never, { staticFile: false } as never, idempotencyHeaderReferences(routes, isKeyedPath) as never);
        const document = {
          openapi: "3.1.2",
          ...DOCUMENTATION,
          paths: generated.paths,
          webhooks: WEBHOOKS,
          components: {
            // The cookie's name depends on the deployment: `__Host-session` on https (http/auth.ts).
            securitySchemes: {
              ...DOCUMENTATION.components.securitySchemes,
              session: { ...DOCUMENTATION.components.securitySchemes.session, name: sessionCookieName(sessionsAreSecure(runtime.config.baseUrl)) },
            },
            schemas: generated.components.schemas,
          },
        };
        // A body declared `t.Optional` may be left out; the generator marks every body required.
        const optionalBodies = new Set(
          routes.filter((r) => r.hooks?.body && OptionalKind in r.hooks.body).map((r) => `${r.method.toLowerCase()} ${openApiPath(r.path)}`),
        );
        cached = { routes: routes.length, document: finishDocument(document, { baseUrl: runtime.config.baseUrl, optionalBodies }) };
      }
      return cached.document;
    }, { detail: { hide: true } })
    .get(DOCS_PATH, () => new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } }), { detail: { hide: true } })
    .get(SCALAR_PATH, () => new Response(Bun.file(scalarScript), {
      headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" },
    }), { detail: { hide: true } });
}
