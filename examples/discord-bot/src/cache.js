// @ts-check
// Answers kept for a short while: a member who leaves and rejoins, or a moderator running
// /trustcheck on someone just checked on join, costs no second call. Lookups of the same key made
// while one is under way share it. Failures are not kept. The map is bounded: past `max` keys the
// oldest goes first.

/** @template T */
export class TtlCache {
  /** @type {Map<string, { value: T, expires: number }>} */
  #entries = new Map();
  /** @type {Map<string, Promise<T>>} */
  #loading = new Map();

  /**
   * @param {{ ttlMs: number, max?: number, now?: () => number }} options
   */
  constructor(options) {
    this.ttlMs = options.ttlMs;
    this.max = options.max ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** @param {string} key @returns {T | undefined} */
  get(key) {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= this.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** @param {string} key @param {T} value */
  set(key, value) {
    if (this.ttlMs <= 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, { value, expires: this.now() + this.ttlMs });
    while (this.#entries.size > this.max) this.#entries.delete(/** @type {string} */ (this.#entries.keys().next().value));
  }

  /** @param {string} key */
  delete(key) {
    this.#entries.delete(key);
  }

  get size() {
    return this.#entries.size;
  }

  /**
   * The kept value, else the one `load` gives (kept for next time); concurrent calls share one load.
   * @param {string} key
   * @param {() => Promise<T>} load
   * @returns {Promise<T>}
   */
  async getOrLoad(key, load) {
    const kept = this.get(key);
    if (kept !== undefined) return kept;
    const pending = this.#loading.get(key);
    if (pending) return pending;
    const loading = load().then(
      (value) => {
        this.#loading.delete(key);
        this.set(key, value);
        return value;
      },
      (error) => {
        this.#loading.delete(key);
        throw error;
      },
    );
    this.#loading.set(key, loading);
    return loading;
  }
}
