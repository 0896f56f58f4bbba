// Webhooks: the endpoints an account registers (the routes), and Discord messages queued through
// the same deliveries (tripwire alerts). WebhooksService is built on the worker's side of the
// module (service.deliveries.ts: fan-out, claims, attempts, pruning), so one object serves the
// routes, the worker, the jobs and the gauges.
import type { Clock } from "../../clock";
import { iso } from "../../clock";
import type { CursorCodec } from "../../cursor";
import type { Database } from "../../db/database";
import { invalid, notFound, ServiceError, unprocessable } from "../../errors";
import { newId } from "../../ids";
import { yieldToRequests } from "../../yield";
import { EVENT_TYPES } from "../outbox/service";
import {
  DISCORD_CONTENT_MAX,
  type DeliveriesPageView,
  type DeliveriesQuery,
  type NewWebhookBody,
  type WebhookDeliveryView,
  type WebhookEndpointView,
  type WebhookPatchBody,
  type WebhookRegistrationView,
} from "./model";
import { DISCORD_MESSAGE, eventBody, newDelivery, PRUNE_SLICE, TEST_EVENT, WebhookDeliveries, type WebhooksOptions } from "./service.deliveries";
import { newSigningSecret } from "./signing";
import type { AttemptRow, DeliveryRow, EndpointRow } from "./store";
import { checkDestinationUrl, checkDiscordWebhookUrl } from "./url-guard";

/** Endpoints one account may register. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 20;

const SECRET_WARNING = "Store this secret now: it is not shown again.";

/** An endpoint as the API shows it (the secret only ever in a registration's answer). */
function endpointView(row: EndpointRow): WebhookEndpointView {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    disabled_at: iso(row.disabledAt),
    failing_since: iso(row.failingSince),
    created_at: iso(row.createdAt),
  };
}

function deliveryView(row: DeliveryRow, attempts: AttemptRow[]): WebhookDeliveryView {
  return {
    id: row.id,
    event_id: row.eventId,
    type: row.type,
    status: row.status,
    attempt_count: row.attempts,
    next_attempt_at: row.status === "pending" ? iso(row.nextAttemptAt) : null,
    created_at: iso(row.createdAt),
    finished_at: iso(row.finishedAt),
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      started_at: iso(a.startedAt),
      status_code: a.statusCode,
      latency_ms: a.latencyMs,
      error: a.error,
      response_excerpt: a.responseExcerpt,
    })),
  };
}

function checkEvents(events: string[]): string[] {
  const unknown = events.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e));
  if (unknown.length) throw unprocessable(`Unknown event name(s): ${unknown.slice(0, 5).map((e) => `'${e.slice(0, 64)}'`).join(", ")}. Events: ${EVENT_TYPES.join(", ")}.`);
  return [...new Set(events)];
}

export class WebhooksService extends WebhookDeliveries {
  constructor(
    database: Database,
    clock: Clock,
    private readonly cursors: CursorCodec,
    options: WebhooksOptions,
  ) {
    super(database, clock, options);
  }

  async create(accountId: string, input: typeof NewWebhookBody.static): Promise<WebhookRegistrationView> {
    const events = checkEvents(input.events);
    const url = await checkDestinationUrl(input.url, this.options.policy);
    const now = this.clock.now();
    const row: EndpointRow = {
      id: newId("wh", now),
      accountId,
      url,
      events,
      secret: newSigningSecret(),
      enabled: true,
      disabledReason: null,
      disabledAt: null,
      failingSince: null,
      createdAt: now,
    };
    // Every write of a request goes through a transaction: it also records the request's
    // Idempotency-Key, so a repeat finds the answer instead of registering a second endpoint.
    await this.store.transaction(async () => {
      if ((await this.store.countEndpoints(accountId)) >= MAX_ENDPOINTS_PER_ACCOUNT) {
        throw new ServiceError("limit", `An account may register ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints; delete one first.`);
      }
      await this.store.insertEndpoint(row);
    });
    return { ...endpointView(row), secret: row.secret, warning: SECRET_WARNING };
  }

  async list(accountId: string): Promise<{ data: WebhookEndpointView[] }> {
    return { data: (await this.store.listEndpoints(accountId)).map(endpointView) };
  }

  private async owned(accountId: string, id: string): Promise<EndpointRow> {
    const row = await this.store.findEndpoint(accountId, id);
    // Another account's endpoint answers exactly like a missing one.
    if (!row) throw notFound(`No webhook endpoint ${id.slice(0, 64)}.`);
    return row;
  }

  async get(accountId: string, id: string): Promise<WebhookEndpointView> {
    return endpointView(await this.owned(accountId, id));
  }

