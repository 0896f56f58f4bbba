#!/usr/bin/env bun
// Cold start: time from spawning `trustlist serve` to the first 200 from GET /healthz, polling as
// fast as the loopback allows (a refused connection comes back in microseconds; 0.5 ms pause). Each
// run stops the server with SIGTERM and waits for it to exit.
//
// Usage: bun bench/coldstart.ts --bin dist/trustlist --db FILE [--runs 3] [--port 18090] [--fresh]
//   --fresh: each run gets a new empty database (FILE is a prefix), as on a first install.
// Prints one JSON object: {runs_ms: [...], median_ms, server_startup_ms: [...], ...}.
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    bin: { type: "string", default: "dist/trustlist" },
    db: { type: "string" },
    runs: { type: "string", default: "3" },
    port: { type: "string", default: "18090" },
    fresh: { type: "boolean", default: false },
  },
  strict: true,
});
if (!values.db) throw new Error("--db FILE is required");
const runs = Number(values.runs);
const port = Number(values.port);
const url = `http://127.0.0.1:${port}/healthz`;

const removeDb = (file: string) => {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
};

const results: number[] = [];
const serverReported: number[] = [];
const exitCodes: number[] = [];
for (let i = 0; i < runs; i++) {
  const db = values.fresh ? `${values.db}.${i}.db` : values.db;
  if (values.fresh) removeDb(db);
  const t0 = performance.now();
  const child = Bun.spawn([values.bin!, "serve", "--db", db, "--port", String(port), "--host", "127.0.0.1", "--access-log", "off"], {
    stdout: "pipe",
    stderr: "ignore",
  });
  let ms = -1;
  const deadline = t0 + 10_000;
  while (performance.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.status === 200) {
        await res.arrayBuffer();
        ms = performance.now() - t0;
        break;
      }
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) break;
    await Bun.sleep(0.5);
  }
  child.kill("SIGTERM");
  exitCodes.push(await child.exited);
  const out = await new Response(child.stdout).text();
  const logged = /"startup_ms":(\d+)/.exec(out);
  if (logged) serverReported.push(Number(logged[1]));
  if (ms < 0) throw new Error(`run ${i + 1}: no 200 from ${url} within 10 s (exit ${child.exitCode})`);
  results.push(Math.round(ms * 10) / 10);
  if (values.fresh) removeDb(db);
}
const sorted = [...results].sort((a, b) => a - b);
console.log(
  JSON.stringify({
    db: values.fresh ? "fresh empty database per run" : values.db,
    runs_ms: results,
    median_ms: sorted[Math.floor(sorted.length / 2)],
    min_ms: sorted[0],
    server_startup_ms: serverReported,
    exit_codes: exitCodes,
  }),
);
