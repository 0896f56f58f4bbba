// @trustlist/sdk: a typed client for the trustlist API. The types come from the server's own
// OpenAPI document (generated into `schema.d.ts` at build time); calls go through openapi-fetch and
// the retrying transport. This layer is written against paths and `paths[...]` types only, never
// component names or operationIds, so a change in how the document names its schemas does not
// break it.
import createClient, { type Client } from "openapi-fetch";
import { TrustlistError } from "./errors.js";
import type { paths } from "./schema.js";
import { retryingFetch, type RetryOptions } from "./transport.js";

export { TrustlistError, type TrustlistErrorCode } from "./errors.js";
export type { RetryOptions } from "./transport.js";
export type { paths } from "./schema.js";

type Method = "get" | "put" | "post" | "delete" | "patch";
type Operation<P extends keyof paths, M extends Method> = paths[P] extends Record<M, infer O> ? O : never;
type JsonContent<R> = R extends { content: { "application/json": infer J } } ? J : never;
type SuccessStatus = 200 | 201 | 202;

/** The query parameters of `M P`. */
export type QueryOf<P extends keyof paths, M extends Method = "get"> = Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** The JSON request body of `M P`. */
export type BodyOf<P extends keyof paths, M extends Method> = Operation<P, M> extends { requestBody?: infer B } ? JsonContent<NonNullable<B>> : never;
/** The JSON body of a successful (200/201/202) answer to `M P`. */
export type ResultOf<P extends keyof paths, M extends Method = "get"> = Operation<P, M> extends { responses: infer R }
  ? { [S in keyof R & SuccessStatus]: JsonContent<R[S]> }[keyof R & SuccessStatus]
  : never;

export type CheckQuery = QueryOf<"/v1/blacklist/check">;
export type CheckResult = ResultOf<"/v1/blacklist/check">;
export type BatchCheckAccount = BodyOf<"/v1/blacklist/check/batch", "post">["accounts"][number];
export type BatchCheckResult = ResultOf<"/v1/blacklist/check/batch", "post">;
export type EntriesQuery = QueryOf<"/v1/blacklist">;
export type EntriesPage = ResultOf<"/v1/blacklist">;
export type Entry = EntriesPage["data"][number];
export type ChangesQuery = QueryOf<"/v1/blacklist/changes">;
export type ChangesPage = ResultOf<"/v1/blacklist/changes">;
export type Change = ChangesPage["data"][number];
export type CreatorProfile = ResultOf<"/v1/users/{handle}">;
export type TrustBreakdown = ResultOf<"/v1/users/{handle}/trust">;
export type PublicSearchResult = ResultOf<"/v1/public/blacklist/check">;
export type PublicCheckHit = PublicSearchResult["platforms"][number];
export type PublicTrust = ResultOf<"/v1/public/trust/{handle}">;
export type NewEntry = BodyOf<"/v1/partner/blacklist", "post">;
export type CreatedEntry = ResultOf<"/v1/partner/blacklist", "post">;
export type CreatorUpdate = BodyOf<"/v1/partner/creators/{handle}", "put">;
export type NewWebhook = BodyOf<"/v1/webhooks", "post">;
export type WebhookRegistration = ResultOf<"/v1/webhooks", "post">;
export type WebhookEndpoint = ResultOf<"/v1/webhooks/{id}">;
export type WebhookUpdate = BodyOf<"/v1/webhooks/{id}", "patch">;
export type WebhookDeliveriesQuery = QueryOf<"/v1/webhooks/{id}/deliveries">;
export type WebhookDeliveriesPage = ResultOf<"/v1/webhooks/{id}/deliveries">;
export type WebhookDelivery = WebhookDeliveriesPage["data"][number];

export interface TrustlistOptions extends RetryOptions {
  /** The server, e.g. `https://trust.example.org` (no trailing path). */
  baseUrl: string;
  /** A `tl_live_…` key; omit it to call only the public (keyless) routes. */
  apiKey?: string;
  /** Time allowed for one attempt, in ms. Default 10000. */
  timeoutMs?: number;
  /** A fetch to send requests with (tests, proxies); defaults to the global fetch. */
  fetch?: (request: Request) => Promise<Response>;
  /** Extra headers sent on every call. */
  headers?: Record<string, string>;
}

export interface CallOptions {
  /** Cancels the call, retries and waits included. */
  signal?: AbortSignal;
  /** The key for a write; by default each call gets a fresh random one, kept across its retries. */
  idempotencyKey?: string;
}

/** The answer's body, or a TrustlistError carrying the envelope. */
async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw TrustlistError.fromResponse(response, error);
  return data as T;
}

function init(options: CallOptions = {}) {
  return {
    signal: options.signal,
    headers: options.idempotencyKey ? { "Idempotency-Key": options.idempotencyKey } : undefined,
  };
}

/** The items of every page from `query` on, following `next_cursor` while `has_more`. */
async function* walk<Q extends { cursor?: string }, I>(
  fetchPage: (query: Q) => Promise<{ data: I[]; next_cursor?: string | null; has_more: boolean }>,
  query: Q,
): AsyncGenerator<I> {
  let cursor = query.cursor;
  do {
    const page = await fetchPage({ ...query, cursor });
    yield* page.data;
    cursor = page.has_more && page.next_cursor ? page.next_cursor : undefined;
  } while (cursor);
}

