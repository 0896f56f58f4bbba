// Request counters and a latency histogram in memory, rendered as Prometheus text on /metrics.
const LATENCY_BUCKETS_MS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000];

export class Metrics {
  /** method + route pattern, then status: nested so counting builds no string. */
  private readonly requests = new Map<string, Map<string, Map<number, number>>>();
  private readonly latency = new Array<number>(LATENCY_BUCKETS_MS.length + 1).fill(0);
  private latencySumMs = 0;
  private latencyCount = 0;
  readonly startedAt = Date.now();

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
    return renderSample({ ...this.sample(), gauges });
  }

  /** The counters as plain data (what one worker of `serve --workers` sends the one scraped). */
  sample(gauges: Gauges = {}): MetricsSample {
    const requests: MetricsSample["requests"] = [];
    for (const [method, byRoute] of this.requests) {
      for (const [route, byStatus] of byRoute) for (const [status, count] of byStatus) requests.push([method, route, status, count]);
    }
    return { requests, latency: [...this.latency], latencySumMs: this.latencySumMs, latencyCount: this.latencyCount, gauges };
  }
}

export type Gauges = Record<string, { help: string; value: number }>;

export interface MetricsSample {
  requests: Array<[method: string, route: string, status: number, count: number]>;
  latency: number[];
  latencySumMs: number;
  latencyCount: number;
  gauges: Gauges;
}

/**
 * Several workers' samples as one: counters and the histogram add up; a gauge adds up when it is
 * each worker's own (in `perWorker`), else (a figure of the shared database) the first is kept.
 */
export function mergeSamples(samples: MetricsSample[], perWorker: ReadonlySet<string>): MetricsSample {
  const requests = new Map<string, [string, string, number, number]>();
  const latency = new Array<number>(LATENCY_BUCKETS_MS.length + 1).fill(0);
  const gauges: Gauges = {};
  let latencySumMs = 0;
  let latencyCount = 0;
  for (const sample of samples) {
    for (const [method, route, status, count] of sample.requests) {
      const id = `${method} ${status} ${route}`;
      const row = requests.get(id);
      if (row) row[3] += count;
      else requests.set(id, [method, route, status, count]);
    }
    sample.latency.forEach((n, i) => (latency[i]! += n));
    latencySumMs += sample.latencySumMs;
    latencyCount += sample.latencyCount;
    for (const [name, gauge] of Object.entries(sample.gauges)) {
      const held = gauges[name];
      if (!held) gauges[name] = { ...gauge };
      else if (perWorker.has(name)) held.value += gauge.value;
    }
  }
  return { requests: [...requests.values()], latency, latencySumMs, latencyCount, gauges };
}

/** Prometheus exposition text of a sample. */
export function renderSample(sample: MetricsSample): string {
  const out: string[] = [];
  out.push("# HELP trustlist_http_requests_total HTTP requests by method, route pattern and status.");
  out.push("# TYPE trustlist_http_requests_total counter");
  for (const [method, route, status, count] of sample.requests) {
    out.push(`trustlist_http_requests_total{method="${method}",route="${escapeLabel(route)}",status="${status}"} ${count}`);
  }
  out.push("# HELP trustlist_http_request_duration_seconds Time from request to response.");
  out.push("# TYPE trustlist_http_request_duration_seconds histogram");
  let cumulative = 0;
  LATENCY_BUCKETS_MS.forEach((ms, i) => {
    cumulative += sample.latency[i]!;
    out.push(`trustlist_http_request_duration_seconds_bucket{le="${ms / 1000}"} ${cumulative}`);
  });
  out.push(`trustlist_http_request_duration_seconds_bucket{le="+Inf"} ${sample.latencyCount}`);
  out.push(`trustlist_http_request_duration_seconds_sum ${sample.latencySumMs / 1000}`);
  out.push(`trustlist_http_request_duration_seconds_count ${sample.latencyCount}`);
  for (const [name, gauge] of Object.entries(sample.gauges)) {
    out.push(`# HELP ${name} ${gauge.help}`);
    out.push(`# TYPE ${name} gauge`);
    out.push(`${name} ${gauge.value}`);
  }
  return out.join("\n") + "\n";
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}