  async update(accountId: string, id: string, patch: typeof WebhookPatchBody.static): Promise<WebhookEndpointView> {
    await this.owned(accountId, id);
    const events = patch.events === undefined ? undefined : checkEvents(patch.events);
    const url = patch.url === undefined ? undefined : await checkDestinationUrl(patch.url, this.options.policy);
    const now = this.clock.now();
    const state =
      patch.enabled === undefined
        ? {}
        : patch.enabled
          ? { enabled: true, disabledReason: null, disabledAt: null, failingSince: null }
          : { enabled: false, disabledReason: "Disabled by its owner.", disabledAt: now };
    if (!(await this.store.transaction(() => this.store.updateEndpoint(accountId, id, { url, events, ...state })))) {
      throw notFound(`No webhook endpoint ${id.slice(0, 64)}.`);
    }
    return endpointView((await this.store.findEndpoint(accountId, id))!);
  }

  /**
   * Deletes the endpoint and its deliveries. Disabled first, so nothing new is claimed or fanned
   * out to it; then its deliveries go a slice at a time (30 days of them may be many), yielding
   * to requests between slices; then the endpoint.
   */
  async delete(accountId: string, id: string): Promise<{ id: string; deleted: true }> {
    const stopped = await this.store.transaction(() =>
      this.store.updateEndpoint(accountId, id, { enabled: false, disabledReason: "Being deleted.", disabledAt: this.clock.now() }),
    );
    if (!stopped) throw notFound(`No webhook endpoint ${id.slice(0, 64)}.`);
    while ((await this.store.deleteDeliveriesOf(id, PRUNE_SLICE)) === PRUNE_SLICE) await yieldToRequests();
    await this.store.transaction(() => this.store.deleteEndpoint(accountId, id));
    return { id, deleted: true };
  }

  /** A new secret; deliveries from now on (retries included) are signed with it. */
  async rotateSecret(accountId: string, id: string): Promise<WebhookRegistrationView> {
    await this.owned(accountId, id);
    const secret = newSigningSecret();
    if (!(await this.store.transaction(() => this.store.updateEndpoint(accountId, id, { secret })))) throw notFound(`No webhook endpoint ${id.slice(0, 64)}.`);
    const row = (await this.store.findEndpoint(accountId, id))!;
    return { ...endpointView(row), secret, warning: SECRET_WARNING };
  }

  /** Queues a `webhook.test` delivery to the endpoint, sent and retried like an event. */
  async sendTest(accountId: string, id: string): Promise<WebhookDeliveryView> {
    const endpoint = await this.owned(accountId, id);
    const now = this.clock.now();
    const payload = eventBody(TEST_EVENT, now, JSON.stringify({ webhook_id: endpoint.id, message: "A test delivery from trustlist." }));
    const row = newDelivery({ id: newId("msg", now), endpointId: endpoint.id, eventId: null, type: TEST_EVENT, url: null, payload, createdAt: now }, now);
    await this.store.transaction(() => this.store.insertDeliveries([row]));
    return deliveryView(row, []);
  }

  async deliveries(accountId: string, id: string, query: typeof DeliveriesQuery.static): Promise<DeliveriesPageView> {
    await this.owned(accountId, id);
    const limit = query.limit ?? 20;
    let before: string | null = null;
    if (query.cursor !== undefined) {
      const position = this.cursors.decode(query.cursor);
      if (!position || position.k !== "deliveries" || position.e !== id || typeof position.i !== "string") {
        throw new ServiceError("invalid_cursor", "The cursor is not one this route gave out.");
      }
      before = position.i;
    }
    const rows = await this.store.listDeliveries(id, limit + 1, before);
    const page = rows.slice(0, limit);
    const attempts = await this.store.attemptsOf(page.map((r) => r.id));
    const byDelivery = new Map<string, typeof attempts>();
    for (const attempt of attempts) byDelivery.set(attempt.deliveryId, [...(byDelivery.get(attempt.deliveryId) ?? []), attempt]);
    const hasMore = rows.length > limit;
    return {
      data: page.map((r) => deliveryView(r, byDelivery.get(r.id) ?? [])),
      next_cursor: hasMore ? this.cursors.encode({ k: "deliveries", e: id, i: page.at(-1)!.id }) : null,
      has_more: hasMore,
    };
  }

  /** The guard for a Discord webhook URL (a tripwire's preferences): 422 when refused. */
  checkDiscordUrl(url: string): Promise<string> {
    return checkDiscordWebhookUrl(url, this.options.policy);
  }

  /**
   * Queues a message to a Discord webhook URL, delivered by the same worker with the same retries
   * and the same address guard at each attempt. Joins the caller's write transaction (call it
   * inside one so the message exists exactly when the change does); on SQLite the row is written
   * before this returns. The URL should have passed `checkDiscordUrl` when it was saved.
   */
  queueDiscordMessage(url: string, content: string, at: number): Promise<string> {
    if (content.length === 0) return Promise.reject(invalid("A Discord message needs content."));
    const id = newId("msg", at);
    const body = JSON.stringify({ content: content.slice(0, DISCORD_CONTENT_MAX), allowed_mentions: { parse: [] } });
    return this.store
      .insertDeliveries([newDelivery({ id, endpointId: null, eventId: null, type: DISCORD_MESSAGE, url, payload: body, createdAt: at }, at)])
      .then(() => id);
  }
}
