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
