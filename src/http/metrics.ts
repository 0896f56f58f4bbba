// Request counters and a latency histogram in memory, rendered as Prometheus text on /metrics.
const LATENCY_BUCKETS_MS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000];
/** Webhook attempts run up to the 10 s time limit. */
const ATTEMPT_BUCKETS_MS = [10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000];
/** Commit to delivery: seconds when healthy, hours when retries were needed. */
const DELIVERY_AGE_BUCKETS_MS = [100, 250, 500, 1000, 2500, 5000, 30_000, 300_000, 3_600_000, 86_400_000];

class Histogram {
  private readonly counts: number[];
  private sumMs = 0;
  private count = 0;

  constructor(private readonly bucketsMs: number[]) {
    this.counts = new Array<number>(bucketsMs.length + 1).fill(0);
  }

  observe(ms: number) {
    let i = 0;
    while (i < this.bucketsMs.length && ms > this.bucketsMs[i]!) i++;
    this.counts[i]!++;
    this.sumMs += ms;
    this.count++;
  }

  render(out: string[], name: string, help: string) {
    out.push(`# HELP ${name} ${help}`);
    out.push(`# TYPE ${name} histogram`);
    let cumulative = 0;
    this.bucketsMs.forEach((ms, i) => {
      cumulative += this.counts[i]!;
      out.push(`${name}_bucket{le="${ms / 1000}"} ${cumulative}`);
    });
    out.push(`${name}_bucket{le="+Inf"} ${this.count}`);
    out.push(`${name}_sum ${this.sumMs / 1000}`);
    out.push(`${name}_count ${this.count}`);
  }
}

export class Metrics {
  /** method + route pattern, then status: nested so counting builds no string. */
  private readonly requests = new Map<string, Map<string, Map<number, number>>>();
  private readonly latency = new Array<number>(LATENCY_BUCKETS_MS.length + 1).fill(0);
  private latencySumMs = 0;
  private latencyCount = 0;
  readonly startedAt = Date.now();
  /** Webhook attempts by what they came to: delivered, retry, failed, discarded. */
  private readonly webhookOutcomes = new Map<string, number>();
  private readonly webhookLatency = new Histogram(ATTEMPT_BUCKETS_MS);
  private readonly webhookDeliveryAge = new Histogram(DELIVERY_AGE_BUCKETS_MS);

  webhookAttempt(outcome: string, latencyMs: number) {
    this.webhookOutcomes.set(outcome, (this.webhookOutcomes.get(outcome) ?? 0) + 1);
    this.webhookLatency.observe(latencyMs);
  }

  /** A delivery succeeded `ageMs` after its event was committed. */
  webhookDelivered(ageMs: number) {
    this.webhookDeliveryAge.observe(ageMs);
  }

  observe(method: string, route: string, status: number, durationMs: number) {
    let byRoute = this.requests.get(method);
    if (!byRoute) this.requests.set(method, (byRoute = new Map()));
    let byStatus = byRoute.get(route);
    if (!byStatus) byRoute.set(route, (byStatus = new Map()));
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    let i = 0;
    while (i < LATENCY_BUCKETS_MS.length && durationMs > LATENCY_BUCKETS_MS[i]!) i++;
    this.latency[i]!++;
    this.latencySumMs += durationMs;
    this.latencyCount++;
  }

  /** Prometheus exposition text; `gauges` are read at scrape time. */
  render(gauges: Record<string, { help: string; value: number }>): string {
    const out: string[] = [];
    out.push("# HELP trustlist_http_requests_total HTTP requests by method, route pattern and status.");
    out.push("# TYPE trustlist_http_requests_total counter");
    for (const [method, byRoute] of this.requests) {
      for (const [route, byStatus] of byRoute) {
        for (const [status, count] of byStatus) {
          out.push(`trustlist_http_requests_total{method="${method}",route="${escapeLabel(route)}",status="${status}"} ${count}`);
        }
      }
    }
    out.push("# HELP trustlist_http_request_duration_seconds Time from request to response.");
    out.push("# TYPE trustlist_http_request_duration_seconds histogram");
    let cumulative = 0;
    LATENCY_BUCKETS_MS.forEach((ms, i) => {
      cumulative += this.latency[i]!;
      out.push(`trustlist_http_request_duration_seconds_bucket{le="${ms / 1000}"} ${cumulative}`);
    });
    out.push(`trustlist_http_request_duration_seconds_bucket{le="+Inf"} ${this.latencyCount}`);
    out.push(`trustlist_http_request_duration_seconds_sum ${this.latencySumMs / 1000}`);
    out.push(`trustlist_http_request_duration_seconds_count ${this.latencyCount}`);
    out.push("# HELP trustlist_webhook_attempts_total Webhook delivery attempts by outcome (delivered, retry, failed, discarded).");
    out.push("# TYPE trustlist_webhook_attempts_total counter");
    for (const [outcome, count] of this.webhookOutcomes) out.push(`trustlist_webhook_attempts_total{outcome="${outcome}"} ${count}`);
    this.webhookLatency.render(out, "trustlist_webhook_attempt_duration_seconds", "Time from a webhook attempt's start to its answer or failure.");
    this.webhookDeliveryAge.render(out, "trustlist_webhook_delivery_age_seconds", "Time from an event's commit to its successful delivery.");
    for (const [name, gauge] of Object.entries(gauges)) {
      out.push(`# HELP ${name} ${gauge.help}`);
      out.push(`# TYPE ${name} gauge`);
      out.push(`${name} ${gauge.value}`);
    }
    return out.join("\n") + "\n";
  }
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}
