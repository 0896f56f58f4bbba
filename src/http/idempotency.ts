// `Idempotency-Key` on every keyed POST, PUT, PATCH and DELETE (SPEC section 2, IETF httpapi
// draft). `requireKey` runs this for every keyed write once the caller is admitted, so no route
// can forget it: the first answer below 500 is kept 24 h per account and key and a repeat of the
// same request gets it again with `Idempotent-Replayed: true`, changing nothing. The record is
// written by the write's own transaction (src/db/idempotency.ts).
//
// A replay is metered like any admitted call: admission (and its count) comes before the lookup,
// and SPEC section 3 counts every keyed request that passes auth.
import { t } from "elysia";
import { type IdempotencyStore, openRequestSlot, type PendingKey, type RequestSlot } from "../db/idempotency";
import { yieldToRequests } from "../yield";
import { pathOf } from "./conventions";
import { ApiError, ReplayedAnswer } from "./errors";

export const IDEMPOTENT_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
export const IDEMPOTENCY_KEPT_MS = 24 * 60 * 60 * 1000;
const KEY = /^[\x20-\x7e]{1,255}$/;

interface Answering {
  slot: RequestSlot;
  pending: PendingKey;
  inFlight: string;
}

export class IdempotencyGate {
  /** Keys being answered by this process: a concurrent repeat is 409 at once. */
  private readonly inFlight = new Set<string>();
  private readonly answering = new WeakMap<Request, Answering>();

  constructor(private readonly store: IdempotencyStore) {}

  /**
   * First step, synchronous, for every keyed write: gives the request its own slot for the
   * write path and returns the key it carries (null without one). 422 for a malformed key.
   * A caller that must await before it checks the key opens the slot first (`openRequestSlot`).
   */
  enter(request: Request, slot: RequestSlot = openRequestSlot()): { key: string; slot: RequestSlot } | null {
    const key = request.headers.get("idempotency-key");
    if (key === null) return null;
    if (!KEY.test(key)) {
      throw new ApiError(422, "unprocessable", "Idempotency-Key must be 1-255 printable ASCII characters.");
    }
    return { key, slot };
  }

  /**
   * Second step, once the body is known: throws the stored answer for a repeat, 422
   * `idempotency_key_reused` for another request under the same key, 409 while the first is
   * still being answered; otherwise the request goes on, holding the key.
   */
  async begin(request: Request, accountId: string, entered: { key: string; slot: RequestSlot }, body: string): Promise<void> {
    const url = request.url;
    const query = url.indexOf("?");
    const target = pathOf(url) + (query < 0 ? "" : url.slice(query));
    const fingerprint = new Bun.CryptoHasher("sha256").update(`${request.method} ${target}\n`).update(body).digest("hex");
    const inFlight = `${accountId}\n${entered.key}`;
    if (this.inFlight.has(inFlight)) throw stillAnswering();
    // Held from here, so a repeat arriving while the record is read is 409 too.
    this.inFlight.add(inFlight);
    try {
      await this.checkStored(accountId, entered.key, fingerprint);
    } catch (error) {
      this.inFlight.delete(inFlight);
      throw error;
    }
    const pending: PendingKey = { store: this.store, accountId, key: entered.key, fingerprint, claim: crypto.randomUUID() };
    entered.slot.pending = pending;
    this.answering.set(request, { slot: entered.slot, pending, inFlight });
  }

  /** Throws the stored answer of a repeat, or the refusal of a reused or unanswered key. */
  private async checkStored(accountId: string, key: string, fingerprint: string): Promise<void> {
    const stored = await this.store.find(accountId, key);
    if (stored) {
      if (stored.fingerprint !== fingerprint) {
        throw new ApiError(
          422,
          "idempotency_key_reused",
          "This Idempotency-Key was used in the last 24 h for another method, path or body; send a new key with a new request.",
        );
      }
      // Recorded by the write's transaction but with no answer: another process is still
      // answering, or the write committed and its answer was lost (a stop or a 5xx right after).
      if (stored.status === null) {
        throw new ApiError(
          409,
          "conflict",
          "A request with this Idempotency-Key has changed data, and its answer is not available (it is still being answered, or it was lost); it will not be carried out again. Read the result instead of retrying.",
        );
      }
      throw new ReplayedAnswer(stored.status, stored.content_type ?? "application/json", stored.body ?? "");
    }
  }

  /** Last step, with the answer as sent: keeps it when its status is below 500. */
  settle(request: Request, status: number, value: unknown): Promise<void> | void {
    const answering = this.answering.get(request);
    if (!answering) return;
    this.answering.delete(request);
    this.inFlight.delete(answering.inFlight);
    // From here on the request's writes (there should be none) are its own again.
    answering.slot.pending = undefined;
    if (status >= 500 || value instanceof Response) return;
    const json = typeof value !== "string";
    // Until the answer is stored, a repeat finds the record without one and gets 409 `conflict`;
    // a write that cannot get the lock at all leaves it that way, never a second write. The
    // caller may wait for it (PostgreSQL), so the answer goes out once a repeat would replay it.
    return this.store
      .saveAnswer(answering.pending, {
        status,
        contentType: json ? "application/json" : "text/plain; charset=utf-8",
        body: json ? JSON.stringify(value ?? null, withoutSecrets) : value,
      })
      .catch(() => {});
  }

  /** Deletes records older than 24 h, in slices that give way to requests; run by cron. */
  async prune(slice = 1000): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.store.pruneSlice(slice);
      total += deleted;
      if (deleted < slice) return total;
      await yieldToRequests();
    }
  }
}

/**
 * A secret in a body: an API key (shown once, stored only as a hash, SPEC section 3) or a webhook
 * signing secret (shown once at creation or rotation).
 */
const SECRET = /^(tl_live_[A-Za-z0-9]{32}|whsec_[A-Za-z0-9+/]{32,}={0,2})$/;

/**
 * Kept answers never hold a secret: a replay of an answer that issued a key or a webhook secret
 * shows its prefix only, as `keys list` does. A client whose first answer was lost rotates it.
 */
function withoutSecrets(_name: string, value: unknown): unknown {
  return typeof value === "string" && SECRET.test(value) ? `${value.slice(0, 12)}…` : value;
}

const stillAnswering = () =>
  new ApiError(409, "conflict", "A request with this Idempotency-Key is still being answered; retry once it has finished.");

/** The request header, as OpenAPI shows it on every keyed write. */
export const IdempotencyKeyHeader = t.Object({
  "idempotency-key": t.Optional(
    t.String({
      minLength: 1,
      maxLength: 255,
      description:
        "Makes a retry safe: the first answer (status below 500) is kept 24 h for your account and this key, and a repeat with the same method, path and body gets it again with `Idempotent-Replayed: true`, changing nothing. The same key with another request is 422 `idempotency_key_reused`; a repeat while the first is still being answered is 409 `conflict`. 1-255 printable ASCII characters, such as a UUID.",
      examples: ["8e03978e-40d5-43e8-bc93-6894a57f9324"],
    }),
  ),
});

/** OpenAPI references giving every keyed write the header parameter above. */
export function idempotencyHeaderReferences(routes: ReadonlyArray<{ method: string; path: string }>, isKeyed: (path: string) => boolean) {
  const references: Record<string, Record<string, { headers: typeof IdempotencyKeyHeader }>> = {};
  for (const route of routes) {
    if (!IDEMPOTENT_METHODS.has(route.method) || !isKeyed(route.path)) continue;
    (references[route.path] ??= {})[route.method.toLowerCase()] = { headers: IdempotencyKeyHeader };
  }
  return references;
}
