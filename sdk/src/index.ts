// @trustlist/sdk: a typed client for the trustlist API. The types come from the server's own
// OpenAPI document (generated into `schema.d.ts` at build time): its paths type the calls, its
// `webhooks` section types the events. Calls go through openapi-fetch and the retrying transport.
// This layer is written against paths and `paths[...]` types only, never component names or
// operationIds, so a change in how the document names its schemas does not break it.
import * as openapiFetch from "openapi-fetch";
import type { Client } from "openapi-fetch";
import { metaOf, type ResponseMeta, TrustlistError } from "./errors.js";
import { followChanges, type FollowOptions } from "./follow.js";
import type { paths } from "./schema.js";
import { attemptsOf, retryingFetch, type RetryOptions } from "./transport.js";
import { type HeadersLike, type SubscribableEvent, type WebhookEvent, verifyWebhook, type VerifyOptions } from "./webhooks.js";

export {
  ConflictError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  QuotaExceededError,
  RateLimitedError,
  type ResponseMeta,
  TimeoutError,
  TrustlistError,
  type TrustlistErrorCode,
  UnauthorizedError,
  ValidationError,
} from "./errors.js";
export type { FollowOptions } from "./follow.js";
export type { RetryOptions } from "./transport.js";
export {
  type HeadersLike,
  type SubscribableEvent,
  type VerifyOptions,
  type WebhookEvent,
  type WebhookEventType,
  WebhookVerificationError,
  verifyWebhook,
  webhookVerifier,
} from "./webhooks.js";
export type { paths, webhooks } from "./schema.js";

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
/** A vertical (`all`, `roblox`, `uefn`, `minecraft`): which vertical-scoped entries count. */
export type Vertical = NonNullable<CheckQuery["vertical"]>;
export type BatchCheckAccount = BodyOf<"/v1/blacklist/check/batch", "post">["accounts"][number];
export type BatchCheckResult = ResultOf<"/v1/blacklist/check/batch", "post">;
export type EntriesQuery = QueryOf<"/v1/blacklist">;
export type EntriesPage = ResultOf<"/v1/blacklist">;
export type Entry = EntriesPage["data"][number];
export type ChangesQuery = QueryOf<"/v1/blacklist/changes">;
export type ChangesPage = ResultOf<"/v1/blacklist/changes">;
export type Change = ChangesPage["data"][number];
/** One followed change and the cursor to store once it is handled. */
export type FollowedChange = { change: Change; cursor: string | undefined };
export type CreatorProfile = ResultOf<"/v1/users/{handle}">;
export type TrustBreakdown = ResultOf<"/v1/users/{handle}/trust">;
export type PublicSearchResult = ResultOf<"/v1/public/blacklist/check">;
export type PublicCheckHit = PublicSearchResult["platforms"][number];
export type PublicTrust = ResultOf<"/v1/public/trust/{handle}">;
export type NewEntry = BodyOf<"/v1/partner/blacklist", "post">;
export type CreatedEntry = ResultOf<"/v1/partner/blacklist", "post">;
export type CreatorUpdate = BodyOf<"/v1/partner/creators/{handle}", "put">;
/** An endpoint to register; `events` are the names the document's `webhooks` section lists. */
export type NewWebhook = BodyOf<"/v1/webhooks", "post"> & { events: SubscribableEvent[] };
export type WebhookRegistration = ResultOf<"/v1/webhooks", "post">;
export type WebhookEndpoint = ResultOf<"/v1/webhooks/{id}">;
export type WebhookUpdate = BodyOf<"/v1/webhooks/{id}", "patch"> & { events?: SubscribableEvent[] };
export type WebhookDeliveriesQuery = QueryOf<"/v1/webhooks/{id}/deliveries">;
export type WebhookDeliveriesPage = ResultOf<"/v1/webhooks/{id}/deliveries">;
export type WebhookDelivery = WebhookDeliveriesPage["data"][number];

export type NewAppeal = BodyOf<"/v1/partner/appeals", "post">;
export type CreatedAppeal = ResultOf<"/v1/partner/appeals", "post">;
export type Appeal = ResultOf<"/v1/partner/appeals/{id}">;

