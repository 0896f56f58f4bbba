// A real webhook receiver for tests: `Bun.serve` on loopback that records every request and
// answers as the test says (a status, or never).
import { Webhook } from "standardwebhooks";

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** What the receiver answered (null: it never answered). */
  answered: number | null;
  at: number;
}

/** A status now, a status once the promise settles (an answer held back), or never. */
export type Answer = number | Promise<number> | "hang";

export class Receiver {
  readonly received: Received[] = [];
  /** Decides each answer; default 200. */
  answer: (request: Received, index: number) => Answer = () => 200;
  private readonly server: ReturnType<typeof Bun.serve>;
  private readonly hanging: Array<() => void> = [];

  constructor() {
    this.server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      idleTimeout: 0,
      fetch: async (request) => {
        const record: Received = {
          path: new URL(request.url).pathname,
          headers: Object.fromEntries(request.headers),
          body: await request.text(),
          answered: null,
          at: Date.now(),
        };
        const answer = this.answer(record, this.received.length);
        this.received.push(record);
        if (answer === "hang") {
          await new Promise<void>((resolve) => this.hanging.push(resolve));
          return new Response("late", { status: 200 });
        }
        const status = typeof answer === "number" ? answer : await answer;
        record.answered = status;
        return new Response(status >= 200 && status < 300 ? "ok" : "not now", { status });
      },
    });
  }

  url(path = "/hook"): string {
    return `http://127.0.0.1:${this.server.port}${path}`;
  }

  /** Requests to `path`. */
  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Verifies one request with the stock Standard Webhooks library; returns the parsed payload. */
  static verify(secret: string, request: Received): any {
    return new Webhook(secret).verify(request.body, request.headers);
  }

  async waitFor(done: () => boolean, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`receiver: timed out after ${ms} ms with ${this.received.length} requests`);
      await Bun.sleep(20);
    }
  }

  stop(): void {
    for (const release of this.hanging) release();
    this.server.stop(true);
  }
}
