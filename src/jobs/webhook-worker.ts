// The webhook delivery worker (SPEC section 8). A loop that fans outbox events out to endpoints,
// claims due deliveries under a lease, sends each (sender.ts) and records the attempt. It holds
// at most `maxInFlight` attempts at once and at most `perEndpoint` per endpoint, so a receiver
// that hangs ties up its own slots for the 10 s time limit and nobody else's. Each step is one
// short transaction and the loop yields between them: requests never wait behind it.
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
  /** How long a claim holds its rows: longer than an attempt can take, so no live row is sent twice at once. */
  leaseMs?: number;
  /** Whether this process may let go of every lease at start (the one server of a SQLite file). */
  releaseClaimsAtStart?: boolean;
}

const DEFAULTS = { maxInFlight: 64, perEndpoint: 8, pollMs: 100, timeoutMs: ATTEMPT_TIMEOUT_MS, leaseMs: ATTEMPT_TIMEOUT_MS + 50_000 };

export class WebhookWorker {
  private readonly options: Required<Omit<WebhookWorkerOptions, "releaseClaimsAtStart">> & { releaseClaimsAtStart: boolean };
  private readonly inFlight = new Map<string, number>();
  private readonly attempts = new Set<Promise<void>>();
  private running: Promise<void> | null = null;
  private stopped = true;
  private wake: (() => void) | null = null;
  private readonly shutdown = new AbortController();

  constructor(
    private readonly service: WebhooksService,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
    private readonly log: Logger,
    options: WebhookWorkerOptions = {},
  ) {
    this.options = { ...DEFAULTS, releaseClaimsAtStart: false, ...options };
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

  /** Stops claiming, aborts attempts under way (not recorded: their rows are sent again later), and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.shutdown.abort();
    this.wake?.();
    await this.running;
    await Promise.allSettled([...this.attempts]);
  }

  /**
   * One pass for tests and the benchmark: fan out and deliver everything due now, waiting for the
   * attempts; answers how many attempts were made.
   */
  async drain(): Promise<number> {
    let made = 0;
    for (;;) {
      await this.service.dispatchEvents();
      const started = await this.fill();
      made += started;
      if (started === 0 && this.attempts.size === 0) return made;
      await Promise.race([...this.attempts]);
    }
  }

  private async loop(): Promise<void> {
    if (this.options.releaseClaimsAtStart) {
      await this.service.releaseAllClaims().catch((error) => this.log.error("webhook claims not released", { error: String(error) }));
    }
    while (!this.stopped) {
      let worked = false;
      try {
        const dispatched = await this.service.dispatchEvents();
        const started = await this.fill();
        worked = dispatched > 0 || started > 0;
      } catch (error) {
        this.log.error("webhook worker step failed", { error: String(error) });
      }
      if (this.stopped) break;
      // Work found: look again at once (after requests had their turn); else wait for a slot or the poll.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, worked ? 0 : this.options.pollMs);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.wake = done;
      });
      this.wake = null;
    }
  }

  /** Claims what the free slots allow and starts those attempts; answers how many started. */
  private async fill(): Promise<number> {
    const free = this.options.maxInFlight - this.attempts.size;
    if (free <= 0 || (this.stopped && this.running !== null)) return 0;
    const busy = [...this.inFlight].filter(([, n]) => n >= this.options.perEndpoint).map(([key]) => key);
    const { claimed, leaseUntil } = await this.service.claimDue(free, this.options.leaseMs, busy);
    const extra: string[] = [];
    let started = 0;
    for (const delivery of claimed) {
      const key = delivery.endpointId ?? delivery.url;
      const n = this.inFlight.get(key) ?? 0;
      if (n >= this.options.perEndpoint) {
        extra.push(delivery.id);
        continue;
      }
      this.inFlight.set(key, n + 1);
      started++;
      const attempt = this.attempt(delivery).finally(() => {
        this.attempts.delete(attempt);
        const left = (this.inFlight.get(key) ?? 1) - 1;
        if (left > 0) this.inFlight.set(key, left);
        else this.inFlight.delete(key);
        this.wake?.();
      });
      this.attempts.add(attempt);
    }
    // Rows over an endpoint's share go back at once, for the next claim (here or elsewhere).
    if (extra.length) await this.service.release(extra, leaseUntil);
    return started;
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    try {
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
}
