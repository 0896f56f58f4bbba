// Webhooks (SPEC section 8): endpoints an account registers, the fan-out of outbox events to
// them, each attempt's bookkeeping (the retry schedule, the 5-day disable rule), pruning, and
// Discord messages queued through the same deliveries. Sending is the worker's (src/jobs/).
//
// Who receives what: every event is public-safe (a blacklist entry's public view, the handles and
// ids of a creator or deal event; the outbox module decides what an event may say, and withholds the
// entry behind a privately linked account), so each enabled endpoint of an active account that subscribed
// to an event's name receives it, whichever account registered it, if it existed when the event
// was committed (a new endpoint does not receive history).
import type { Clock } from "../../clock";
import { iso } from "../../clock";
import type { CursorCodec } from "../../cursor";
import type { Database } from "../../db/database";
import { invalid, notFound, ServiceError, unprocessable } from "../../errors";
import { newId } from "../../ids";
import { EVENT_TYPES, Outbox } from "../outbox/service";
import { yieldToRequests } from "../../yield";
import {
  DISCORD_CONTENT_MAX,
  type DeliveriesPageView,
  type WebhookDeliveryView,
  type WebhookEndpointView,
  type WebhookRegistrationView,
} from "./model";
import { newSigningSecret } from "./signing";
import { type AttemptOutcome, type AttemptRow, type ClaimedDelivery, type ClaimLanes, createWebhooksStore, type DeliveryRow, type EndpointRow, type WebhooksStore } from "./store";
import { checkDestinationUrl, checkDiscordWebhookUrl, type UrlPolicy } from "./url-guard";

/** Endpoints one account may register. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 20;
/** An endpoint whose every attempt failed for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 86_400_000;
/** Finished deliveries (and dispatched events) are kept this long. */
export const KEEP_FINISHED_MS = 30 * 86_400_000;
/** Events fanned out per transaction. */
const DISPATCH_SLICE = 200;
/** Deliveries written per fan-out transaction (events × subscribed endpoints), roughly. */
const DISPATCH_ROWS = 2_000;
/** Rows deleted per transaction when pruning. */
const PRUNE_SLICE = 1_000;

export const TEST_EVENT = "webhook.test";
export const DISCORD_MESSAGE = "discord.message";

const SECRET_WARNING = "Store this secret now: it is not shown again.";

/** What one attempt came to: an answer's status, or an error without one. */
export interface AttemptResult {
  startedAt: number;
  latencyMs: number;
  statusCode: number | null;
  error: string | null;
  responseExcerpt: string | null;
}

export interface WebhooksOptions {
  policy: UrlPolicy;
  /** Pauses before the 2nd..8th attempt (ms). */
  retryDelaysMs: number[];
}

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

function checkEvents(events: string[]): string[] {
  const unknown = events.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e));
  if (unknown.length) throw unprocessable(`Unknown event name(s): ${unknown.slice(0, 5).map((e) => `'${e.slice(0, 64)}'`).join(", ")}. Events: ${EVENT_TYPES.join(", ")}.`);
  return [...new Set(events)];
}

/** The body every attempt sends: Standard Webhooks' `{type, timestamp, data}`, with `data` as committed. */
function eventBody(type: string, at: number, data: string): string {
  return `{"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(iso(at))},"data":${data}}`;
}

export class WebhooksService {
  readonly store: WebhooksStore;
  private readonly outbox: Outbox;

  constructor(
    database: Database,
    private readonly clock: Clock,
    private readonly cursors: CursorCodec,
    readonly options: WebhooksOptions,
  ) {
    this.store = createWebhooksStore(database);
    this.outbox = new Outbox(database);
  }

  // ---- management (the routes) ----

