// Following a source: reading its signed feed from the stored cursor, verifying every item against
// the keys pinned for it, and applying what verifies one page at a time, each page in one
// transaction with its cursor, so a sync stopped anywhere (a crash, a restart) resumes where the
// last committed page ended, with nothing missing or applied twice. An item that fails
// verification is not applied, and neither is anything after it: the items before it are applied
// with a cursor read for exactly them, and `last_error` says where it stopped. An unknown key id
// makes the follower read the source's well-known document again and pin a new key only when a
// key it already trusts endorsed it.
import type { Clock } from "../../clock";
import { CHANGE_TYPES } from "../../domain";
import { yieldToRequests } from "../../yield";
import type { AuditLog } from "../audit/service";
import type { CryptoThreads } from "./crypto-threads";
import { type SourceApplier, sourceActor } from "./apply";
import type { FeedItem, WellKnown } from "./model";
import { normalizeAccountId } from "../blacklist/service";
import { malformedEntry } from "./policy";
import { endorsementText, verifyText } from "./signing";
import type { FederationStore, SourceRow } from "./store";

type Item = typeof FeedItem.static;
type Document = typeof WellKnown.static;
type FeedPage = { items: Item[]; next_cursor: string; has_more: boolean; text: string };
type Refusal = { index: number; seq: unknown; reason: string };
/** A page read, with its first refused item (null: none), or undefined when not verified yet. */
type Checked = { page: FeedPage; refusal: Refusal | null | undefined };

/**
 * Items read and applied per page, each page one transaction with its cursor: the first page's
 * size, and the bounds of the others. An item applied costs its entry's insert (with the search
 * index's names), feed row, event and audit event: 0.1-0.2 ms on SQLite on the 2-core bench
 * machine, several times that while other work competes for its cores. Larger transactions cost
 * less per item (each commit writes the index pages it touched: 75 us a row at 250 rows, 49 at
 * 5,000, inserting the bench data's entries alone), but a request waits behind one: with pages
 * sized to 50 ms, the follower's worst check took 129 ms while the machine was busy, against 46 ms
 * at 25 ms. So each page after the first is sized from how long the last one's items took, to keep
 * a transaction near APPLY_TARGET_MS: well under the 100 ms a request may wait behind a job even
 * when the machine slows down meanwhile. Pages land at about twice the aim (sized from an estimate
 * two pages old): aimed at 25 ms, the follower's checks during a first sync of 291k entries had a
 * p99 of 63-64 ms and a worst of 93-104 ms; aimed at 12 ms, 29-31 and 44-48 ms, for a sync 15-25 %
 * longer. Where a transaction waits on the network instead
 * (PostgreSQL), requests go on during it and every page is MAX_PAGE_ITEMS: sized to 25 ms there,
 * a busy server's pages fell to 20 items and a follower's first sync of 19.4k entries took 19-21 s
 * in round trips, against 8 s when its pages stayed near 250.
 */
export const SYNC_PAGE_ITEMS = 250;
const MIN_PAGE_ITEMS = 20;
const MAX_PAGE_ITEMS = 500;
const APPLY_TARGET_MS = 12;
/** Pages read and verified ahead of the one applied: one for each verifying thread. */
const READ_AHEAD = 2;
const FETCH_TIMEOUT_MS = 15_000;

export interface SyncOutcome {
  name: string;
  applied: number;
  cursor: string | null;
  has_more: boolean;
  error: string | null;
  /** The sync goes on after the answer (only when the caller stopped waiting). */
  running: boolean;
}

/** A source could not be read or answered something this instance cannot follow. */
class SourceError extends Error {}

/** Reads a source's JSON over HTTP, with its key; a SourceError for anything but a 200 with JSON. */
export async function readJson(url: string, apiKey: string | null): Promise<unknown> {
  return parseJson(url, await readText(url, apiKey));
}

function parseJson(url: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new SourceError(`${url} did not answer JSON`);
  }
}

/** A source's answer over HTTP, with its key, as text; a SourceError for anything but a 200. */
async function readText(url: string, apiKey: string | null): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, {
      headers: apiKey ? { authorization: `Bearer ${apiKey}`, accept: "application/json" } : { accept: "application/json" },
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      redirect: "error",
    });
  } catch (error) {
    throw new SourceError(`could not reach ${url}: ${(error as Error).message}`);
  }
  const text = await response.text();
  if (response.status !== 200) {
    let code = "";
    try {
      code = (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? "";
    } catch {}
    throw new SourceError(`${url} answered ${response.status}${code ? ` ${code}` : ""}`);
  }
  return text;
}