export class Trustlist {
  /**
   * The typed openapi-fetch client for every route in the document, with retries, timeout and
   * idempotency keys applied: `await tl.api.GET("/v1/users/{handle}", {params: {path: {handle}}})`
   * answers `{data, error, response}` without throwing on an error status.
   */
  readonly api: Client<paths>;

  constructor(options: TrustlistOptions) {
    this.api = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
      headers: { ...options.headers, ...(options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {}) },
      fetch: retryingFetch(options),
    });
  }

  // Keyed reads.

  /** Whether one platform account is blacklisted: the most severe active hit, or a clean answer. */
  checkAccount(query: CheckQuery, options?: CallOptions): Promise<CheckResult> {
    return ok(this.api.GET("/v1/blacklist/check", { params: { query }, ...init(options) }));
  }

  /** Up to 50 accounts in one call (pro plans and partner keys), answered in input order. */
  batchCheck(accounts: BatchCheckAccount[], options?: CallOptions): Promise<BatchCheckResult> {
    return ok(this.api.POST("/v1/blacklist/check/batch", { body: { accounts }, ...init(options) }));
  }

  /** One page of confirmed active entries, oldest first; follow `next_cursor` or use `eachEntry`. */
  listEntries(query: EntriesQuery = {}, options?: CallOptions): Promise<EntriesPage> {
    return ok(this.api.GET("/v1/blacklist", { params: { query }, ...init(options) }));
  }

  /** Every entry the list holds from `query` on, page after page. */
  eachEntry(query: EntriesQuery = {}, options?: CallOptions): AsyncGenerator<Entry> {
    return walk((page) => this.listEntries(page, options), query);
  }

  getEntry(id: string, options?: CallOptions): Promise<ResultOf<"/v1/blacklist/entries/{id}">> {
    return ok(this.api.GET("/v1/blacklist/entries/{id}", { params: { path: { id } }, ...init(options) }));
  }

  /** One page of the change feed (added, overturned, expired); a mirror follows it with `eachChange`. */
  changes(query: ChangesQuery = {}, options?: CallOptions): Promise<ChangesPage> {
    return ok(this.api.GET("/v1/blacklist/changes", { params: { query }, ...init(options) }));
  }

  /** Every change from `query.cursor` on; a mirror keeps the last page's `next_cursor` to resume later. */
  eachChange(query: ChangesQuery = {}, options?: CallOptions): AsyncGenerator<Change> {
    return walk((page) => this.changes(page, options), query);
  }

  getUser(handle: string, options?: CallOptions): Promise<CreatorProfile> {
    return ok(this.api.GET("/v1/users/{handle}", { params: { path: { handle } }, ...init(options) }));
  }

  getTrust(handle: string, options?: CallOptions): Promise<TrustBreakdown> {
    return ok(this.api.GET("/v1/users/{handle}/trust", { params: { path: { handle } }, ...init(options) }));
  }

  getConnections(handle: string, options?: CallOptions): Promise<ResultOf<"/v1/users/{handle}/connections">> {
    return ok(this.api.GET("/v1/users/{handle}/connections", { params: { path: { handle } }, ...init(options) }));
  }

  /** The calling account's daily quota and what it has used. */
  usage(options?: CallOptions): Promise<ResultOf<"/v1/account/usage">> {
    return ok(this.api.GET("/v1/account/usage", init(options)));
  }

  // Webhooks (Pro plans and higher, any key scope): the calling account's endpoints only.

  /** Registers an endpoint; the answer carries its signing secret, shown this once. */
  createWebhook(webhook: NewWebhook, options?: CallOptions): Promise<WebhookRegistration> {
    return ok(this.api.POST("/v1/webhooks", { body: webhook, ...init(options) }));
  }

  listWebhooks(options?: CallOptions): Promise<ResultOf<"/v1/webhooks">> {
    return ok(this.api.GET("/v1/webhooks", init(options)));
  }

  /** One endpoint: whether it is enabled, and why not when it was disabled. */
  getWebhook(id: string, options?: CallOptions): Promise<WebhookEndpoint> {
    return ok(this.api.GET("/v1/webhooks/{id}", { params: { path: { id } }, ...init(options) }));
  }

  /** Changes its URL or events; `{enabled: true}` re-enables it after it was disabled. */
  updateWebhook(id: string, update: WebhookUpdate, options?: CallOptions): Promise<WebhookEndpoint> {
    return ok(this.api.PATCH("/v1/webhooks/{id}", { params: { path: { id } }, body: update, ...init(options) }));
  }

  /** Deletes it: its pending deliveries stop, its delivery history goes with it. */
  deleteWebhook(id: string, options?: CallOptions): Promise<ResultOf<"/v1/webhooks/{id}", "delete">> {
    return ok(this.api.DELETE("/v1/webhooks/{id}", { params: { path: { id } }, ...init(options) }));
  }

  /** A new signing secret, shown this once; every attempt from now on is signed with it. */
  rotateWebhookSecret(id: string, options?: CallOptions): Promise<WebhookRegistration> {
    return ok(this.api.POST("/v1/webhooks/{id}/rotate-secret", { params: { path: { id } }, ...init(options) }));
  }

  /** Queues a signed `webhook.test` delivery (202); follow it with `webhookDeliveries`. */
  testWebhook(id: string, options?: CallOptions): Promise<WebhookDelivery> {
    return ok(this.api.POST("/v1/webhooks/{id}/test", { params: { path: { id } }, ...init(options) }));
  }

  /** One page of an endpoint's deliveries, newest first, each with its attempts. */
  webhookDeliveries(id: string, query: WebhookDeliveriesQuery = {}, options?: CallOptions): Promise<WebhookDeliveriesPage> {
    return ok(this.api.GET("/v1/webhooks/{id}/deliveries", { params: { path: { id }, query }, ...init(options) }));
  }

  /** Every delivery of an endpoint from `query` on, page after page. */
  eachWebhookDelivery(id: string, query: WebhookDeliveriesQuery = {}, options?: CallOptions): AsyncGenerator<WebhookDelivery> {
    return walk((page) => this.webhookDeliveries(id, page, options), query);
  }

  // Public reads (no key needed).

  /** Search by handle, platform username or id (Roblox, Epic, Minecraft, Discord…); one hit per platform account. */
  searchPublic(q: string, options?: CallOptions): Promise<PublicSearchResult> {
    return ok(this.api.GET("/v1/public/blacklist/check", { params: { query: { q } }, ...init(options) }));
  }

  publicTrust(handle: string, options?: CallOptions): Promise<PublicTrust> {
    return ok(this.api.GET("/v1/public/trust/{handle}", { params: { path: { handle } }, ...init(options) }));
  }

  resolve(query: QueryOf<"/v1/public/resolve">, options?: CallOptions): Promise<ResultOf<"/v1/public/resolve">> {
    return ok(this.api.GET("/v1/public/resolve", { params: { query }, ...init(options) }));
  }

  directory(query: QueryOf<"/v1/public/directory"> = {}, options?: CallOptions): Promise<ResultOf<"/v1/public/directory">> {
    return ok(this.api.GET("/v1/public/directory", { params: { query }, ...init(options) }));
  }

  publicStats(options?: CallOptions): Promise<ResultOf<"/v1/stats/public">> {
    return ok(this.api.GET("/v1/stats/public", init(options)));
  }

  // Partner writes (write- or admin-scoped keys). Each call carries an Idempotency-Key.

  addEntry(entry: NewEntry, options?: CallOptions): Promise<CreatedEntry> {
    return ok(this.api.POST("/v1/partner/blacklist", { body: entry, ...init(options) }));
  }

  overturnEntry(id: string, body: BodyOf<"/v1/partner/blacklist/{id}/overturn", "post"> = {}, options?: CallOptions): Promise<ResultOf<"/v1/partner/blacklist/{id}/overturn", "post">> {
    return ok(this.api.POST("/v1/partner/blacklist/{id}/overturn", { params: { path: { id } }, body, ...init(options) }));
  }

  upsertCreator(handle: string, creator: CreatorUpdate, options?: CallOptions): Promise<ResultOf<"/v1/partner/creators/{handle}", "put">> {
    return ok(this.api.PUT("/v1/partner/creators/{handle}", { params: { path: { handle } }, body: creator, ...init(options) }));
  }

  addConnection(handle: string, connection: BodyOf<"/v1/partner/creators/{handle}/connections", "post">, options?: CallOptions): Promise<ResultOf<"/v1/partner/creators/{handle}/connections", "post">> {
    return ok(this.api.POST("/v1/partner/creators/{handle}/connections", { params: { path: { handle } }, body: connection, ...init(options) }));
  }

  addVouch(vouch: BodyOf<"/v1/partner/vouches", "post">, options?: CallOptions): Promise<ResultOf<"/v1/partner/vouches", "post">> {
    return ok(this.api.POST("/v1/partner/vouches", { body: vouch, ...init(options) }));
  }

  createDeal(deal: BodyOf<"/v1/partner/deals", "post">, options?: CallOptions): Promise<ResultOf<"/v1/partner/deals", "post">> {
    return ok(this.api.POST("/v1/partner/deals", { body: deal, ...init(options) }));
  }

  addReview(review: BodyOf<"/v1/partner/reviews", "post">, options?: CallOptions): Promise<ResultOf<"/v1/partner/reviews", "post">> {
    return ok(this.api.POST("/v1/partner/reviews", { body: review, ...init(options) }));
  }

  addReferral(referral: BodyOf<"/v1/partner/referrals", "post">, options?: CallOptions): Promise<ResultOf<"/v1/partner/referrals", "post">> {
    return ok(this.api.POST("/v1/partner/referrals", { body: referral, ...init(options) }));
  }
}

/** A client for one trustlist server: `createTrustlist({baseUrl, apiKey})`. */
export function createTrustlist(options: TrustlistOptions): Trustlist {
  return new Trustlist(options);
}