  async create(accountId: string, input: { url: string; events: string[] }): Promise<WebhookRegistrationView> {
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

  async update(accountId: string, id: string, patch: { url?: string; events?: string[]; enabled?: boolean }): Promise<WebhookEndpointView> {
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
    const row: DeliveryRow = {
      id: newId("msg", now),
      endpointId: endpoint.id,
      eventId: null,
      type: TEST_EVENT,
      url: null,
      payload: eventBody(TEST_EVENT, now, JSON.stringify({ webhook_id: endpoint.id, message: "A test delivery from trustlist." })),
      status: "pending",
      attempts: 0,
      nextAttemptAt: now,
      createdAt: now,
      finishedAt: null,
    };
    await this.store.transaction(() => this.store.insertDeliveries([row]));
    return deliveryView(row, []);
  }

  async deliveries(accountId: string, id: string, query: { limit?: number; cursor?: string }): Promise<DeliveriesPageView> {
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

  // ---- Discord messages (tripwire alerts) ----

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
      .insertDeliveries([
        { id, endpointId: null, eventId: null, type: DISCORD_MESSAGE, url, payload: body, status: "pending", attempts: 0, nextAttemptAt: at, createdAt: at, finishedAt: null },
      ])
      .then(() => id);
  }

  // ---- the worker's side ----

  /**
   * Fans out up to one slice of undispatched events to the endpoints subscribed to them, and
   * marks them dispatched, in one transaction. Answers how many events it took.
   */
  async dispatchEvents(limit = DISPATCH_SLICE): Promise<number> {
    // A cheap look first: most polls find nothing, and need no write transaction.
    if (!(await this.outbox.hasPending())) return 0;
    return this.store.transaction(async () => {
      const endpoints = await this.store.subscribedEndpoints();
      // A slice writes about DISPATCH_ROWS deliveries at most, however many endpoints there are.
      const now = this.clock.now();
      const events = await this.outbox.take(Math.max(1, Math.min(limit, Math.floor(DISPATCH_ROWS / Math.max(1, endpoints.length)))), now);
      if (events.length === 0) return 0;
      const rows: DeliveryRow[] = [];
      for (const event of events) {
        const body = eventBody(event.type, event.createdAt, event.payload);
        for (const endpoint of endpoints) {
          if (endpoint.createdAt > event.createdAt || !endpoint.events.includes(event.type)) continue;
          rows.push({
            id: newId("msg", now),
            endpointId: endpoint.id,
            eventId: event.id,
            type: event.type,
            url: null,
            payload: body,
            status: "pending",
            attempts: 0,
            nextAttemptAt: now,
            createdAt: event.createdAt,
            finishedAt: null,
          });
        }
      }
      await this.store.insertDeliveries(rows);
      return events.length;
    });
  }

  /**
   * Claims up to `limit` due deliveries for `leaseMs`; per lane (endpoint or Discord URL) at most
   * `lanes.perLane` less what the caller holds (default: `limit`, nothing held).
   */
  claimDue(limit: number, leaseMs: number, lanes: ClaimLanes = { perLane: limit, held: new Map() }): Promise<{ claimed: ClaimedDelivery[]; leaseUntil: number }> {
    const now = this.clock.now();
    const leaseUntil = now + leaseMs;
    return this.store.claimDue(now, limit, leaseUntil, lanes).then((claimed) => ({ claimed, leaseUntil }));
  }

  /** Whether a claimed row is still to be sent (its endpoint was not deleted or disabled since). */
  async stillDue(delivery: ClaimedDelivery): Promise<boolean> {
    return (await this.store.stillDue([delivery])).has(delivery.id);
  }

  /** Of claimed rows, the ids still to be sent: one read for a batch about to start. */
  stillDueOf(deliveries: ClaimedDelivery[]): Promise<Set<string>> {
    return this.store.stillDue(deliveries);
  }

  release(ids: string[], leaseUntil: number): Promise<void> {
    return this.store.release(ids, leaseUntil);
  }

  /** At the start of the one process serving a SQLite file: rows a crashed run held are due again. */
  releaseAllClaims(): Promise<void> {
    return this.store.releaseClaims();
  }

  /**
   * Records an attempt: delivered on a 2xx, else retried after the schedule's next pause, or
   * failed after the last. An endpoint whose attempts all failed for 5 days is disabled. Answers
   * the outcome, or null when the delivery was deleted or finished meanwhile.
   */
  async recordAttempt(delivery: ClaimedDelivery, result: AttemptResult): Promise<AttemptOutcome | null> {
    return (await this.recordAttempts([{ delivery, result }]))[0]!;
  }

  /**
   * Records a batch of attempts (those that ended at about the same time) in one transaction, as
   * `recordAttempt` would one by one, in order; answers each one's outcome (null: deleted or
   * finished meanwhile). A delivery is finished only by the commit that records its 2xx.
   */
  async recordAttempts(batch: { delivery: ClaimedDelivery; result: AttemptResult }[]): Promise<(AttemptOutcome | null)[]> {
    const now = this.clock.now();
    const delays = this.options.retryDelaysMs;
    const items = batch.map(({ delivery, result }) => {
      const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
      const attempt = delivery.attempts + 1;
      const outcome: AttemptOutcome = ok
        ? { status: "delivered", nextAttemptAt: now, finishedAt: now }
        : attempt > delays.length
          ? { status: "failed", nextAttemptAt: now, finishedAt: now }
          : { status: "pending", nextAttemptAt: now + delays[attempt - 1]!, finishedAt: null };
      const row: AttemptRow = {
        deliveryId: delivery.id,
        attempt,
        startedAt: result.startedAt,
        statusCode: result.statusCode,
        latencyMs: Math.round(result.latencyMs),
        error: result.error ?? (ok ? null : `HTTP ${result.statusCode}: only a 2xx answer counts as delivered`),
        responseExcerpt: result.responseExcerpt,
      };
      return { delivery, result, ok, outcome, row };
    });
    return this.store.transaction(async () => {
      const recorded = await this.store.recordAttempts(items.map((i) => ({ attempt: i.row, attemptsBefore: i.delivery.attempts, outcome: i.outcome })));
      // Each endpoint's results in order; a repeat of the same result changes nothing, so it is
      // noted once per run of equal results.
      const noted = new Map<string, { ok: boolean; failingSince: number | null; last: AttemptResult }>();
      for (const [n, item] of items.entries()) {
        const endpointId = item.delivery.endpointId;
        if (!recorded[n] || endpointId === null) continue;
        const before = noted.get(endpointId);
        const failingSince = before?.ok === item.ok ? before.failingSince : await this.store.noteEndpointResult(endpointId, item.ok, item.result.startedAt);
        noted.set(endpointId, { ok: item.ok, failingSince, last: item.result });
      }
      for (const [endpointId, { failingSince, last }] of noted) {
        if (failingSince === null || now - failingSince < DISABLE_AFTER_MS) continue;
        const lastText = last.statusCode === null ? (last.error ?? "no answer") : `HTTP ${last.statusCode}`;
        await this.store.disableEndpoint(
          endpointId,
          `Every delivery attempt failed for 5 days (since ${iso(failingSince)}); last: ${lastText}. Fix the receiver, then re-enable with PATCH {"enabled": true}.`,
          now,
        );
      }
      return items.map((item, n) => (recorded[n] ? item.outcome : null));
    });
  }

  /** Deletes deliveries finished and events dispatched more than 30 days ago, a slice at a time. */
  async prune(): Promise<number> {
    const cutoff = this.clock.now() - KEEP_FINISHED_MS;
    let deleted = 0;
    for (const prune of [(n: number) => this.store.pruneFinished(cutoff, n), (n: number) => this.outbox.pruneDispatched(cutoff, n)]) {
      for (;;) {
        const n = await prune(PRUNE_SLICE);
        deleted += n;
        if (n < PRUNE_SLICE) break;
        await yieldToRequests();
      }
    }
    return deleted;
  }

  /** Seconds the oldest due delivery (or undispatched event) has waited: the queue-age gauge. */
  async queueAgeSeconds(): Promise<number> {
    const now = this.clock.now();
    const delivery = await this.store.oldestDueAt(now);
    const event = await this.outbox.oldestPendingAt();
    const oldest = Math.min(delivery ?? now, event ?? now);
    return Math.max(0, (now - oldest) / 1000);
  }

  pendingDeliveries(): Promise<number> {
    return this.store.pendingDeliveries();
  }
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