export interface TrustlistOptions extends RetryOptions {
  /** The server, e.g. `https://trust.example.org` (no trailing path). */
  baseUrl: string;
  /** A `tl_live_…` key; omit it to call only the public (keyless) routes. */
  apiKey?: string;
  /** A fetch to send requests with (tests, proxies); defaults to the global fetch. */
  fetch?: (request: Request) => Promise<Response>;
  /** Extra headers sent on every call. */
  headers?: Record<string, string>;
  /** Your endpoint's signing secret(s) `whsec_…`, for `tl.webhooks.verify`; several while a rotation overlaps. */
  webhookSecret?: string | readonly string[];
  /** Called with every answer's metadata (rate-limit headers, request id, attempts), errors included. */
  onResponse?: (meta: ResponseMeta) => void;
}

export interface CallOptions extends Pick<RetryOptions, "attempts" | "timeoutMs" | "deadlineMs"> {
  /** Cancels the call, retries and waits included. */
  signal?: AbortSignal;
  /** The key for a write; by default each call gets a fresh random one, kept across its retries. */
  idempotencyKey?: string;
}

export interface BatchCheckOptions extends CallOptions {
  /** Which vertical-scoped entries count, as in `checkAccount`; default `all`. */
  vertical?: Vertical;
}

// openapi-fetch's one export is its default. Loaded with `require`, Node hands the CommonJS bundle
// the whole `exports` object as that default (Node's rule for CommonJS modules), and the function
// sits one level down.
const createClient: typeof openapiFetch.default =
  typeof openapiFetch.default === "function" ? openapiFetch.default : (openapiFetch.default as unknown as { default: typeof openapiFetch.default }).default;

const metas = new WeakMap<object, ResponseMeta>();

/**
 * What the answer a result came from said about itself: status, `X-Request-Id`, the
 * `X-RateLimit-*` headers, `Retry-After`, whether a write was replayed, attempts taken. Null for
 * values that did not come from a call (or are not objects).
 */