/** The source's well-known document, checked for the shape this instance reads. */
export async function readWellKnown(baseUrl: string): Promise<Document> {
  const doc = (await readJson(`${baseUrl}/.well-known/trustlist.json`, null)) as Document;
  if (!doc || typeof doc !== "object" || typeof doc.instance?.id !== "string" || !Array.isArray(doc.keys)) {
    throw new SourceError(`${baseUrl}/.well-known/trustlist.json is not a trustlist identity document`);
  }
  return doc;
}

export class SourceSync {
  /** Items refused by verification since start (the /metrics counter). */
  refusedItems = 0;
  private readonly running = new Set<string>();

  constructor(
    private readonly store: FederationStore,
    private readonly applier: SourceApplier,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly crypto: CryptoThreads,
  ) {}

  /** Syncs every source whose interval has passed; the job's run. Answers the items applied. */
  async syncDue(): Promise<number> {
    let applied = 0;
    for (const source of await this.store.dueSources(this.clock.now())) {
      applied += (await this.sync(source)).applied;
    }
    return applied;
  }

  /** Reads and applies the source's feed from its cursor to its end, or to the first item it refuses. */
  async sync(source: SourceRow): Promise<SyncOutcome> {
    if (this.running.has(source.id)) return { name: source.name, applied: 0, cursor: source.cursor, has_more: true, error: "a sync of this source is already running", running: true };
    this.running.add(source.id);
    let applied = 0;
    let cursor = source.cursor;
    let hasMore = true;
    let error: string | null = null;
    let pageItems = this.store.writesHoldRequests ? SYNC_PAGE_ITEMS : MAX_PAGE_ITEMS;
    /** What an item has cost to apply, ms: up at once when one page is slower, down slowly after. */
    let perItemMs = 0;
    /** Sizes the pages asked for next from how long `items` took to apply (where that holds requests). */
    const learn = (ms: number, items: number) => {
      if (!this.store.writesHoldRequests) return;
      // An item's cost swings by 2-5x from page to page as commits write more or fewer index
      // pages; sized from the last page alone, a fast page was followed by one twice the target.
      // The estimate follows a slower page at once and a faster one by a third.
      const lastMs = Math.max(ms / items, 0.001);
      perItemMs = perItemMs === 0 ? lastMs : Math.max(lastMs, perItemMs + (lastMs - perItemMs) / 3);
      pageItems = Math.min(MAX_PAGE_ITEMS, Math.max(MIN_PAGE_ITEMS, Math.floor(APPLY_TARGET_MS / perItemMs)));
    };
    // A page read (from a cursor that is known once the page before it is read) and verified; null
    // past the feed's end. The next READ_AHEAD pages are read and verified while one is applied.
    type Ahead = { page: Promise<FeedPage | null>; checked: Promise<Checked | null> };
    const request = (from: Promise<string | null | undefined>): Ahead => {
      const page = from.then((at) => (at === undefined ? null : this.readPage(source, at, pageItems)));
      const checked = page.then((read) => (read ? this.check(source, read) : null));
      page.catch(() => {});
      checked.catch(() => {});
      return { page, checked };
    };
    const after = (previous: Ahead): Ahead => request(previous.page.then((read) => (read?.has_more ? read.next_cursor : undefined)));
    const ahead: Ahead[] = [request(Promise.resolve(cursor))];
    try {
      while (hasMore) {
        const current = ahead.shift()!;
        while (ahead.length < READ_AHEAD) ahead.push(after(ahead[ahead.length - 1] ?? current));
        const checked = (await current.checked)!;
        const page = checked.page;
        const refusal = checked.refusal !== undefined ? checked.refusal : await this.firstRefusal(source, page);
        let good = page.items;
        let next = page.next_cursor;
        if (refusal) {
          good = page.items.slice(0, refusal.index);
          // The cursor must point just past the last good item: read exactly those again, and
          // take its cursor only if they are the same items, signed the same.
          if (good.length > 0) {
            const after = await this.cursorAfter(source, cursor, good);
            if (after === null) throw new SourceError("the source answered the items before a refused one differently when read again");
            next = after;
          } else {
            next = cursor!;
          }
        }
        // A page read ahead was sized from the estimate two pages earlier. When items have become
        // slower since (a busy machine), applying it whole would hold requests for several times
        // APPLY_TARGET_MS: its first items are read again as a page of their own, for the cursor
        // just past them, and applied alone, as long as they are the same items signed the same
        // (the verified ones are applied). The source signs those items twice.
        while (!refusal && this.store.writesHoldRequests && good.length > 2 * pageItems) {
          const part = good.slice(0, pageItems);
          const after = await this.cursorAfter(source, cursor, part);
          if (after === null) break; // applied whole
          const applying = performance.now();
          await this.applyPage(source, part, after);
          learn(performance.now() - applying, part.length);
          applied += part.length;
          cursor = after;
          good = good.slice(part.length);
          await yieldToRequests();
        }
        const applying = performance.now();
        if (good.length > 0 || next !== cursor) await this.applyPage(source, good, next);
        if (good.length > 0) learn(performance.now() - applying, good.length);
        applied += good.length;
        cursor = next;
        if (refusal) {
          error = `item ${refusal.seq}: ${refusal.reason}; sync stopped before it`;
          this.refusedItems++;
          hasMore = true;
          break;
        }
        hasMore = page.has_more;
        await yieldToRequests();
      }
    } catch (caught) {
      // A page that could not be applied here (a database fault) rolled back whole: the cursor
      // still names the last page applied, and the next sync starts there.
      error = caught instanceof SourceError ? caught.message : `could not apply a page here: ${(caught as Error).message}`;
    } finally {
      this.running.delete(source.id);
    }
    const now = this.clock.now();
    await this.store.transaction(async () => {
      if (error !== null && error !== source.lastError) {
        await this.audit.record(sourceActor(source.name), "source.sync_stopped", {}, { error }, now);
      }
      await this.store.updateSource(source.id, {
        lastError: error,
        lastSyncedAt: error === null ? now : undefined,
        nextSyncAt: now + source.intervalS * 1000,
      });
    });
    return { name: source.name, applied, cursor, has_more: hasMore, error, running: false };
  }

