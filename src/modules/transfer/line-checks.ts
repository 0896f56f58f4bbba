// A large import's schema checks on a second thread (line-check-worker.ts): the import thread
// parses and writes each line without checking it, and asks this thread's verdict when it stops,
// on a failure or at the file's end. An unchecked bad line may be written meanwhile: the verdict
// comes before the commit, and a failure rolls everything back.
import { workerEntry } from "../../worker-entry";
import { firstSchemaFailure, type SchemaFailure } from "./lines";

type Message = { type: "through"; lineNo: number } | { type: "done"; failure: SchemaFailure | null } | { type: "error"; message: string };

export class LineChecks {
  private readonly worker: Worker;
  /** Every line up to here is checked (the thread reports now and then). */
  private through = 0;
  private verdict: Promise<SchemaFailure | null>;
  private settled = false;
  private readonly waiting = new Set<() => void>();

  constructor(private readonly path: string) {
    this.worker = new Worker(workerEntry("modules/transfer/line-check-worker.ts"));
    this.worker.unref();
    let settle!: (failure: Promise<SchemaFailure | null> | SchemaFailure | null) => void;
    this.verdict = new Promise((resolve) => (settle = resolve));
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
      // The thread could not check the file: the import thread checks it itself.
      else done(firstSchemaFailure(this.path));
    });
    this.worker.addEventListener("error", () => done(firstSchemaFailure(this.path)));
    this.worker.postMessage({ path });
  }

  /** The first failing line at or before `lineNo`, once the thread has checked that far. */
  async failureThrough(lineNo: number): Promise<SchemaFailure | null> {
    while (!this.settled && this.through < lineNo) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiting.delete(wake);
          resolve();
        };
        this.waiting.add(wake);
      });
    }
    if (this.settled) {
      const failure = await this.verdict;
      return failure && failure.lineNo <= lineNo ? failure : null;
    }
    return null;
  }

  /** The first failing line of the whole file, or null. */
  failure(): Promise<SchemaFailure | null> {
    return this.verdict;
  }

  stop(): void {
    if (!this.settled) {
      this.settled = true;
      this.worker.terminate();
    }
  }
}
