// `Idempotency-Key` on every keyed POST, PUT, PATCH and DELETE (the IETF httpapi draft's
// header). `requireKey` runs this for every keyed write once the caller is admitted, so no route
// can forget it: the first answer below 500 is kept 24 h per account and key and a repeat of the
// same request gets it again with `Idempotent-Replayed: true`, changing nothing. The record is
// written by the write's own transaction (src/db/idempotency.ts).
//
// A replay is metered like any admitted call: admission (and its count) comes before the lookup,
// and the daily quota counts every keyed request that passes authentication.
//
// An answer that issued a secret (an API key, a webhook signing secret, a sign-in link) is never
// kept: the database, its backups and exports hold only hashes of keys, links and sessions, and a
// signing secret only in its endpoint's row. A repeat of such a request is 409 `conflict` naming
// what was issued, never a second issue and never a 2xx whose secret field is a placeholder a
// client could store by mistake (see `shownOnce`).
import { t } from "elysia";
import { type IdempotencyStore, openRequestSlot, type PendingKey, type RequestSlot } from "../db/idempotency";
import { SECRET_PREFIX as WEBHOOK_SECRET_PREFIX } from "../modules/webhooks/signing";
import { yieldToRequests } from "../yield";
import { KEY_PATTERN } from "../modules/accounts/keys";
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
      // Marked as a replay: it is final, and a client (the SDK) must not retry it as it retries the
      // 409 of a repeat racing its first attempt.
      if (stored.contentType === SHOWN_ONCE) throw new ApiError(409, "conflict", stored.body ?? "", { "idempotent-replayed": "true" });
      throw new ReplayedAnswer(stored.status, stored.contentType ?? "application/json", stored.body ?? "");
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
    const issued = shownOnce(value);
    const json = typeof value !== "string";
    // Until the answer is stored, a repeat finds the record without one and gets 409 `conflict`;
    // a write that cannot get the lock at all leaves it that way, never a second write. The
    // caller may wait for it (PostgreSQL), so the answer goes out once a repeat would replay it.
    return this.store
      .saveAnswer(
        answering.pending,
        issued
          ? { status, contentType: SHOWN_ONCE, body: issued }
          : { status, contentType: json ? "application/json" : "text/plain; charset=utf-8", body: json ? JSON.stringify(value ?? null) : value },
      )
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
 * The content type of a kept record whose answer issued a secret: its body is the refusal a repeat
 * gets (see `shownOnce`), not the answer.
 */
const SHOWN_ONCE = "application/x-trustlist-secret-shown-once";

/** A webhook signing secret: the prefix, then base64 of 24 to 64 random bytes. */
const WEBHOOK_SECRET = new RegExp(`^${WEBHOOK_SECRET_PREFIX}[A-Za-z0-9+/]{32,}={0,2}$`);

/** A sign-in link's address (`/auth/magic?token=…`): the token opens a session until it is used. */
const SIGN_IN_LINK = /\/auth\/magic\?(?:[^#]*&)?token=/;

/**
 * When `value` (an answer about to be kept) carries a secret the product issues, the refusal its
 * repeat gets, naming what was issued and how to get a new secret; otherwise null. Every secret
 * is recognised by its own format wherever it sits in the answer, so a route cannot forget to
 * declare one: an API key (`tl_live_…`, created or rotated), a webhook signing secret (`whsec_…`,
 * created or rotated) and a sign-in link. A repeat must not issue a second secret (the first may
 * be in use), and a kept copy of the first would put it in every backup and export.
 */
export function shownOnce(value: unknown): string | null {
  const found = findSecret(value, 0);
  if (!found) return null;
  const answer = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  const id = typeof answer.id === "string" ? answer.id : null;
  const repeat = "This request issued a secret, which is shown only once: its answer is not kept, and a repeat issues nothing.";
  switch (found) {
    case "key":
      return `${repeat} It issued API key ${id ?? "(see GET /v1/admin/keys)"}; if the secret was lost, rotate the key (POST /v1/admin/keys/{id}/rotate) with a new Idempotency-Key.`;
    case "webhook":
      return `${repeat} It issued the signing secret of webhook ${id ?? "(see GET /v1/webhooks)"}; if the secret was lost, rotate it (POST /v1/webhooks/{id}/rotate-secret) with a new Idempotency-Key.`;
    case "link": {
      const handle = typeof answer.handle === "string" ? ` for ${answer.handle}` : "";
      return `${repeat} It issued a sign-in link${handle}; if the link was lost, ask for a new one with a new Idempotency-Key.`;
    }
  }
}

type SecretKind = "key" | "webhook" | "link";

/** The kind of the first secret found in `value`, searching nested objects and arrays. */
function findSecret(value: unknown, depth: number): SecretKind | null {
  if (typeof value === "string") {
    if (KEY_PATTERN.test(value)) return "key";
    if (WEBHOOK_SECRET.test(value)) return "webhook";
    if (SIGN_IN_LINK.test(value)) return "link";
    return null;
  }
  // Answers are a few levels deep; the bound only keeps a pathological value from recursing far.
  if (typeof value !== "object" || value === null || depth > 8) return null;
  for (const member of Array.isArray(value) ? value : Object.values(value)) {
    const found = findSecret(member, depth + 1);
    if (found) return found;
  }
  return null;
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
        "Makes a retry safe: the first answer (status below 500) is kept 24 h for your account and this key, and a repeat with the same method, path and body gets it again with `Idempotent-Replayed: true`, changing nothing. An answer that issued a secret (an API key, a webhook signing secret, a sign-in link) is shown once and not kept: its repeat is 409 `conflict`, issuing nothing. The same key with another request is 422 `idempotency_key_reused`; a repeat while the first is still being answered is 409 `conflict`. 1-255 printable ASCII characters, such as a UUID.",
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
