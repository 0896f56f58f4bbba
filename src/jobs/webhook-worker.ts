// The webhook delivery worker (SPEC section 8). A loop that fans outbox events out to endpoints,
// claims due deliveries under a lease, sends each (sender.ts) and records the attempt. It runs
// at most `maxInFlight` attempts at once and at most `perEndpoint` per endpoint, so a receiver
// that hangs ties up its own slots for the 10 s time limit and nobody else's. Claimed rows wait
// in a short queue per endpoint (a few rounds of its slots, well inside the lease) and the loop
// claims again for an endpoint only when its queue runs low, so a busy endpoint costs one claim
// per batch, not per attempt. Each step is one short transaction and the loop yields between
// them: requests never wait behind it.
//
// After a crash: a claimed row's lease lapses (PostgreSQL; another instance then takes it) or is
// let go when the one process serving a SQLite file starts, so the row is sent again. A row is
// finished only by the transaction that records its 2xx, so none is sent again after that.
import type { Clock } from "../clock";
import type { Logger } from "../http/logger";
import type { Metrics } from "../http/metrics";
import { AttemptAborted, ATTEMPT_TIMEOUT_MS, sendDelivery } from "../modules/webhooks/sender";
import type { WebhooksService } from "../modules/webhooks/service";
import type { ClaimedDelivery } from "../modules/webhooks/store";

export interface WebhookWorkerOptions {
  /** Attempts in flight at once, over all endpoints. */
  maxInFlight?: number;
  /** Attempts in flight at once to one endpoint (or one Discord URL). */
  perEndpoint?: number;
  /** Pause between looks for work when there was none (ms). */
  pollMs?: number;
  timeoutMs?: number;
  /** Whether this process may let go of every lease at start (the one server of a SQLite file). */
  releaseClaimsAtStart?: boolean;
  /**
   * Attempts started per second at most. Each costs the request thread its signing, its answer
   * and its record (about 0.2 ms on this machine): uncapped, a backlog of thousands took nine
   * tenths of the keyed checks' throughput while it drained; capped, a backlog drains a little
   * slower and requests keep most of the thread.
   */
  maxPerSecond?: number;
}

/** Rows held per endpoint (in flight and queued), in rounds of its slots. */
const QUEUE_ROUNDS = 4;

const DEFAULTS = { maxInFlight: 64, perEndpoint: 8, pollMs: 100, timeoutMs: ATTEMPT_TIMEOUT_MS, releaseClaimsAtStart: false, maxPerSecond: 1_000 };

interface Held {
  delivery: ClaimedDelivery;
  leaseUntil: number;
}

/** One endpoint's (or Discord URL's) share: attempts running and claimed rows waiting. */
interface Lane {
  running: number;
  queue: Held[];
}

export class WebhookWorker {
  private readonly options: Required<WebhookWorkerOptions>;
  /**
   * How long a claim holds its rows: a queued row waits at most QUEUE_ROUNDS attempt times before
   * it is sent, with room to spare, so a live row is never claimed by another worker meanwhile.
   */
  private readonly leaseMs: number;
  private readonly lanes = new Map<string, Lane>();
  private readonly attempts = new Set<Promise<void>>();
  private queued = 0;
  private running: Promise<void> | null = null;
  private stopped = true;
  private wake: (() => void) | null = null;
  private readonly shutdown = new AbortController();
  /** Attempts that may start now (a bucket refilled at `maxPerSecond`, holding a tenth of a second's). */
  private tokens = 0;
  private tokensAt = 0;

  constructor(
    private readonly service: WebhooksService,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
    private readonly log: Logger,
    options: WebhookWorkerOptions = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
    this.leaseMs = this.options.timeoutMs * (QUEUE_ROUNDS + 2);
  }

  /** Attempts under way. */
  get busy(): number {
    return this.attempts.size;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.running = this.loop();
  }

  /**
   * Stops claiming, aborts attempts under way (not recorded: their rows are sent again later),
   * lets go of queued rows, and waits for the attempts.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.shutdown.abort();
    this.wake?.();
    await this.running;
    await Promise.allSettled([...this.attempts]);
    await this.releaseQueued();
  }

  /**
   * One pass for tests and the benchmark: fan out and deliver everything due now, waiting for the
   * attempts; answers how many attempts were made.
   */
  async drain(): Promise<number> {
    let made = 0;
    for (;;) {
      await this.service.dispatchEvents();
      await this.claim();
      const started = this.startQueued();
      made += started;
      if (started === 0 && this.attempts.size === 0 && this.queued === 0) return made;
      if (this.attempts.size > 0) await Promise.race([...this.attempts]);
      else if (started === 0) await Bun.sleep(this.untilToken()); // rows wait for the rate
    }
  }

  private async loop(): Promise<void> {
    if (this.options.releaseClaimsAtStart) {
      await this.service.releaseAllClaims().catch((error) => this.log.error("webhook claims not released", { error: String(error) }));
    }
    while (!this.stopped) {
      let worked = false;
      try {
        // Fan out and claim only when the queue runs low: while rows wait for the rate, the loop
        // wakes each millisecond or so. A claim reads only the endpoints whose lanes have room.
        if (this.queued < this.options.maxInFlight) {
          const dispatched = await this.service.dispatchEvents();
          const claimed = await this.claim();
          worked = dispatched > 0 || claimed > 0;
        }
        this.startQueued();
      } catch (error) {
        this.log.error("webhook worker step failed", { error: String(error) });
      }
      if (this.stopped) break;
      // Work found: look again at once (after requests had their turn); else wait for a lane to
      // run low or for the poll.
      await new Promise<void>((resolve) => {
        const waitingForRate = this.queued > 0 && this.attempts.size < this.options.maxInFlight;
        const timer = setTimeout(done, waitingForRate ? this.untilToken() : worked ? 0 : this.options.pollMs);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.wake = done;
      });
      this.wake = null;
    }
  }

