// `serve` starts itself again in place with the engine settings of src/server/engine-settings.ts
// (the heap's warm-up thread off), unless the operator set them. Real processes of the compiled
// binary; what they run with is read from /proc: their environment and their threads' names.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { ENGINE_SETTINGS } from "../../src/server/engine-settings";
import { readStderrUntil, startServer, trustlist, workspace } from "../cli-helpers";

/** The environment a process was started with, by name. */
function environmentOf(pid: number): Map<string, string> {
  const pairs = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
  return new Map(pairs.map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]));
}

/** The names of a process's threads (JavaScriptCore's warm-up thread is "JSCWarmUp"). */
function threadsOf(pid: number): string[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim());
}

/**
 * Whether a thread named `name` runs in `pid` within `ms`: the engine starts its threads as the
 * heap grows, which a busy machine may put after the line the test waited for. Once started they
 * stay, so the first sight answers.
 */
async function threadAppears(pid: number, name: string, ms = 5_000): Promise<boolean> {
  for (const deadline = Date.now() + ms; ; await Bun.sleep(50)) {
    if (threadsOf(pid).includes(name)) return true;
    if (Date.now() > deadline) return false;
  }
}

function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
}

describe("serve's engine settings", () => {
  test("serve runs with the warm-up thread off, in the process it was started as", async () => {
    expect(ENGINE_SETTINGS).toEqual({ BUN_JSC_useWarmUpMarkedBlocks: "0" });
    const { db } = workspace();
    const server = await startServer([trustlist()], db);
    try {
      // The process the operator started still serves: the restart kept its id.
      expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
      expect(environmentOf(server.proc.pid).get("BUN_JSC_useWarmUpMarkedBlocks")).toBe("0");
      // A first start's migrations and key allocate well past where the thread would have started.
      expect(threadsOf(server.proc.pid)).not.toContain("JSCWarmUp");
      expect(server.stderr).not.toContain("engine settings");
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  test("an operator's own value wins and is kept", async () => {
    const { db } = workspace();
    const proc = Bun.spawn([trustlist(), "serve", "--port", "0", "--db", db, "--access-log", "off"], {
      stdout: "ignore",
      stderr: "pipe",
      env: { ...process.env, BUN_JSC_useWarmUpMarkedBlocks: "1" },
    });
    try {
      const { text, exited } = await readStderrUntil(proc, (out) => /listening on http/.test(out) && /tl_live_\w{32}/.test(out));
      expect(exited).toBe(false);
      expect(text).toContain("listening on");
      expect(environmentOf(proc.pid).get("BUN_JSC_useWarmUpMarkedBlocks")).toBe("1");
      // The engine's default, as asked: the thread runs.
      expect(await threadAppears(proc.pid, "JSCWarmUp")).toBe(true);
    } finally {
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
    }
  });

  test("serve --workers 2: the supervisor and every worker run with it", async () => {
    const { db } = workspace();
    const server = await startServer([trustlist()], db, undefined, true, ["--workers", "2"]);
    try {
      expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
      const workers = childrenOf(server.proc.pid).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("serve"));
      expect(workers).toHaveLength(2);
      for (const pid of [server.proc.pid, ...workers]) {
        expect(environmentOf(pid).get("BUN_JSC_useWarmUpMarkedBlocks")).toBe("0");
        expect(threadsOf(pid)).not.toContain("JSCWarmUp");
      }
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
