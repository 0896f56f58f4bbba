#!/usr/bin/env bun
// Whether this machine's CPUs are cores of their own or hyperthreads of one core: the question
// behind "two workers cost more per check than one". A loop pinned to one CPU counts the work it
// does in a fixed time, first alone on each CPU, then on every CPU at once. On separate cores each
// loop keeps its pace (together / alone near 1); on two hyperthreads of one core each gets about
// 0.5-0.7 of it, and a second worker then pays for the first. Two loops: arithmetic, which stays
// in registers, and random reads over 64 MiB, which miss the caches (a check's pattern is between).
//
// Usage: bun bench/cores.ts [--seconds 3] [--cpus 0,1]   (Linux: pins with taskset)
// Prints one JSON object: per loop, the work alone and together per CPU, and their ratio.
import { parseArgs } from "node:util";

const LOOPS = {
  arithmetic: `let n = 0, x = 1; const end = performance.now() + S;
    while (performance.now() < end) { for (let i = 0; i < 100000; i++) x = (x * 1103515245 + 12345) | 0; n++; }
    console.log(n + (x === 0.5 ? 1 : 0));`,
  memory: `const a = new Uint32Array(16 << 20); for (let i = 0; i < a.length; i++) a[i] = Math.imul(i, 2654435761) >>> 0;
    let n = 0, j = 1; const end = performance.now() + S;
    while (performance.now() < end) { for (let i = 0; i < 100000; i++) j = a[j & (a.length - 1)] ^ i; n++; }
    console.log(n + (j === 0.5 ? 1 : 0));`,
} as const;

const { values } = parseArgs({ options: { seconds: { type: "string", default: "3" }, cpus: { type: "string" } } });
const ms = Math.round(Number(values.seconds) * 1000);
const cpus = (values.cpus ?? [...Array(navigator.hardwareConcurrency).keys()].join(",")).split(",").map(Number);

/** Work units one pinned loop did, for each of `on` run at the same time. */
async function run(loop: keyof typeof LOOPS, on: number[]): Promise<number[]> {
  const code = LOOPS[loop].replace("S;", `${ms};`);
  const children = on.map((cpu) =>
    Bun.spawn(["taskset", "-c", String(cpu), process.execPath, "-e", code], { stdout: "pipe", stderr: "inherit" }),
  );
  return Promise.all(children.map(async (child) => Number((await new Response(child.stdout).text()).trim())));
}

const result: Record<string, unknown> = { cpus, seconds: ms / 1000 };
for (const loop of Object.keys(LOOPS) as Array<keyof typeof LOOPS>) {
  const alone: number[] = [];
  for (const cpu of cpus) alone.push((await run(loop, [cpu]))[0]!);
  const together = await run(loop, cpus);
  const ratio = together.reduce((sum, n, i) => sum + n / alone[i]!, 0) / cpus.length;
  result[loop] = { alone, together, together_over_alone: Number(ratio.toFixed(2)) };
}
console.log(JSON.stringify(result));