  /**
   * A page and its verdict, when every key it names is pinned already; a page that names another
   * key is verified by the loop itself, after the page before it (pinning writes).
   */
  private async check(source: SourceRow, page: FeedPage): Promise<Checked> {
    const keys = new Map((await this.store.sourceKeys(source.id)).map((key) => [key.kid, key.publicKey]));
    if (page.items.some((item) => item && typeof item === "object" && !keys.has(item.kid))) return { page, refusal: undefined };
    return { page, refusal: await this.firstRefusal(source, page, keys) };
  }

  /**
   * The source's cursor just past `items` (verified, read from `cursor`): they are read again as
   * a page of their own, and its cursor is taken only if it holds the same items, signed the same.
   * Null when the source answers otherwise.
   */
  private async cursorAfter(source: SourceRow, cursor: string | null, items: Item[]): Promise<string | null> {
    const again = await this.readPage(source, cursor, items.length);
    const same = again.items.length === items.length && again.items.every((item, i) => item?.seq === items[i]!.seq && item?.sig === items[i]!.sig);
    return same ? again.next_cursor : null;
  }

  /** A feed page, with the text it was read from (which the verifying thread parses for itself). */
  private async readPage(source: SourceRow, cursor: string | null, limit: number): Promise<FeedPage> {
    const query = new URLSearchParams({ limit: String(limit) });
    if (cursor) query.set("cursor", cursor);
    const url = `${source.url}/v1/federation/changes?${query}`;
    const text = await readText(url, source.apiKey);
    const page = parseJson(url, text) as { items?: unknown; next_cursor?: unknown; has_more?: unknown };
    if (!page || !Array.isArray(page.items) || typeof page.next_cursor !== "string" || typeof page.has_more !== "boolean" || page.items.length > limit) {
      throw new SourceError(`${source.url} answered a feed page this instance cannot read`);
    }
    return { ...(page as Omit<FeedPage, "text">), text };
  }

