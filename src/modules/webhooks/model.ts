// Schemas of the webhook routes, declared once: they validate requests, describe responses in
// /openapi.json and type the handlers.
import { t } from "elysia";
import { DateTime, JsonInteger } from "../../http/model";

const ENDPOINT_ID = "wh_01jd5x8q3m7k2c9v4n6p8r0s1t";
const DELIVERY_ID = "msg_01jd5x9a2b3c4d5e6f7g8h9j0k";

export const WebhookUrl = t.String({
  minLength: 1,
  maxLength: 2048,
  description:
    "Where deliveries are POSTed. HTTPS only; its host must resolve to public addresses only (private, loopback and link-local ones are refused, also when a delivery is made), unless the server runs with `--allow-private-webhooks`.",
  examples: ["https://bot.example.org/trustlist/webhooks"],
});

export const EventNames = t.Array(
  t.String({ description: "An event name: `blacklist.added`, `blacklist.overturned`, `creator.blacklisted`, `deal.confirmed` or `deal.declined`.", examples: ["blacklist.added"] }),
  { minItems: 1, maxItems: 16, description: "Events to receive (an unknown name is 422).", examples: [["blacklist.added", "blacklist.overturned"]] },
);

export const NewWebhookBody = t.Object(
  { url: WebhookUrl, events: EventNames },
  { $id: "NewWebhookBody", additionalProperties: t.Never(), description: "A webhook endpoint to register." },
);

export const WebhookPatchBody = t.Object(
  {
    url: t.Optional(WebhookUrl),
    events: t.Optional(EventNames),
    enabled: t.Optional(t.Boolean({ description: "`true` re-enables an endpoint that was disabled (its pending deliveries resume); `false` pauses it." })),
  },
  { $id: "WebhookPatchBody", additionalProperties: t.Never(), description: "Fields to change; absent ones stay." },
);

export const WebhookParams = t.Object({ id: t.String({ maxLength: 64, description: "Webhook endpoint id.", examples: [ENDPOINT_ID] }) });

const endpointFields = {
  id: t.String({ description: "Webhook endpoint id.", examples: [ENDPOINT_ID] }),
  url: t.String({ description: "Destination of the deliveries.", examples: ["https://bot.example.org/trustlist/webhooks"] }),
  events: t.Array(t.String(), { description: "Events the endpoint receives.", examples: [["blacklist.added"]] }),
  enabled: t.Boolean({ description: "False once disabled (by its owner, or after every attempt failed for 5 days); re-enable with PATCH `{enabled: true}`." }),
  disabled_reason: t.Nullable(
    t.String({ description: "Why the endpoint is disabled; null while enabled.", examples: ["Every delivery attempt failed for 5 days (since 2026-11-16T10:00:00.000Z); last: HTTP 500."] }),
  ),
  disabled_at: t.Nullable(DateTime("When it was disabled; null while enabled.")),
  failing_since: t.Nullable(DateTime("First failed attempt since the last success; null while deliveries succeed.")),
  created_at: DateTime("When it was registered."),
};

const ENDPOINT_EXAMPLE = {
  id: ENDPOINT_ID,
  url: "https://bot.example.org/trustlist/webhooks",
  events: ["blacklist.added", "blacklist.overturned"],
  enabled: true,
  disabled_reason: null,
  disabled_at: null,
  failing_since: null,
  created_at: "2026-11-21T10:00:00.000Z",
};

export const WebhookEndpoint = t.Object(endpointFields, {
  $id: "WebhookEndpoint",
  description: "A registered webhook endpoint. The signing secret is shown only when created or rotated.",
  examples: [ENDPOINT_EXAMPLE],
});

export const WebhookRegistration = t.Object(
  {
    ...endpointFields,
    secret: t.String({
      description: "Signing secret (`whsec_` + base64), returned only in this response: verify deliveries with any Standard Webhooks library.",
      examples: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
    }),
    warning: t.String({ description: "A notice to store the secret now.", examples: ["Store this secret now: it is not shown again."] }),
  },
  {
    $id: "WebhookRegistration",
    description: "A webhook endpoint with its signing secret (creation and rotation only).",
    examples: [{ ...ENDPOINT_EXAMPLE, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", warning: "Store this secret now: it is not shown again." }],
  },
);

export const WebhookList = t.Object(
  { data: t.Array(WebhookEndpoint) },
  { $id: "WebhookList", description: "The calling account's webhook endpoints, oldest first." },
);

export const DeliveryAttempt = t.Object(
  {
    attempt: JsonInteger({ description: "1 for the first attempt.", examples: [1] }),
    started_at: DateTime("When the attempt started."),
    status_code: t.Nullable(JsonInteger({ description: "HTTP status answered; null when no answer came.", examples: [200] })),
    latency_ms: JsonInteger({ description: "Time to the answer (or the failure), in ms.", examples: [84] }),
    error: t.Nullable(t.String({ description: "Why the attempt failed without an answer, or the refused status.", examples: ["timed out after 10 s"] })),
    response_excerpt: t.Nullable(t.String({ description: "The first 1,024 bytes of the answer's body.", examples: ["ok"] })),
  },
  { $id: "DeliveryAttempt", description: "One attempt of a delivery." },
);

export const WebhookDelivery = t.Object(
  {
    id: t.String({ description: "The delivery's id, sent as `webhook-id` on every attempt (the same across retries).", examples: [DELIVERY_ID] }),
    event_id: t.Nullable(t.String({ description: "The event delivered (null for a test).", examples: ["evt_01jd5x8z0a1b2c3d4e5f6g7h8j"] })),
    type: t.String({ description: "Event name, or `webhook.test`.", examples: ["blacklist.added"] }),
    status: t.Union([t.Literal("pending"), t.Literal("delivered"), t.Literal("failed")], {
      description: "`pending` until a 2xx (`delivered`) or until the last retry failed (`failed`).",
      examples: ["delivered"],
    }),
    attempt_count: JsonInteger({ description: "Attempts made so far.", examples: [1] }),
    next_attempt_at: t.Nullable(DateTime("When the next attempt is due; null once finished.")),
    created_at: DateTime("When the event was committed."),
    finished_at: t.Nullable(DateTime("When it was delivered or given up; null while pending.")),
    attempts: t.Array(DeliveryAttempt, { description: "Every attempt, first to last." }),
  },
  { $id: "WebhookDelivery", description: "One event's delivery to one endpoint, with its attempts." },
);

export const DeliveriesQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20, description: "Page size, 1-100." })),
  cursor: t.Optional(t.String({ maxLength: 512, description: "`next_cursor` of the previous page." })),
});

export const DeliveriesPage = t.Object(
  {
    data: t.Array(WebhookDelivery),
    next_cursor: t.Nullable(t.String({ description: "Opaque cursor of the next (older) page; null on the last page." })),
    has_more: t.Boolean(),
  },
  { $id: "DeliveriesPage", description: "An endpoint's deliveries, newest first (kept 30 days after they finish)." },
);

export const Deleted = t.Object(
  { id: t.String({ description: "The deleted endpoint's id.", examples: [ENDPOINT_ID] }), deleted: t.Literal(true) },
  { $id: "WebhookDeleted", description: "The endpoint is gone; its pending deliveries stop." },
);

/** The body limit of a Discord message. */
export const DISCORD_CONTENT_MAX = 2000;

export type WebhookEndpointView = typeof WebhookEndpoint.static;
export type WebhookRegistrationView = typeof WebhookRegistration.static;
export type WebhookDeliveryView = typeof WebhookDelivery.static;
export type DeliveriesPageView = typeof DeliveriesPage.static;
