// @ts-check
// Joins are checked in order at a bounded pace, never all at once: during a raid hundreds of
// members join within a minute, and checking each at once would spend a free plan's daily quota
// (100 calls) in seconds. The queue takes up to `batchSize` members per step (50 with a batch-
// capable plan: one call per step) and waits `intervalMs` between steps. A member queued twice is
// checked once. Past `maxPending` waiting members the newest are not queued and `onOverflow`
// says so, so moderators know who was not checked. A member whose check failed (trustlist down,
// the day's quota spent) is not forgotten: `retry` queues it again after a wait (the quota's reset,
// a backoff), on a timer the caller may supply, and `stop` cancels the waits.

/**
 * @template T
 */
export class JoinQueue {
  /** @type {T[]} */
  #waiting = [];
  /** @type {Set<string>} */
  #keys = new Set();
  #running = false;
  /** @type {Promise<void>} */
  #idle = Promise.resolve();
  /** Members waiting out a failed check, by key. @type {Map<string, { cancel: () => void }>} */
  #retrying = new Map();

  /**
   * @param {{
   *   key: (item: T) => string,
   *   process: (items: T[]) => Promise<void>,
   *   batchSize?: number,
   *   intervalMs?: number,
   *   maxPending?: number,
   *   onOverflow?: (item: T, pending: number) => void,
   *   onError?: (error: unknown, items: T[]) => void,
   *   wait?: (ms: number) => Promise<void>,
   *   schedule?: (run: () => void, ms: number) => { cancel: () => void },
   * }} options
   */
  constructor(options) {
    this.key = options.key;
    this.process = options.process;
    this.batchSize = Math.max(1, options.batchSize ?? 1);
    this.intervalMs = options.intervalMs ?? 2000;
    this.maxPending = options.maxPending ?? 1000;
    this.onOverflow = options.onOverflow ?? (() => {});
    this.onError = options.onError ?? (() => {});
    this.wait = options.wait ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.schedule =
      options.schedule ??
      ((run, ms) => {
        const timer = setTimeout(run, ms);
        timer.unref?.();
        return { cancel: () => clearTimeout(timer) };
      });
  }

  /** Members waiting out a failed check. */
  get retrying() {
    return this.#retrying.size;
  }

  /**
   * Queues `item` again in `ms`; false when it already waits (here or in the queue).
   * @param {T} item
   * @param {number} ms
   */
  retry(item, ms) {
    const key = this.key(item);
    if (this.#retrying.has(key)) return false;
    this.#retrying.set(
      key,
      this.schedule(() => {
        this.#retrying.delete(key);
        this.push(item);
      }, ms),
    );
    return true;
  }

  /** Cancels every pending retry. */
  stop() {
    for (const timer of this.#retrying.values()) timer.cancel();
    this.#retrying.clear();
  }

  /** Members waiting to be checked. */
  get pending() {
    return this.#waiting.length;
  }

  /**
   * Queues a member; false when it was already waiting or the queue is full.
   * @param {T} item
   */
  push(item) {
    const key = this.key(item);
    if (this.#keys.has(key) || this.#retrying.has(key)) return false;
    if (this.#waiting.length >= this.maxPending) {
      this.onOverflow(item, this.#waiting.length);
      return false;
    }
    this.#keys.add(key);
    this.#waiting.push(item);
    if (!this.#running) this.#idle = this.#run();
    return true;
  }

  /** Resolves when every queued member has been processed. */
  drained() {
    return this.#idle;
  }

  async #run() {
    this.#running = true;
    try {
      while (this.#waiting.length > 0) {
        const items = this.#waiting.splice(0, this.batchSize);
        try {
          await this.process(items);
        } catch (error) {
          this.onError(error, items);
        } finally {
          for (const item of items) this.#keys.delete(this.key(item));
        }
        if (this.#waiting.length > 0) await this.wait(this.intervalMs);
      }
    } finally {
      this.#running = false;
    }
  }
}
