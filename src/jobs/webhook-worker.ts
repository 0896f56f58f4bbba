// The webhook delivery worker. A loop that fans outbox events out to endpoints,
// claims due deliveries under a lease, sends each (sender.ts) and records the attempt. It runs
// at most `maxInFlight` attempts at once and at most `perEndpoint` per endpoint, so a receiver
// that hangs ties up its own slots for the 10 s time limit and nobody else's. Claimed rows wait
// in a short queue per endpoint (a few rounds of its slots, well inside the lease) and the loop
// claims again only when a lane runs low (or at the poll), so a busy endpoint costs one claim per
// batch, not per attempt, and a full one costs a claim nothing (the store's claimDue).
//
// The work around each attempt is done per batch, not per attempt: the attempts that end within
// 25 ms of each other are recorded together in one transaction, and the rows started
// together are checked (endpoint deleted or disabled meanwhile?) with one read. Each step is one
// short transaction and the worker yields between them: requests never wait behind it.
//
// Deliveries share the request thread, so the worker yields to requests by its rate, not by
// guessing at the event loop: attempts start through a token bucket whose rate is `maxPerSecond`
// while the process answers no requests and `busyPerSecond` (540/s: the delivery target of 500/s
// with a little room to catch up; every attempt above that is CPU the checks lose) while it does.
// Under load a backlog drains a little above the target and requests keep the rest of the
// thread; idle, it drains faster. Rows waiting for the rate start in 16 ms ticks, a tick's tokens
// at a time, after the requests of that turn.
//
// After a crash: a claimed row's lease lapses (PostgreSQL; another instance then takes it) or is
// let go when the one process serving a SQLite file starts, so the row is sent again. A row is
// finished only by the transaction that records its 2xx, so none is sent again after that.
import type { Clock } from "../clock";
import { WEBHOOK_LEASE_MS } from "../config";
import type { Logger } from "../logger";
import type { Metrics } from "../metrics";
import { AttemptAborted, ATTEMPT_TIMEOUT_MS, sendDelivery } from "../modules/webhooks/sender";
import type { AttemptResult, WebhookDeliveries } from "../modules/webhooks/service.deliveries";
import type { AttemptOutcome, ClaimedDelivery } from "../modules/webhooks/store";

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
   * How long a claim holds its rows (`--webhook-lease`): a queued row waits at most QUEUE_ROUNDS
   * attempt times before it is sent, well inside the default, so a live row is never claimed by
   * another worker meanwhile; a row whose lease could lapse before its attempt ends is let go
   * instead of sent. A worker that died lets its rows go when it lapses.
   */
  leaseMs?: number;
  /**
   * Attempts started per second at most while no requests are being served. Each costs the
   * request thread its check, signing, answer and share of a batched record: a backlog of
   * thousands drains at this rate when the server is otherwise idle.
   */
  maxPerSecond?: number;
  /**
   * Attempts started per second at most while requests are being served (more than
   * BUSY_REQUESTS_PER_SECOND a second answered by this process). Requests are the foreground and
   * deliveries the background: under load a backlog drains at this rate (the 500/s target with
   * room to catch up), leaving the rest of the thread to requests; when requests stop it goes back
   * to `maxPerSecond`.
   */
  busyPerSecond?: number;
}

/** Requests a second above which the worker counts the process as serving load (see `busyPerSecond`). */
const BUSY_REQUESTS_PER_SECOND = 50;
/** How often the worker looks at the request rate (ms). */
const LOAD_WINDOW_MS = 100;

/**
 * Attempts that end within this long of the first of a batch are recorded in one transaction (a
 * batch as large as `maxInFlight` at once). Most of a record's cost is its commit, whose pages
 * (the rows' leaves, three indexes, the attempts) are about the same for 3 attempts or 30: at the
 * busy rate this window gathers a dozen, for 25 ms more before a delivery counts as done (its
 * receiver has it already).
 */
const RECORD_WINDOW_MS = 25;