  /**
   * The first item of a page that does not verify, with why; null when every one does. Keys the
   * items name that are not pinned yet are looked for first (a rotation the source's document
   * shows); the signatures are checked on the verifying thread.
   */
  private async firstRefusal(source: SourceRow, page: FeedPage, pinned?: Map<string, string>): Promise<Refusal | null> {
    const items = page.items;
    const keys = pinned ?? new Map((await this.store.sourceKeys(source.id)).map((key) => [key.kid, key.publicKey]));
    if (!pinned && items.some((item) => item && typeof item === "object" && typeof item.kid === "string" && !keys.has(item.kid))) await this.pinEndorsedKeys(source, keys);
    const valid = await this.crypto.verifyPage(keys, page.text, items.length);
    for (let index = 0; index < items.length; index++) {
      const item = items[index]!;
      if (!item || typeof item !== "object") return { index, seq: null, reason: "not an item" };
      const reason = !keys.has(item.kid)
        ? `signed with key '${String(item.kid).slice(0, 64)}', which no pinned key endorsed`
        : valid[index] !== true
          ? "its signature does not verify"
          : item.origin !== source.instanceId
            ? "its origin is not the pinned instance"
            : !(CHANGE_TYPES as readonly unknown[]).includes(item.type) || typeof item.seq !== "number"
              ? "its type or seq is malformed"
              : malformedEntry(item.entry);
      if (reason) return { index, seq: item.seq, reason };
    }
    return null;
  }

  /** Pins the keys of the source's current document that a pinned key endorsed, transitively. */
  private async pinEndorsedKeys(source: SourceRow, keys: Map<string, string>): Promise<void> {
    const doc = await readWellKnown(source.url);
    if (doc.instance.id !== source.instanceId) throw new SourceError(`${source.url} now says it is instance ${doc.instance.id}, not the pinned ${source.instanceId}`);
    const now = this.clock.now();
    for (let progress = true; progress; ) {
      progress = false;
      for (const key of doc.keys) {
        if (!key || keys.has(key.kid) || !key.endorsement) continue;
        const endorser = keys.get(key.endorsement.kid);
        if (endorser === undefined || !verifyText(endorser, endorsementText(key.kid, key.public_key), key.endorsement.sig)) continue;
        await this.store.transaction(async () => {
          await this.store.insertSourceKey({ sourceId: source.id, kid: key.kid, publicKey: key.public_key, endorsedBy: key.endorsement!.kid, createdAt: now });
          await this.audit.record(sourceActor(source.name), "source.key_pinned", {}, { kid: key.kid, endorsed_by: key.endorsement!.kid }, now);
        });
        keys.set(key.kid, key.public_key);
        progress = true;
      }
    }
  }

  /**
   * One page's items and the cursor past them, in one transaction, under the source's policy as
   * it is now: a change made during a long sync applies from the next page (and its re-apply
   * covers the pages before).
   */
  private async applyPage(started: SourceRow, items: Item[], next: string): Promise<void> {
    const exemptions = await this.applier.exemptions();
    const now = this.clock.now();
    await this.store.transaction(async () => {
      const source = await this.store.sourceByName(started.name);
      if (!source || source.id !== started.id) throw new SourceError("the source was removed during the sync");
      // Fresh items (an entry to add, nothing held for it, its id not met before on this page)
      // are gathered and written together, in page order, before any other item is applied.
      const held = await this.applier.heldOf(source, items.filter((item) => item.type === "added").map((item) => item.entry.id));
      const met = new Set<string>();
      const fresh: Parameters<SourceApplier["addFresh"]>[1] = [];
      const flush = async () => {
        await this.applier.addFresh(source, fresh);
        fresh.length = 0;
      };
      for (const item of items) {
        const upstreamId = item.entry.id;
        const first = !met.has(upstreamId);
        met.add(upstreamId);
        if (item.type === "added") {
          // Kept with the account id in this instance's stored form, as exemptions and checks name it.
          const entry = { ...item.entry, provider_user_id: normalizeAccountId(item.entry.provider, item.entry.provider_user_id)! };
          if (source.policy !== "review" && first && !held.has(upstreamId)) {
            const input = this.applier.fresh(source, entry, exemptions);
            if (input) {
              fresh.push({ row: { sourceId: source.id, upstreamId, entry: JSON.stringify(entry), caseId: null, receivedAt: now }, input });
              continue;
            }
          }
          await flush();
          // Only a review case is kept from the item's earlier row (the upsert leaves it in place).
          const existing = source.policy === "review" ? await this.store.item(source.id, upstreamId) : null;
          const row = { sourceId: source.id, upstreamId, entry: JSON.stringify(entry), caseId: existing?.caseId ?? null, receivedAt: now };
          await this.store.upsertItem(row);
          await this.applier.reconcile(source, upstreamId, row, exemptions, { tell: true, overturnReason: "source_replaced" });
        } else {
          await flush();
          await this.applier.retract(source, upstreamId, item.type);
        }
      }
      await flush();
      await this.store.updateSource(source.id, { cursor: next, updatedAt: undefined });
    });
  }
}
