// The fetch the typed client goes through: it makes every call safe to repeat and repeats it when
// repeating can help. Writes carry an `Idempotency-Key` that stays the same across the attempts of
// one call, so the server answers a repeat from its record instead of writing twice (docs/api.md);
// 429 waits the `Retry-After` the server named; 5xx, lost answers and timeouts back off
// exponentially with jitter. The defaults keep retrying for about 10 to 20 s, longer than a server
// takes to restart, so a deploy does not surface as errors; `deadlineMs` bounds a call as a whole.
import { retryAfterSeconds, TrustlistError } from "./errors.js";

export interface RetryOptions {
  /** Attempts per call, the first included (1 turns retries off). Default 8. */
  attempts?: number;
  /** First backoff step for 5xx, network errors and timeouts, in ms; it doubles per attempt. Default 500. */
  backoffMs?: number;
  /** Longest backoff step, in ms. Default 5000. */
  maxBackoffMs?: number;
  /**
   * Longest `Retry-After` the client waits out, in seconds. A longer one (a spent daily quota
   * resets at midnight UTC) ends the call at once with the 429. Default 60.
   */
  maxRetryAfter?: number;
  /** Time allowed for one attempt, in ms; an attempt that outlasts it is retried. Default 10000. */
  timeoutMs?: number;
  /** Time allowed for the whole call, waits and retries included, in ms. Default: none (attempts bound it). */
  deadlineMs?: number;
}

export interface TransportOptions extends RetryOptions {
  fetch?: (request: Request) => Promise<Response>;
}

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** How many attempts each answer took (read by the client's response metadata). */
const attemptsTaken = new WeakMap<Response, number>();
export const attemptsOf = (response: Response): number => attemptsTaken.get(response) ?? 1;

export function retryingFetch(options: TransportOptions = {}): (request: Request) => Promise<Response> {
  const attempts = Math.max(1, options.attempts ?? 8);
  const backoffMs = options.backoffMs ?? 500;
  const maxBackoffMs = options.maxBackoffMs ?? 5000;
  const maxRetryAfter = options.maxRetryAfter ?? 60;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));

  /** Equal jitter: half the step for sure, half at random, so a crowd of clients spreads out. */
  const backoff = (attempt: number) => {
    const step = Math.min(maxBackoffMs, backoffMs * 2 ** (attempt - 1));
    return step / 2 + Math.random() * (step / 2);
  };

  return async (request) => {
    const caller = request.signal;
    const started = Date.now();
    const deadline = options.deadlineMs === undefined ? Infinity : started + options.deadlineMs;
    const headers = new Headers(request.headers);
    if (WRITES.has(request.method) && !headers.has("idempotency-key")) headers.set("idempotency-key", crypto.randomUUID());
    // Read once: a request body is a stream and each attempt needs the whole of it.
    const body = request.body ? await request.arrayBuffer() : undefined;
    // Never the URL: it names the server, which a caller may show to people who should not learn it.
    const what = `${request.method} ${new URL(request.url).pathname}`;
    let answerLost = false;

    for (let attempt = 1; ; attempt++) {
      const allowed = Math.min(timeoutMs, deadline - Date.now());
      const timeout = AbortSignal.timeout(Math.max(1, allowed));
      let response: Response;
      try {
        response = await buffered(
          await send(new Request(request.url, { method: request.method, headers, body, redirect: request.redirect, signal: AbortSignal.any([caller, timeout]) })),
        );
      } catch (cause) {
        if (caller.aborted) throw caller.reason ?? cause;
        const timedOut = timeout.aborted;
        const wait = backoff(attempt);
        if (attempt >= attempts || Date.now() + wait >= deadline) {
          throw TrustlistError.from({
            status: 0,
            code: timedOut ? "timeout" : "network_error",
            message: timedOut
              ? `${what} got no answer within ${Math.round(allowed)} ms (${attempt} attempts)`
              : `${what} got no answer: ${(cause as Error)?.message ?? cause} (${attempt} attempts)`,
            cause,
          });
        }
        answerLost = true;
        await sleep(wait, caller);
        continue;
      }

      const wait = retryWait(response, attempt);
      if (wait === null || attempt >= attempts || Date.now() + wait >= deadline) {
        attemptsTaken.set(response, attempt);
        return response;
      }
      await sleep(wait, caller);
    }

    /** Milliseconds to wait before repeating this answer's request, or null when it is final. */
    function retryWait(response: Response, attempt: number): number | null {
      const status = response.status;
      if (status === 429 || status === 503) {
        const seconds = retryAfterSeconds(response.headers);
        if (seconds !== null) return seconds <= maxRetryAfter ? seconds * 1000 : null;
        return status === 503 ? backoff(attempt) : null;
      }
      if (status >= 500) return backoff(attempt);
      // A repeat that arrives while the lost attempt is still being answered is told 409; once that
      // attempt is done the server replays its answer. A genuine conflict is itself a replay
      // (`Idempotent-Replayed: true`) or came on the first attempt.
      if (status === 409 && answerLost && response.headers.get("idempotent-replayed") !== "true") return backoff(attempt);
      return null;
    }
  };
}

/**
 * The answer with its body read: the timeout covers the whole answer, and an answer cut off
 * halfway is retried like one that never came. (The API answers JSON and small SVGs; nothing is
 * worth streaming.)
 */
async function buffered(response: Response): Promise<Response> {
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  if (response.body === null || NULL_BODY.has(response.status)) return new Response(null, init);
  return new Response(await response.arrayBuffer(), init);
}

const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** Waits `ms`; rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", abort, { once: true });
  });
}