  /** Takes the right to start one attempt now, if the rate allows it. */
  private takeToken(): boolean {
    const now = performance.now();
    const { maxPerSecond } = this.options;
    this.tokens = Math.min(maxPerSecond / 10, this.tokens + ((now - this.tokensAt) * maxPerSecond) / 1000);
    this.tokensAt = now;
    if (this.tokens < 1) return false;
    this.tokens--;
    return true;
  }

  /** Milliseconds until the next attempt may start. */
  private untilToken(): number {
    return Math.max(1, Math.ceil(((1 - this.tokens) * 1000) / this.options.maxPerSecond));
  }

  private laneOf(key: string): Lane {
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = { running: 0, queue: [] }));
    return lane;
  }

  /** Claims rows for the lanes with room; rows over a lane's room go back at once. Answers how many it kept. */
  private async claim(): Promise<number> {
    const { maxInFlight, perEndpoint } = this.options;
    const laneRoom = perEndpoint * QUEUE_ROUNDS;
    const room = maxInFlight * 2 - this.attempts.size - this.queued;
    if (room <= 0 || (this.stopped && this.running !== null)) return 0;
    const held = new Map<string, number>();
    for (const [key, lane] of this.lanes) held.set(key, lane.running + lane.queue.length);
    const { claimed, leaseUntil } = await this.service.claimDue(room, this.leaseMs, { perLane: laneRoom, held });
    const extra: string[] = [];
    for (const delivery of claimed) {
      const lane = this.laneOf(delivery.endpointId ?? delivery.url);
      if (lane.running + lane.queue.length >= laneRoom) {
        extra.push(delivery.id);
        continue;
      }
      lane.queue.push({ delivery, leaseUntil });
      this.queued++;
    }
    // For the next claim, here or on another instance.
    if (extra.length) await this.service.release(extra, leaseUntil);
    return claimed.length - extra.length;
  }

  /** Starts queued rows where their lane and the overall limit allow; answers how many started. */
  private startQueued(): number {
    let started = 0;
    for (const [key, lane] of this.lanes) {
      while (lane.queue.length > 0 && lane.running < this.options.perEndpoint && this.attempts.size < this.options.maxInFlight && !this.shutdown.signal.aborted) {
        if (!this.takeToken()) return started;
        this.begin(key, lane, lane.queue.shift()!);
        this.queued--;
        started++;
      }
      if (lane.running === 0 && lane.queue.length === 0) this.lanes.delete(key);
    }
    return started;
  }

  private begin(key: string, lane: Lane, held: Held): void {
    lane.running++;
    const attempt = this.attempt(held).finally(() => {
      this.attempts.delete(attempt);
      lane.running--;
      // The lane's next row goes at once; the loop claims more when the lane runs low.
      const next = lane.queue.length > 0 && !this.shutdown.signal.aborted && this.takeToken() ? lane.queue.shift() : undefined;
      if (next) {
        this.queued--;
        this.begin(key, lane, next);
      } else if (lane.running === 0 && lane.queue.length === 0) {
        this.lanes.delete(key);
      }
      if (lane.running + lane.queue.length <= (this.options.perEndpoint * QUEUE_ROUNDS) / 2) this.wake?.();
    });
    this.attempts.add(attempt);
  }

  private async attempt({ delivery, leaseUntil }: Held): Promise<void> {
    // A row whose lease could lapse before this attempt ends is left for the next claim, so no
    // other worker can be sending it at the same time.
    if (this.clock.now() + this.options.timeoutMs + 5_000 > leaseUntil) {
      await this.service.release([delivery.id], leaseUntil).catch(() => {});
      return;
    }
    try {
      // It may have waited in its lane: an endpoint deleted or disabled meanwhile gets nothing more.
      if (!(await this.service.stillDue(delivery))) return;
      const result = await sendDelivery(delivery, {
        policy: this.service.options.policy,
        timeoutMs: this.options.timeoutMs,
        signal: this.shutdown.signal,
        now: () => this.clock.now(),
      });
      const outcome = await this.service.recordAttempt(delivery, result);
      // delivered, retry (pending again), failed (the last retry), or discarded (deleted meanwhile).
      this.metrics.webhookAttempt(outcome === null ? "discarded" : outcome.status === "pending" ? "retry" : outcome.status, result.latencyMs);
      if (outcome?.status === "delivered") this.metrics.webhookDelivered(this.clock.now() - delivery.createdAt);
    } catch (error) {
      if (error instanceof AttemptAborted) return;
      this.log.error("webhook attempt not recorded", { delivery: delivery.id, error: String(error) });
    }
  }

  /** Lets go of rows claimed but not started, so another instance need not wait for their lease. */
  private async releaseQueued(): Promise<void> {
    const byLease = new Map<number, string[]>();
    for (const lane of this.lanes.values()) {
      for (const held of lane.queue) (byLease.get(held.leaseUntil) ?? byLease.set(held.leaseUntil, []).get(held.leaseUntil)!).push(held.delivery.id);
      lane.queue.length = 0;
    }
    this.queued = 0;
    this.lanes.clear();
    for (const [leaseUntil, ids] of byLease) await this.service.release(ids, leaseUntil).catch(() => {});
  }
}
