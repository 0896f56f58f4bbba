// One delivery attempt over HTTP: resolve the destination and check the address it resolves to,
// connect to that address (Host and TLS name stay the URL's), sign, POST with a time limit, and
// keep the start of the answer. Never throws: every failure becomes the attempt's `error`, which
// the account reads in its deliveries list, so it never names the address a host resolved to.
import { DISCORD_MESSAGE, type AttemptResult } from "./service.deliveries";
import { signatureHeaders } from "./signing";
import type { ClaimedDelivery } from "./store";
import { type Destination, parseDestination, RefusedDestination, resolveDestination, type UrlPolicy } from "./url-guard";

/** An attempt without a complete answer within 10 s has failed (and is retried on the schedule). */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** Bytes of the answer's body kept with the attempt. */
export const EXCERPT_BYTES = 1024;

const USER_AGENT = "trustlist-webhooks/1";

/** Reads at most `limit` bytes of a body, then lets the rest go. */
async function readExcerpt(response: Response, limit: number): Promise<string | null> {
  if (!response.body) return null;
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  if (size === 0) return null;
  const bytes = Buffer.concat(chunks).subarray(0, limit);
  return new TextDecoder("utf-8", { fatal: false }).decode(bytes);
}

/**
 * A connection error as the account may read it (its deliveries list): the address the host
 * resolved to is written as the host, so an attempt's record is no way to learn what a name resolves to.
 */
function withoutAddress(message: string, destination: Destination | null): string {
  return destination ? message.split(destination.address).join(destination.serverName) : message;
}

export interface SendOptions {
  policy: UrlPolicy;
  timeoutMs?: number;
  /** Aborts the attempt (shutdown); an aborted attempt is not recorded. */
  signal?: AbortSignal;
  now(): number;
}

export class AttemptAborted extends Error {}

export async function sendDelivery(delivery: ClaimedDelivery, options: SendOptions): Promise<AttemptResult> {
  const startedAt = options.now();
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const finish = (partial: Pick<AttemptResult, "statusCode" | "error" | "responseExcerpt">): AttemptResult => ({
    startedAt,
    latencyMs: performance.now() - started,
    ...partial,
  });
  // One timer, cleared when the attempt ends: AbortSignal.timeout's would stay armed for the full
  // time limit after a quick answer and fire for nothing, thousands a second under a backlog.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const shutdown = () => controller.abort();
  if (options.signal?.aborted) controller.abort();
  else options.signal?.addEventListener("abort", shutdown, { once: true });
  const signal = controller.signal;
  let destination: Destination | null = null;
  try {
    // The guard runs at every attempt, on the address about to be connected to.
    destination = await resolveDestination(parseDestination(delivery.url, options.policy), options.policy);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": USER_AGENT,
      host: destination.host,
    };
    if (delivery.type !== DISCORD_MESSAGE && delivery.secret !== null) {
      Object.assign(headers, signatureHeaders(delivery.secret, delivery.id, Math.floor(options.now() / 1000), delivery.payload));
    }
    const response = await fetch(destination.connectUrl, {
      method: "POST",
      headers,
      body: delivery.payload,
      // A redirect is an answer other than 2xx (and could lead to a private address).
      redirect: "manual",
      signal,
      keepalive: true,
      tls: { serverName: destination.serverName },
    });
    // The status decided the attempt; a body that stalls past the time limit only loses its excerpt.
    const excerpt = await readExcerpt(response, EXCERPT_BYTES).catch(() => null);
    return finish({ statusCode: response.status, error: null, responseExcerpt: excerpt });
  } catch (error) {
    if (options.signal?.aborted) throw new AttemptAborted("aborted by shutdown");
    if (error instanceof RefusedDestination) return finish({ statusCode: null, error: `refused: ${error.reason}`, responseExcerpt: null });
    if (timedOut) return finish({ statusCode: null, error: `timed out after ${timeoutMs / 1000} s`, responseExcerpt: null });
    const message = error instanceof Error ? error.message : String(error);
    return finish({ statusCode: null, error: withoutAddress(message, destination).slice(0, 300), responseExcerpt: null });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", shutdown);
  }
}
