// Webhook management: a Pro plan or higher, any key scope (webhooks are read scope's). Every
// route answers only for the calling account's endpoints: another account's endpoint is a 404,
// like a missing one.
import { Elysia } from "elysia";
import type { Caller } from "../../http/auth";
import { ApiError } from "../../http/errors";
import { isProOrHigher, requireKey } from "../../http/guards";
import { errors, KEYED_ERRORS } from "../../http/model";
import type { Runtime } from "../../runtime";
import { DeliveriesPage, DeliveriesQuery, Deleted, NewWebhookBody, WebhookDelivery, WebhookEndpoint, WebhookList, WebhookParams, WebhookPatchBody, WebhookRegistration } from "./model";
import type { WebhooksService } from "./service";

/** 402 below Pro: managing webhooks through the API is a feature of the paid plans. */
function entitled(caller: Caller): string {
  if (!isProOrHigher(caller.apiTier)) throw new ApiError(402, "plan_upgrade_required", "Managing webhooks through the API needs a Pro plan or higher.");
  return caller.accountId;
}

export function webhookRoutes(runtime: Runtime, webhooks: WebhooksService) {
  return new Elysia({ prefix: "/v1/webhooks", tags: ["Webhooks"] })
    .use(requireKey(runtime, "read"))
    .post(
      "",
      async ({ body, caller, set }) => {
        const created = await webhooks.create(entitled(caller), body);
        set.status = 201;
        return created;
      },
      {
        body: NewWebhookBody,
        parse: "json",
        response: { 201: WebhookRegistration, ...errors(400, ...KEYED_ERRORS, 409, 422) },
        detail: {
          operationId: "createWebhook",
          summary: "Register a webhook endpoint",
          description:
            "Pro plans and higher. Answers the signing secret once. Deliveries are POSTed as `{type, timestamp, data}` and signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256>`); only a 2xx counts, and failures are retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h. 422 for an unknown event name, a non-HTTPS URL, or a host resolving to a non-public address; 409 past 20 endpoints.",
        },
      },
    )
    .get("", ({ caller }) => webhooks.list(entitled(caller)), {
      response: { 200: WebhookList, ...errors(...KEYED_ERRORS) },
      detail: { operationId: "listWebhooks", summary: "List webhook endpoints" },
    })
    .get("/:id", ({ caller, params }) => webhooks.get(entitled(caller), params.id), {
      params: WebhookParams,
      response: { 200: WebhookEndpoint, ...errors(...KEYED_ERRORS, 404) },
      detail: { operationId: "getWebhook", summary: "Get one webhook endpoint", description: "Shows whether it is enabled, and why not when it was disabled." },
    })
    .patch("/:id", ({ caller, params, body }) => webhooks.update(entitled(caller), params.id, body), {
      params: WebhookParams,
      body: WebhookPatchBody,
      parse: "json",
      response: { 200: WebhookEndpoint, ...errors(400, ...KEYED_ERRORS, 404, 422) },
      detail: {
        operationId: "updateWebhook",
        summary: "Change or re-enable a webhook endpoint",
        description: "`{\"enabled\": true}` re-enables an endpoint that was disabled after 5 days of failures; its pending deliveries resume.",
      },
    })
    .delete("/:id", ({ caller, params }) => webhooks.delete(entitled(caller), params.id), {
      params: WebhookParams,
      response: { 200: Deleted, ...errors(...KEYED_ERRORS, 404) },
      detail: { operationId: "deleteWebhook", summary: "Delete a webhook endpoint", description: "Its pending deliveries stop; its delivery history goes with it." },
    })
    .post("/:id/rotate-secret", ({ caller, params }) => webhooks.rotateSecret(entitled(caller), params.id), {
      params: WebhookParams,
      response: { 200: WebhookRegistration, ...errors(...KEYED_ERRORS, 404) },
      detail: {
        operationId: "rotateWebhookSecret",
        summary: "Rotate the signing secret",
        description: "Answers the new secret once; every attempt from now on, retries included, is signed with it.",
      },
    })
    .get("/:id/deliveries", ({ caller, params, query }) => webhooks.deliveries(entitled(caller), params.id, query), {
      params: WebhookParams,
      query: DeliveriesQuery,
      response: { 200: DeliveriesPage, ...errors(400, ...KEYED_ERRORS, 404, 422) },
      detail: {
        operationId: "listWebhookDeliveries",
        summary: "List an endpoint's deliveries",
        description: "Newest first, with every attempt's status code, latency, error and the start of the answer. Finished deliveries are kept 30 days.",
      },
    })
    .post(
      "/:id/test",
      async ({ caller, params, set }) => {
        const delivery = await webhooks.sendTest(entitled(caller), params.id);
        set.status = 202;
        return delivery;
      },
      {
        params: WebhookParams,
        response: { 202: WebhookDelivery, ...errors(...KEYED_ERRORS, 404) },
        detail: {
          operationId: "testWebhook",
          summary: "Send a test delivery",
          description:
            "Queues a signed `webhook.test` delivery, sent and retried like an event; follow it in the deliveries list. A disabled endpoint receives it once re-enabled.",
        },
      },
    );
}
