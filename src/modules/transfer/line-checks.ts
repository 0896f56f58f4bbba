// A large import's schema checks on a second thread (line-check-worker.ts): the import thread
// parses and writes each line without checking it, and asks this thread's verdict when it stops,
// on a failure or at the file's end. An unchecked bad line may be written meanwhile: the verdict
// comes before the commit, and a failure rolls everything back. With `entries` the thread also
// prepares the entry lines into a file of their own (line-check-worker.ts), which the import
// stores at the end: then the thread's verdict is that file's too, and a thread that could not
// finish fails the import.
import { workerEntry } from "../../worker-entry";
import type { EntriesApart } from "./line-check-worker";
import { firstSchemaFailure, type SchemaFailure } from "./lines";

/** How long `stop` waits for the thread to exit (it takes a few milliseconds, even mid-line). */
const EXIT_WAIT_MS = 5_000;

type Message = { type: "through"; lineNo: number } | { type: "done"; failure: SchemaFailure | null } | { type: "error"; message: string };

export class LineChecks {
  private readonly worker: Worker;
  /** Every line up to here is checked (the thread reports now and then). */
  private through = 0;
  private verdict: Promise<SchemaFailure | null>;
  private settled = false;
  private readonly waiting = new Set<() => void>();
  /** Settles once the thread has exited (terminated or failed), and with it its open files. */
  private readonly exited: Promise<void>;

  constructor(
    private readonly path: string,
    private readonly entries?: EntriesApart,
  ) {
    this.worker = new Worker(workerEntry("modules/transfer/line-check-worker.ts"));
    this.exited = new Promise((resolve) => this.worker.addEventListener("close", () => resolve()));
    this.worker.unref();
    let settle!: (failure: Promise<SchemaFailure | null> | SchemaFailure | null) => void;
    this.verdict = new Promise((resolve) => (settle = resolve));
    // Awaited by the import unless it failed first: never an unhandled rejection.
    this.verdict.catch(() => {});
    const done = (failure: Promise<SchemaFailure | null> | SchemaFailure | null) => {
      if (this.settled) return;
      this.settled = true;
      settle(failure);
      this.worker.terminate();
      for (const wake of this.waiting) wake();
    };
    this.worker.addEventListener("message", (event: MessageEvent<Message>) => {
      const message = event.data;
      if (message.type === "through") {
        this.through = message.lineNo;
        for (const wake of this.waiting) wake();
      } else if (message.type === "done") done(message.failure);
      else done(this.withoutThread(message.message));
    });
    this.worker.addEventListener("error", (event) => done(this.withoutThread(event.message)));
    this.worker.postMessage({ path, entries });
  }

  /**
   * The verdict when the thread could not check the file: the import thread checks it itself, but
   * entries prepared apart are missing, and the import fails.
   */
  private withoutThread(reason: string): Promise<SchemaFailure | null> {
    if (this.entries) return Promise.reject(new Error(`the import's entries could not be prepared: ${reason}`));
    return firstSchemaFailure(this.path);
  }

  /** The first failing line at or before `lineNo`, once the thread has checked that far. */
  async failureThrough(lineNo: number): Promise<SchemaFailure | null> {
    while (!this.settled && this.through < lineNo) {
      await this.waitingOn(new Promise<void>((resolve) => {
        const wake = () => {
          this.waiting.delete(wake);
          resolve();
        };
        this.waiting.add(wake);
      }));
    }
    if (this.settled) {
      const failure = await this.verdict;
      return failure && failure.lineNo <= lineNo ? failure : null;
    }
    return null;
  }

  /** The first failing line of the whole file, or null. */
  failure(): Promise<SchemaFailure | null> {
    return this.waitingOn(this.verdict);
  }

  /**
   * Awaits `promise` with the thread counted as pending work. Otherwise, unref'd (so it never
   * keeps the process alive), it left the event loop nothing to sleep on and the import thread
   * spun while waiting: 2-3 s of CPU at 1M entries, taken from the checking thread itself.
   */
  private async waitingOn<T>(promise: Promise<T>): Promise<T> {
    this.worker.ref();
    try {
      return await promise;
    } finally {
      this.worker.unref();
    }
  }

  /**
   * Stops the thread, settling once it has exited (a file it was writing is closed by then), or
   * after `EXIT_WAIT_MS` at most.
   */
  async stop(): Promise<void> {
    if (!this.settled) {
      this.settled = true;
      this.worker.terminate();
    }
    let timer: Timer | undefined;
    await Promise.race([this.exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, EXIT_WAIT_MS)))]);
    clearTimeout(timer);
  }
}
