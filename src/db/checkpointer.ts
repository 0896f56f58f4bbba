// WAL checkpoints off the request thread. With synchronous=NORMAL a WAL commit never fsyncs; the
// fsyncs happen in checkpoints, and SQLite's automatic checkpoint runs inside whichever COMMIT
// pushes the WAL past 1000 pages: on the one thread that answers requests. Measured on the 1M-entry
// bench database, expiring 50,000 entries in 100-row transactions: with the automatic checkpoint
// the worst COMMIT took 120-274 ms (p50 4-6 ms), without it 36-60 ms (p50 2 ms); the rest of those
// slices' worst cases was FTS5 merge work (db/search-index.ts). So the serving
// connection turns it off and a Worker with a connection of its own runs PASSIVE checkpoints
// (which never take the write lock nor wait for readers) whenever the WAL has changed, every
// `intervalMs`: the WAL holds at most that long's writes plus what a long read pins. The CLI keeps
// SQLite's automatic checkpoint. The worker's entry is a second entry point of `bun build
// --compile` (Makefile), or a compiled binary cannot start it.
import { workerEntry } from "../worker-entry";
import type { Store } from "./client";
import { leaveCheckpointsToOthers } from "./pragmas";

/** How often the checkpointer looks at the WAL. */
export const CHECKPOINT_INTERVAL_MS = 500;

/** WAL file size kept once its frames are all copied back. */
const WAL_KEPT_BYTES = 16 * 1024 * 1024;

export interface CheckpointerOptions {
  intervalMs?: number;
  onError?: (message: string) => void;
}

export class Checkpointer {
  /** Checkpoints that copied frames, and the frames they copied. */
  checkpoints = 0;
  framesCopied = 0;
  /** Times the WAL file was cut back to nothing after a burst. */
  truncations = 0;
  /** Settles once the worker has its connection (true) or could not start (false, `onError` told why). */
  readonly ready: Promise<boolean>;
  private readonly worker: Worker;
  private stopped: Promise<void> | null = null;

  constructor(store: Store, options: CheckpointerOptions = {}) {
    // The serving connection never cuts the WAL file back either (its journal_size_limit stays
    // -1): after a burst, the worker does (checkpoint-worker.ts).
    leaveCheckpointsToOthers(store.sqlite);
    this.worker = new Worker(workerEntry("db/checkpoint-worker.ts"));
    // A process that is done should exit even if nobody stopped the checkpointer.
    this.worker.unref();
    const onError = options.onError ?? (() => {});
    let settle: (started: boolean) => void;
    this.ready = new Promise<boolean>((resolve) => (settle = resolve));
    this.worker.addEventListener("message", (event: MessageEvent) => {
      const message = event.data as { type: string; frames?: number; copied?: number; message?: string };
      if (message.type === "ready") settle(true);
      else if (message.type === "checkpoint") {
        this.checkpoints++;
        this.framesCopied += message.copied ?? 0;
      } else if (message.type === "truncated") {
        this.truncations++;
      } else if (message.type === "error") {
        settle(false);
        onError(message.message ?? "");
      }
    });
    this.worker.addEventListener("error", (event: ErrorEvent) => {
      settle(false);
      onError(event.message);
    });
    this.worker.postMessage({ type: "start", path: store.path, intervalMs: options.intervalMs ?? CHECKPOINT_INTERVAL_MS, keptBytes: WAL_KEPT_BYTES });
  }

  /** Stops the worker and closes its connection; the caller may then close the store. */
  stop(): Promise<void> {
    this.stopped ??= new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timeout);
        this.worker.terminate();
        resolve();
      };
      // A worker that never started (or hangs) must not hold up a shutdown.
      const timeout = setTimeout(done, 2_000);
      this.worker.addEventListener("message", (event: MessageEvent) => {
        if ((event.data as { type: string }).type === "stopped") done();
      });
      this.worker.addEventListener("close", done);
      this.worker.postMessage({ type: "stop" });
    });
    return this.stopped;
  }
}
