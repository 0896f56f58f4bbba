// Shared by the benchmark scripts that start a server of their own.

/** Resolves once `base`/healthz answers 200; throws after `deadlineMs`. */
export async function waitHealthy(base: string, deadlineMs: number): Promise<void> {
  const until = performance.now() + deadlineMs;
  while (performance.now() < until) {
    try {
      if ((await fetch(`${base}/healthz`)).status === 200) return;
    } catch {}
    await Bun.sleep(20);
  }
  throw new Error(`no answer from ${base}/healthz`);
}

/**
 * One wrk round of keyed checks (bench/check.lua over the paths in `queries`) against `base`:
 * requests per second and p99 in ms. Throws when wrk reports nothing or any answer was not 2xx.
 */
export async function checkRound(options: { base: string; key: string; seconds: number; connections: number; queries: string; script: string }) {
  const { base, key, seconds, connections, queries, script } = options;
  const wrk = Bun.spawn(["wrk", "-t2", `-c${connections}`, `-d${seconds}s`, "--timeout", "2s", "--latency", "-s", script, base, "--", "2"], {
    env: { ...process.env, BENCH_QUERIES: queries, BENCH_KEY: key },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [output] = await Promise.all([new Response(wrk.stdout).text(), wrk.exited]);
  const result = output.match(/^RESULT requests=(\d+) duration_s=([\d.]+) .*non2xx=(\d+)/m);
  const p99 = output.match(/^\s+99%\s+([\d.]+)(us|ms|s)/m);
  if (!result || !p99) throw new Error(`wrk: no result\n${output}${await new Response(wrk.stderr).text()}`);
  const [, requests, duration, failed] = result;
  if (Number(failed) > 0) throw new Error(`wrk: ${failed} answers were not 2xx`);
  return { rps: Number(requests) / Number(duration), p99ms: Number(p99[1]) * (p99[2] === "us" ? 0.001 : p99[2] === "s" ? 1000 : 1) };
}
