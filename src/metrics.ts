// Request counters and a latency histogram in memory, rendered as Prometheus text on /metrics.
// With `serve --workers N` each worker counts its own; a scrape adds every worker's sample up.
const LATENCY_BUCKETS_MS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000];
/** Webhook attempts run up to the 10 s time limit. */
const ATTEMPT_BUCKETS_MS = [10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000];
/** Commit to delivery: seconds when healthy, hours when retries were needed. */
const DELIVERY_AGE_BUCKETS_MS = [100, 250, 500, 1000, 2500, 5000, 30_000, 300_000, 3_600_000, 86_400_000];

/** A histogram's state as plain data: per-bucket counts (the last is above every bound), sum, count. */
export interface HistogramSample {
  counts: number[];
  sumMs: number;
  count: number;
}

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

  sample(): HistogramSample {
    return { counts: [...this.counts], sumMs: this.sumMs, count: this.count };
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

  /** Requests answered since start (the webhook worker reads how fast it grows). */
  get requestsAnswered(): number {
    return this.latencyCount;
  }

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
  render(gauges: Gauges): string {
    return renderSample(this.sample(gauges));
  }

  /** The counters as plain data (what one worker of `serve --workers` sends the one scraped). */
  sample(gauges: Gauges = {}): MetricsSample {
    const requests: MetricsSample["requests"] = [];
    for (const [method, byRoute] of this.requests) {
      for (const [route, byStatus] of byRoute) for (const [status, count] of byStatus) requests.push([method, route, status, count]);
    }
    return {
      requests,
      latency: { counts: [...this.latency], sumMs: this.latencySumMs, count: this.latencyCount },
      webhookOutcomes: [...this.webhookOutcomes],
      webhookLatency: this.webhookLatency.sample(),
      webhookDeliveryAge: this.webhookDeliveryAge.sample(),
      gauges,
    };
  }
}

export type Gauges = Record<string, { help: string; value: number }>;

export interface MetricsSample {
  requests: Array<[method: string, route: string, status: number, count: number]>;
  latency: HistogramSample;
  webhookOutcomes: Array<[outcome: string, count: number]>;
  webhookLatency: HistogramSample;
  webhookDeliveryAge: HistogramSample;
  gauges: Gauges;
}

/**
 * Several workers' samples as one: counters and histograms add up; a gauge adds up when it is
 * each worker's own (in `perWorker`), else (a figure of the shared database) the first is kept.
 */
export function mergeSamples(samples: MetricsSample[], perWorker: ReadonlySet<string>): MetricsSample {
  const requests = new Map<string, [string, string, number, number]>();
  const outcomes = new Map<string, number>();
  const gauges: Gauges = {};
  for (const sample of samples) {
    for (const [method, route, status, count] of sample.requests) {
      const id = `${method} ${status} ${route}`;
      const row = requests.get(id);
      if (row) row[3] += count;
      else requests.set(id, [method, route, status, count]);
    }
    for (const [outcome, count] of sample.webhookOutcomes) outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + count);
    for (const [name, gauge] of Object.entries(sample.gauges)) {
      const held = gauges[name];
      if (!held) gauges[name] = { ...gauge };
      else if (perWorker.has(name)) held.value += gauge.value;
    }
  }
  return {
    requests: [...requests.values()],
    latency: addHistograms(samples.map((s) => s.latency)),
    webhookOutcomes: [...outcomes],
    webhookLatency: addHistograms(samples.map((s) => s.webhookLatency)),
    webhookDeliveryAge: addHistograms(samples.map((s) => s.webhookDeliveryAge)),
    gauges,
  };
}

function addHistograms(histograms: HistogramSample[]): HistogramSample {
  const sum: HistogramSample = { counts: histograms[0]!.counts.map(() => 0), sumMs: 0, count: 0 };
  for (const histogram of histograms) {
    histogram.counts.forEach((n, i) => (sum.counts[i]! += n));
    sum.sumMs += histogram.sumMs;
    sum.count += histogram.count;
  }
  return sum;
}

/** Prometheus exposition text of a sample. */
export function renderSample(sample: MetricsSample): string {
  const out: string[] = [];
  out.push("# HELP trustlist_http_requests_total HTTP requests by method, route pattern and status.");
  out.push("# TYPE trustlist_http_requests_total counter");
  for (const [method, route, status, count] of sample.requests) {
    out.push(`trustlist_http_requests_total{method="${method}",route="${escapeLabel(route)}",status="${status}"} ${count}`);
  }
  renderHistogram(out, "trustlist_http_request_duration_seconds", "Time from request to response.", LATENCY_BUCKETS_MS, sample.latency);
  out.push("# HELP trustlist_webhook_attempts_total Webhook delivery attempts by outcome (delivered, retry, failed, discarded).");
  out.push("# TYPE trustlist_webhook_attempts_total counter");
  for (const [outcome, count] of sample.webhookOutcomes) out.push(`trustlist_webhook_attempts_total{outcome="${outcome}"} ${count}`);
  renderHistogram(
    out,
    "trustlist_webhook_attempt_duration_seconds",
    "Time from a webhook attempt's start to its answer or failure.",
    ATTEMPT_BUCKETS_MS,
    sample.webhookLatency,
  );
  renderHistogram(out, "trustlist_webhook_delivery_age_seconds", "Time from an event's commit to its successful delivery.", DELIVERY_AGE_BUCKETS_MS, sample.webhookDeliveryAge);
  for (const [name, gauge] of Object.entries(sample.gauges)) {
    out.push(`# HELP ${name} ${gauge.help}`);
    out.push(`# TYPE ${name} gauge`);
    out.push(`${name} ${gauge.value}`);
  }
  return out.join("\n") + "\n";
}

function renderHistogram(out: string[], name: string, help: string, bucketsMs: number[], histogram: HistogramSample) {
  out.push(`# HELP ${name} ${help}`);
  out.push(`# TYPE ${name} histogram`);
  let cumulative = 0;
  bucketsMs.forEach((ms, i) => {
    cumulative += histogram.counts[i]!;
    out.push(`${name}_bucket{le="${ms / 1000}"} ${cumulative}`);
  });
  out.push(`${name}_bucket{le="+Inf"} ${histogram.count}`);
  out.push(`${name}_sum ${histogram.sumMs / 1000}`);
  out.push(`${name}_count ${histogram.count}`);
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}
