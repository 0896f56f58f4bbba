// The JavaScript engine's settings a serving process runs with. JavaScriptCore reads its options
// from BUN_JSC_* environment variables once, as the process starts, so `serve` starts itself again
// in place (execve: the same process id, before it has opened a file or a port) with them added.
// A value the operator set wins: it is never replaced.
//
// useWarmUpMarkedBlocks=0: the heap otherwise keeps a thread that faults freshly released blocks
// back into memory ahead of the allocator, while the collector hands their pages back to the
// system. Under a steady load of requests the two undo each other's work, and every page handed
// back interrupts the other threads to flush their address translations, which costs most on
// virtual machines. On the 2-core development VM (bench database, wrk beside the server) that
// thread took 14-18 % of a core during searches and directory pages; without it the server's CPU a
// search fell from 200-302 to 171-237 µs and its p99 from 11-19 to 8-12 ms, the keyed check's p99
// from 6.2-7.7 to 5.1-5.6 ms (docs/performance.md, "The engine's warm-up thread").

/** What `serve` adds to its environment unless the operator set it. */
export const ENGINE_SETTINGS: Readonly<Record<string, string>> = { BUN_JSC_useWarmUpMarkedBlocks: "0" };

/** The command that runs this trustlist again: the binary itself, or bun and the entry file when run from source. */
export function ownCommand(): string[] {
  return import.meta.url.includes("/$bunfs/") ? [process.execPath] : [process.execPath, Bun.main];
}

/**
 * Replaces this process with itself, the same arguments and ENGINE_SETTINGS added to its
 * environment, when one is missing; returns when none is (the second start, or the operator set
 * them all). Call it before anything is opened: nothing of this process survives but its id and
 * its open descriptors.
 */
export function startWithEngineSettings(warn: (message: string) => void): void {
  const missing = Object.entries(ENGINE_SETTINGS).filter(([name]) => process.env[name] === undefined);
  // Windows has no way to replace a process in place: there `serve` runs with the engine's defaults.
  if (missing.length === 0 || typeof process.execve !== "function" || process.platform === "win32") return;
  const [runtime, ...entry] = ownCommand();
  // From source, bun's own flags (a profiler's, say) come before the entry file again.
  const args = [runtime!, ...(entry.length > 0 ? process.execArgv : []), ...entry, ...process.argv.slice(2)];
  try {
    process.execve(runtime!, args, { ...process.env, ...Object.fromEntries(missing) });
  } catch (error) {
    warn(`serving without the engine settings ${missing.map(([name, value]) => `${name}=${value}`).join(" ")}: could not restart with them (${String(error)})`);
  }
}
