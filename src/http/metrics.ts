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
