// The worker's side of webhooks: the fan-out of outbox events to the endpoints subscribed to them,
// claims under a lease, each attempt's bookkeeping (the retry schedule, the 5-day disable rule),
// pruning and the queue's gauges. Sending is the worker's (src/jobs/webhook-worker.ts); what an
// account manages through the routes is WebhooksService (service.ts), built on this.
//
// Who receives what: every event is public-safe (a blacklist entry's public view, the handles and
// ids of a creator or deal event; the outbox module decides what an event may say, and withholds
// the entry behind a privately linked account), so each enabled endpoint of an active account
// that subscribed to an event's name receives it, whichever account registered it, if it existed
// when the event was committed (a new endpoint does not receive history).
import type { Clock } from "../../clock";
import { iso } from "../../clock";
import type { Database } from "../../db/database";
import { newId } from "../../ids";
import { yieldToRequests } from "../../yield";
import { Outbox } from "../outbox/service";
import { type AttemptOutcome, type AttemptRow, type ClaimedDelivery, type ClaimLanes, createWebhooksStore, type DeliveryRow, type WebhooksStore } from "./store";
import type { UrlPolicy } from "./url-guard";

/** An endpoint whose every attempt failed for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 86_400_000;
/** Finished deliveries (and dispatched events) are kept this long. */
export const KEEP_FINISHED_MS = 30 * 86_400_000;
/** Events fanned out per transaction. */
const DISPATCH_SLICE = 200;
/** Deliveries written per fan-out transaction (events × subscribed endpoints), roughly. */
const DISPATCH_ROWS = 2_000;
/** Rows deleted per transaction when pruning. */
export const PRUNE_SLICE = 1_000;

/** The type of a test delivery (`POST /v1/webhooks/{id}/test`). */
export const TEST_EVENT = "webhook.test";
/** The type of a message to a Discord webhook URL: no endpoint, no signature. */
export const DISCORD_MESSAGE = "discord.message";

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

/** The body every attempt sends: Standard Webhooks' `{type, timestamp, data}`, with `data` as committed. */
export function eventBody(type: string, at: number, data: string): string {
  return `{"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(iso(at))},"data":${data}}`;
}

/** A delivery not attempted yet, due at `at`. */
export function newDelivery(fields: Pick<DeliveryRow, "id" | "endpointId" | "eventId" | "type" | "url" | "payload" | "createdAt">, at: number): DeliveryRow {
  return { ...fields, status: "pending", attempts: 0, nextAttemptAt: at, finishedAt: null };
}

export class WebhookDeliveries {
  readonly store: WebhooksStore;
  private readonly outbox: Outbox;

  constructor(
    database: Database,
    protected readonly clock: Clock,
    readonly options: WebhooksOptions,
  ) {
    this.store = createWebhooksStore(database);
    this.outbox = new Outbox(database);
  }

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
          rows.push(
            newDelivery({ id: newId("msg", now), endpointId: endpoint.id, eventId: event.id, type: event.type, url: null, payload: body, createdAt: event.createdAt }, now),
          );
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