/**
 * While rows wait for the rate, they are started in ticks this long apart (the bucket holds a
 * tenth of a second's, so no rate is lost): a tick's rows share one check and one timer, where
 * starting each as its token came would cost a wake-up per attempt. Requests started together
 * also share the HTTP client thread's wake-ups, which cost more than the requests themselves: a
 * loopback POST measured 180 us of CPU alone, 60-70 in fives, 30 in twenties. At the busy rate a
 * tick of 16 ms holds about 8.6 attempts, an endpoint's slots.
 */
const RATE_TICK_MS = 16;

/** Rows held per endpoint (in flight and queued), in rounds of its slots. */
const QUEUE_ROUNDS = 4;

const DEFAULTS = {
  maxInFlight: 64,
  perEndpoint: 8,
  pollMs: 100,
  timeoutMs: ATTEMPT_TIMEOUT_MS,
  releaseClaimsAtStart: false,
  leaseMs: WEBHOOK_LEASE_MS,
  maxPerSecond: 1_000,
  busyPerSecond: 540,
};

/** An attempt starts only while its lease outlasts its time limit by this much. */
const LEASE_MARGIN_MS = 5_000;

interface Held {
  delivery: ClaimedDelivery;
  leaseUntil: number;
}

/** One endpoint's (or Discord URL's) share: attempts running (sent or being recorded) and claimed rows waiting. */
interface Lane {
  running: number;
  queue: Held[];
}

/** An attempt that ended, waiting for the batch that records it. */
interface Ended {
  delivery: ClaimedDelivery;
  result: AttemptResult;
  recorded(outcome: AttemptOutcome | null): void;
  failed(error: unknown): void;
}

export class WebhookWorker {
  private readonly options: Required<WebhookWorkerOptions>;
  private readonly lanes = new Map<string, Lane>();
  /** Each attempt's whole life (sent, then recorded): `stop` and `drain` wait for them. */
  private readonly attempts = new Set<Promise<void>>();
  /** Attempts started and not yet recorded, over all lanes. */
  private inFlight = 0;
  private queued = 0;
  /** Attempts ended and not yet recorded: one transaction records them when the window closes. */
  private ended: Ended[] = [];
  private recordTimer: ReturnType<typeof setTimeout> | null = null;
  private startScheduled = false;
  private rateTimer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private wake: (() => void) | null = null;
  private readonly shutdown = new AbortController();
  /** Attempts that may start now (a bucket refilled at `maxPerSecond`, holding a tenth of a second's). */
  private tokens = 0;
  private tokensAt = 0;
  /** The rate now: `busyPerSecond` while requests are being served, else `maxPerSecond`. */
  private rate: number;
  private loadAt = 0;
  private answeredAt = 0;

  constructor(
    private readonly service: WebhookDeliveries,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
    private readonly log: Logger,
    options: WebhookWorkerOptions = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
    this.rate = this.options.maxPerSecond;
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
    if (this.rateTimer) clearTimeout(this.rateTimer);
    await this.running;
    await Promise.allSettled([...this.attempts]);
    await this.releaseQueued();
  }