export function responseMeta(result: unknown): ResponseMeta | null {
  return (typeof result === "object" && result !== null && metas.get(result)) || null;
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
  /** `tl.webhooks.verify(rawBody, headers)`: a delivery's typed event, once its signature checks out under `webhookSecret`. */
  readonly webhooks: { verify(rawBody: string | Uint8Array | ArrayBuffer, headers: HeadersLike, options?: VerifyOptions): Promise<WebhookEvent> };
  private readonly options: TrustlistOptions;
  private readonly send: (request: Request) => Promise<Response>;

  constructor(options: TrustlistOptions) {
    this.options = options;
    this.send = retryingFetch(options);
    this.api = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
      headers: { ...options.headers, ...(options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {}) },
      fetch: this.send,
    });
    this.webhooks = {
      verify: (rawBody, headers, verifyOptions) => {
        if (!options.webhookSecret) throw new Error("createTrustlist({webhookSecret}) is needed to verify deliveries.");
        return verifyWebhook(rawBody, headers, options.webhookSecret, verifyOptions);
      },
    };
  }

  /** The answer's body (its metadata kept for `responseMeta`), or the TrustlistError subclass its status calls for. */
  private async ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
    const { data, error, response } = await call;
    const meta = metaOf(response, attemptsOf(response));
    this.options.onResponse?.(meta);
    if (!response.ok) throw TrustlistError.fromResponse(response, error, meta);
    if (typeof data === "object" && data !== null) metas.set(data, meta);
    return data as T;
  }

  /** The request options of one call: its signal, its idempotency key, and its own retry settings when it has any. */
  private init(options: CallOptions = {}) {
    const { attempts, timeoutMs, deadlineMs } = options;
    const own = attempts !== undefined || timeoutMs !== undefined || deadlineMs !== undefined;
    return {
      signal: options.signal,
      headers: options.idempotencyKey ? { "Idempotency-Key": options.idempotencyKey } : undefined,
      fetch: own ? retryingFetch({ ...this.options, ...definedOnly({ attempts, timeoutMs, deadlineMs }) }) : this.send,
    };
  }

  // Keyed reads.

  /** Whether one platform account is blacklisted: the most severe active hit, or a clean answer. */
  checkAccount(query: CheckQuery, options?: CallOptions): Promise<CheckResult> {
    return this.ok(this.api.GET("/v1/blacklist/check", { params: { query }, ...this.init(options) }));
  }

  /**
   * Up to 50 accounts in one call (pro plans and partner keys), answered in input order;
   * `{vertical}` counts vertical-scoped entries as `checkAccount` does.
   */
  batchCheck(accounts: BatchCheckAccount[], options: BatchCheckOptions = {}): Promise<BatchCheckResult> {
    const { vertical, ...call } = options;
    return this.ok(this.api.POST("/v1/blacklist/check/batch", { body: { accounts, ...(vertical ? { vertical } : {}) }, ...this.init(call) }));
  }

  /** One page of confirmed active entries, oldest first; follow `next_cursor` or use `eachEntry`. */
  listEntries(query: EntriesQuery = {}, options?: CallOptions): Promise<EntriesPage> {
    return this.ok(this.api.GET("/v1/blacklist", { params: { query }, ...this.init(options) }));
  }

  /** Every entry the list holds from `query` on, page after page. */
  eachEntry(query: EntriesQuery = {}, options?: CallOptions): AsyncGenerator<Entry> {
    return walk((page) => this.listEntries(page, options), query);
  }

  getEntry(id: string, options?: CallOptions): Promise<ResultOf<"/v1/blacklist/entries/{id}">> {
    return this.ok(this.api.GET("/v1/blacklist/entries/{id}", { params: { path: { id } }, ...this.init(options) }));
  }

  /** One page of the change feed (added, overturned, expired); a mirror follows it with `eachChange`. */
  changes(query: ChangesQuery = {}, options?: CallOptions): Promise<ChangesPage> {
    return this.ok(this.api.GET("/v1/blacklist/changes", { params: { query }, ...this.init(options) }));
  }

  /** Every change from `query.cursor` up to now, then it ends; to keep following use `followChanges`. */
  eachChange(query: ChangesQuery = {}, options?: CallOptions): AsyncGenerator<Change> {
    return walk((page) => this.changes(page, options), query);
  }

  /**
   * Every change from `cursor` on, and then each new one as it comes, until `signal` aborts (the
   * loop then ends without an error) or the loop is left. Each change comes with the `cursor` to
   * store: resuming from it repeats no change before this one (a change may come again; its `seq`
   * tells). An outage is waited out; a refused key or a bad cursor ends it with the error.
   */
  followChanges(options: FollowOptions = {}): AsyncGenerator<FollowedChange> {
    return followChanges((query, call) => this.changes(query, call), options);
  }

  getUser(handle: string, options?: CallOptions): Promise<CreatorProfile> {
    return this.ok(this.api.GET("/v1/users/{handle}", { params: { path: { handle } }, ...this.init(options) }));
  }

  getTrust(handle: string, options?: CallOptions): Promise<TrustBreakdown> {
    return this.ok(this.api.GET("/v1/users/{handle}/trust", { params: { path: { handle } }, ...this.init(options) }));
  }

  getConnections(handle: string, options?: CallOptions): Promise<ResultOf<"/v1/users/{handle}/connections">> {
    return this.ok(this.api.GET("/v1/users/{handle}/connections", { params: { path: { handle } }, ...this.init(options) }));
  }

  /** The calling account's daily quota and what it has used. */
  usage(options?: CallOptions): Promise<ResultOf<"/v1/account/usage">> {
    return this.ok(this.api.GET("/v1/account/usage", this.init(options)));
  }

  // Webhooks (Pro plans and higher, any key scope): the calling account's endpoints only.

  /** Registers an endpoint; the answer carries its signing secret, shown this once. */
  createWebhook(webhook: NewWebhook, options?: CallOptions): Promise<WebhookRegistration> {
    return this.ok(this.api.POST("/v1/webhooks", { body: webhook, ...this.init(options) }));
  }

  listWebhooks(options?: CallOptions): Promise<ResultOf<"/v1/webhooks">> {
    return this.ok(this.api.GET("/v1/webhooks", this.init(options)));
  }

  /** One endpoint: whether it is enabled, and why not when it was disabled. */
  getWebhook(id: string, options?: CallOptions): Promise<WebhookEndpoint> {
    return this.ok(this.api.GET("/v1/webhooks/{id}", { params: { path: { id } }, ...this.init(options) }));
  }

  /** Changes its URL or events; `{enabled: true}` re-enables it after it was disabled. */
  updateWebhook(id: string, update: WebhookUpdate, options?: CallOptions): Promise<WebhookEndpoint> {
    return this.ok(this.api.PATCH("/v1/webhooks/{id}", { params: { path: { id } }, body: update, ...this.init(options) }));
  }

  /** Deletes it: its pending deliveries stop, its delivery history goes with it. */
  deleteWebhook(id: string, options?: CallOptions): Promise<ResultOf<"/v1/webhooks/{id}", "delete">> {
    return this.ok(this.api.DELETE("/v1/webhooks/{id}", { params: { path: { id } }, ...this.init(options) }));
  }

  /** A new signing secret, shown this once; every attempt from now on is signed with it. */
  rotateWebhookSecret(id: string, options?: CallOptions): Promise<WebhookRegistration> {
    return this.ok(this.api.POST("/v1/webhooks/{id}/rotate-secret", { params: { path: { id } }, ...this.init(options) }));
  }

  /** Queues a signed `webhook.test` delivery (202); follow it with `webhookDeliveries`. */
  testWebhook(id: string, options?: CallOptions): Promise<WebhookDelivery> {
    return this.ok(this.api.POST("/v1/webhooks/{id}/test", { params: { path: { id } }, ...this.init(options) }));
  }

  /** One page of an endpoint's deliveries, newest first, each with its attempts. */
  webhookDeliveries(id: string, query: WebhookDeliveriesQuery = {}, options?: CallOptions): Promise<WebhookDeliveriesPage> {
    return this.ok(this.api.GET("/v1/webhooks/{id}/deliveries", { params: { path: { id }, query }, ...this.init(options) }));
  }

  /** Every delivery of an endpoint from `query` on, page after page. */
  eachWebhookDelivery(id: string, query: WebhookDeliveriesQuery = {}, options?: CallOptions): AsyncGenerator<WebhookDelivery> {
    return walk((page) => this.webhookDeliveries(id, page, options), query);
  }

  // Public reads (no key needed).

  /** Search by handle, platform username or id (Roblox, Epic, Minecraft, Discord…); one hit per platform account. */
  searchPublic(q: string, options?: CallOptions): Promise<PublicSearchResult> {
    return this.ok(this.api.GET("/v1/public/blacklist/check", { params: { query: { q } }, ...this.init(options) }));
  }

  publicTrust(handle: string, options?: CallOptions): Promise<PublicTrust> {
    return this.ok(this.api.GET("/v1/public/trust/{handle}", { params: { path: { handle } }, ...this.init(options) }));
  }

  resolve(query: QueryOf<"/v1/public/resolve">, options?: CallOptions): Promise<ResultOf<"/v1/public/resolve">> {
    return this.ok(this.api.GET("/v1/public/resolve", { params: { query }, ...this.init(options) }));
  }

  directory(query: QueryOf<"/v1/public/directory"> = {}, options?: CallOptions): Promise<ResultOf<"/v1/public/directory">> {
    return this.ok(this.api.GET("/v1/public/directory", { params: { query }, ...this.init(options) }));
  }

  publicStats(options?: CallOptions): Promise<ResultOf<"/v1/stats/public">> {
    return this.ok(this.api.GET("/v1/stats/public", this.init(options)));
  }

  // Partner writes (write- or admin-scoped keys). Each call carries an Idempotency-Key.

  addEntry(entry: NewEntry, options?: CallOptions): Promise<CreatedEntry> {
    return this.ok(this.api.POST("/v1/partner/blacklist", { body: entry, ...this.init(options) }));
  }

  overturnEntry(id: string, body: BodyOf<"/v1/partner/blacklist/{id}/overturn", "post"> = {}, options?: CallOptions): Promise<ResultOf<"/v1/partner/blacklist/{id}/overturn", "post">> {
    return this.ok(this.api.POST("/v1/partner/blacklist/{id}/overturn", { params: { path: { id } }, body, ...this.init(options) }));
  }

  upsertCreator(handle: string, creator: CreatorUpdate, options?: CallOptions): Promise<ResultOf<"/v1/partner/creators/{handle}", "put">> {
    return this.ok(this.api.PUT("/v1/partner/creators/{handle}", { params: { path: { handle } }, body: creator, ...this.init(options) }));
  }

  addConnection(handle: string, connection: BodyOf<"/v1/partner/creators/{handle}/connections", "post">, options?: CallOptions): Promise<ResultOf<"/v1/partner/creators/{handle}/connections", "post">> {
    return this.ok(this.api.POST("/v1/partner/creators/{handle}/connections", { params: { path: { handle } }, body: connection, ...this.init(options) }));
  }

  addVouch(vouch: BodyOf<"/v1/partner/vouches", "post">, options?: CallOptions): Promise<ResultOf<"/v1/partner/vouches", "post">> {
    return this.ok(this.api.POST("/v1/partner/vouches", { body: vouch, ...this.init(options) }));
  }

  createDeal(deal: BodyOf<"/v1/partner/deals", "post">, options?: CallOptions): Promise<ResultOf<"/v1/partner/deals", "post">> {
    return this.ok(this.api.POST("/v1/partner/deals", { body: deal, ...this.init(options) }));
  }

  getDeal(id: string, options?: CallOptions): Promise<ResultOf<"/v1/partner/deals/{id}">> {
    return this.ok(this.api.GET("/v1/partner/deals/{id}", { params: { path: { id } }, ...this.init(options) }));
  }

  /** pending → confirmed (`deal.confirmed`). */
  confirmDeal(id: string, options?: CallOptions): Promise<ResultOf<"/v1/partner/deals/{id}/confirm", "post">> {
    return this.ok(this.api.POST("/v1/partner/deals/{id}/confirm", { params: { path: { id } }, ...this.init(options) }));
  }

  /** pending → declined (`deal.declined`). */
  declineDeal(id: string, options?: CallOptions): Promise<ResultOf<"/v1/partner/deals/{id}/decline", "post">> {
    return this.ok(this.api.POST("/v1/partner/deals/{id}/decline", { params: { path: { id } }, ...this.init(options) }));
  }

  /** confirmed → completed: counts for both creators' Trust Scores, and opens one review each. */
  completeDeal(id: string, options?: CallOptions): Promise<ResultOf<"/v1/partner/deals/{id}/complete", "post">> {
    return this.ok(this.api.POST("/v1/partner/deals/{id}/complete", { params: { path: { id } }, ...this.init(options) }));
  }

  addReview(review: BodyOf<"/v1/partner/reviews", "post">, options?: CallOptions): Promise<ResultOf<"/v1/partner/reviews", "post">> {
    return this.ok(this.api.POST("/v1/partner/reviews", { body: review, ...this.init(options) }));
  }

  /**
   * An appeal by the subject of an entry (write-scoped key): 201 `{id, status: "open"}`; 409
   * ConflictError when the entry is not appealable, not active or already under appeal; 429 while
   * the cooldown after a decided appeal runs.
   */
  createAppeal(appeal: NewAppeal, options?: CallOptions): Promise<CreatedAppeal> {
    return this.ok(this.api.POST("/v1/partner/appeals", { body: appeal, ...this.init(options) }));
  }

  /** One appeal: open, or decided with its outcome. */
  getAppeal(id: string, options?: CallOptions): Promise<Appeal> {
    return this.ok(this.api.GET("/v1/partner/appeals/{id}", { params: { path: { id } }, ...this.init(options) }));
  }

  addReferral(referral: BodyOf<"/v1/partner/referrals", "post">, options?: CallOptions): Promise<ResultOf<"/v1/partner/referrals", "post">> {
    return this.ok(this.api.POST("/v1/partner/referrals", { body: referral, ...this.init(options) }));
  }
}

/** The defined fields of `object`, so an override that is undefined keeps the client's value. */
function definedOnly<T extends object>(object: T): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** A client for one trustlist server: `createTrustlist({baseUrl, apiKey})`. */
export function createTrustlist(options: TrustlistOptions): Trustlist {
  return new Trustlist(options);
}