  /**
   * One pass for tests and the benchmark: fan out and deliver everything due now, waiting for the
   * attempts; answers how many attempts were started.
   */
  async drain(): Promise<number> {
    let made = 0;
    for (;;) {
      await this.service.dispatchEvents();
      await this.claim();
      const started = await this.startQueued();
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
      let dispatched = 0;
      try {
        dispatched = await this.service.dispatchEvents();
        if ((await this.claim()) > 0) await this.startQueued();
      } catch (error) {
        this.log.error("webhook worker step failed", { error: String(error) });
      }
      if (this.stopped) break;
      // Events fanned out: look again at once (after requests had their turn). Else wait for a
      // lane to run low (an attempt's end wakes the loop) or for the poll. Starting queued rows
      // is not the loop's: ends of attempts and the rate's timer do it.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, dispatched > 0 ? 0 : this.options.pollMs);
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
    if (now - this.loadAt >= LOAD_WINDOW_MS) this.followLoad(now);
    this.tokens = Math.min(this.rate / 10, this.tokens + ((now - this.tokensAt) * this.rate) / 1000);
    this.tokensAt = now;
    if (this.tokens < 1) return false;
    this.tokens--;
    return true;
  }

  /** Picks the rate from how many requests this process answered since the last look. */
  private followLoad(now: number): void {
    const answered = this.metrics.requestsAnswered;
    const perSecond = ((answered - this.answeredAt) * 1000) / (now - this.loadAt);
    this.rate = perSecond > BUSY_REQUESTS_PER_SECOND ? Math.min(this.options.busyPerSecond, this.options.maxPerSecond) : this.options.maxPerSecond;
    this.loadAt = now;
    this.answeredAt = answered;
  }

  /** Milliseconds until the next attempt may start. */
  private untilToken(): number {
    return Math.max(1, Math.ceil(((1 - this.tokens) * 1000) / this.rate));
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
    const room = maxInFlight * 2 - this.inFlight - this.queued;
    if (room <= 0 || (this.stopped && this.running !== null)) return 0;
    const held = new Map<string, number>();
    for (const [key, lane] of this.lanes) held.set(key, lane.running + lane.queue.length);
    const { claimed, leaseUntil } = await this.service.claimDue(room, this.options.leaseMs, { perLane: laneRoom, held });
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

  /** Starts queued rows at the end of this turn (once, however many attempts ended in it). */
  private scheduleStart(): void {
    // While rows wait for the rate, its timer starts them.
    if (this.startScheduled || this.rateTimer !== null || this.shutdown.signal.aborted) return;
    this.startScheduled = true;
    setImmediate(() => {
      this.startScheduled = false;
      this.startQueued().catch((error) => this.log.error("webhook attempts not started", { error: String(error) }));
    });
  }

  /**
   * Starts queued rows where their lane, the overall limit and the rate allow, after one read that
   * drops those whose endpoint was deleted or disabled while they waited; answers how many it took
   * from the queues.
   */
  private async startQueued(): Promise<number> {
    const { perEndpoint, maxInFlight, timeoutMs } = this.options;
    const picked: { lane: Lane; key: string; held: Held }[] = [];
    const expiring = new Map<number, string[]>();
    const now = this.clock.now();
    let waitingForRate = false;
    for (const [key, lane] of this.lanes) {
      while (lane.queue.length > 0 && lane.running < perEndpoint && this.inFlight < maxInFlight && !this.shutdown.signal.aborted) {
        if (!this.takeToken()) {
          waitingForRate = true;
          break;
        }
        const held = lane.queue.shift()!;
        this.queued--;
        // A row whose lease could lapse before this attempt ends is left for the next claim, so no
        // other worker can be sending it at the same time.
        if (now + timeoutMs + LEASE_MARGIN_MS > held.leaseUntil) {
          (expiring.get(held.leaseUntil) ?? expiring.set(held.leaseUntil, []).get(held.leaseUntil)!).push(held.delivery.id);
          continue;
        }
        lane.running++;
        this.inFlight++;
        picked.push({ lane, key, held });
      }
      if (waitingForRate) break;
      if (lane.running === 0 && lane.queue.length === 0) this.lanes.delete(key);
    }
    if (waitingForRate && this.rateTimer === null) {
      this.rateTimer = setTimeout(() => {
        this.rateTimer = null;
        this.scheduleStart();
      }, RATE_TICK_MS);
    }
    for (const [leaseUntil, ids] of expiring) await this.service.release(ids, leaseUntil).catch(() => {});
    if (picked.length === 0) return [...expiring.values()].reduce((n, ids) => n + ids.length, 0);
    // They may have waited in their lane: an endpoint deleted or disabled meanwhile gets nothing more.
    let due: Set<string>;
    try {
      due = await this.service.stillDueOf(picked.map((p) => p.held.delivery));
    } catch (error) {
      due = new Set();
      this.log.error("webhook attempts not started", { error: String(error) });
    }
    for (const { lane, key, held } of picked) {
      if (due.has(held.delivery.id)) this.begin(key, lane, held.delivery);
      else this.finish(key, lane);
    }
    return picked.length;
  }

  private begin(key: string, lane: Lane, delivery: ClaimedDelivery): void {
    const attempt = this.attempt(delivery, () => this.finish(key, lane)).finally(() => this.attempts.delete(attempt));
    this.attempts.add(attempt);
  }

  /** A lane's attempt is over (recorded, dropped or aborted): its slot goes to the next row. */
  private finish(key: string, lane: Lane): void {
    lane.running--;
    this.inFlight--;
    if (lane.running === 0 && lane.queue.length === 0 && this.lanes.get(key) === lane) this.lanes.delete(key);
    if (lane.queue.length > 0) this.scheduleStart();
    // The loop claims more when the lane runs low.
    if (lane.running + lane.queue.length <= (this.options.perEndpoint * QUEUE_ROUNDS) / 2) this.wake?.();
  }

  /**
   * Sends, frees the lane's slot (the row stays claimed until its record commits, so no claim
   * takes it meanwhile), then records.
   */
  private async attempt(delivery: ClaimedDelivery, sent: () => void): Promise<void> {
    let result: AttemptResult;
    try {
      result = await sendDelivery(delivery, {
        policy: this.service.options.policy,
        timeoutMs: this.options.timeoutMs,
        signal: this.shutdown.signal,
        now: () => this.clock.now(),
      });
    } catch (error) {
      // Aborted by shutdown: not recorded, sent again later.
      if (!(error instanceof AttemptAborted)) this.log.error("webhook attempt failed", { delivery: delivery.id, error: String(error) });
      return;
    } finally {
      sent();
    }
    try {
      const outcome = await this.record(delivery, result);
      // delivered, retry (pending again), failed (the last retry), or discarded (deleted meanwhile).
      this.metrics.webhookAttempt(outcome === null ? "discarded" : outcome.status === "pending" ? "retry" : outcome.status, result.latencyMs);
      if (outcome?.status === "delivered") this.metrics.webhookDelivered(this.clock.now() - delivery.createdAt);
    } catch (error) {
      this.log.error("webhook attempt not recorded", { delivery: delivery.id, error: String(error) });
    }
  }

  /**
   * Records an attempt with the others that end within RECORD_WINDOW_MS of the first: one
   * transaction for all of them. Until it commits the row is still claimed and pending: a crash
   * meanwhile sends it again (at least once), and nothing sends it again after the commit of a 2xx.
   */
  private record(delivery: ClaimedDelivery, result: AttemptResult): Promise<AttemptOutcome | null> {
    return new Promise((recorded, failed) => {
      this.ended.push({ delivery, result, recorded, failed });
      if (this.ended.length >= this.options.maxInFlight) void this.recordEnded();
      else if (this.ended.length === 1) this.recordTimer = setTimeout(() => this.recordEnded(), this.shutdown.signal.aborted ? 0 : RECORD_WINDOW_MS);
    });
  }

  private async recordEnded(): Promise<void> {
    if (this.recordTimer !== null) clearTimeout(this.recordTimer);
    this.recordTimer = null;
    const batch = this.ended;
    this.ended = [];
    try {
      const outcomes = await this.service.recordAttempts(batch.map(({ delivery, result }) => ({ delivery, result })));
      batch.forEach((ended, n) => ended.recorded(outcomes[n]!));
    } catch (error) {
      for (const ended of batch) ended.failed(error);
    }
  }

  /** Lets go of rows claimed but not started, so another instance need not wait for their lease. */
  private async releaseQueued(): Promise<void> {
    const byLease = new Map<number, string[]>();
    for (const lane of this.lanes.values()) {
      for (const held of lane.queue) (byLease.get(held.leaseUntil) ?? byLease.set(held.leaseUntil, []).get(held.leaseUntil)!).push(held.delivery.id);
      this.queued -= lane.queue.length;
      lane.queue.length = 0;
    }
    for (const [leaseUntil, ids] of byLease) await this.service.release(ids, leaseUntil).catch(() => {});
  }
}
