// The signed feed: this instance's own entries' changes in commit order, each item signed with the
// current key over its RFC 8785 canonical JSON. Entries applied from a followed source are never
// published (two instances that follow each other do not echo); watchlist rows are, flagged.
// Signatures are made as a page is read, on a low-priority thread (crypto-threads.ts): Ed25519 is
// deterministic, so a page read twice is signed the same, and nothing is stored per change. A page
// also carries one signature over its items and theirs (`page_sig`), which a follower checks
// instead of one per item. Where the list is a SQLite file, that thread also reads the page and
// writes its JSON: a follower pulling a large list then takes the cores requests leave idle, not
// the request thread's turns.
import { iso } from "../../clock";
import type { CursorCodec } from "../../cursor";
import { forbidden, ServiceError } from "../../errors";
import type { AccountsService } from "../accounts/service";
import type { BlacklistService } from "../blacklist/service";
import type { ChangeRow } from "../blacklist/store";
import type { InstanceIdentity } from "./identity";
import type { FeedItem } from "./model";
import type { CryptoThreads } from "./crypto-threads";
import { canonicalJson, pageSignedText, signText } from "./signing";

type Item = typeof FeedItem.static;
type UnsignedItem = Omit<Item, "sig">;

/** The feed items of `rows`, unsigned, in their order. */
export function unsignedItems(rows: ChangeRow[], origin: string, kid: string): UnsignedItem[] {
  return rows.map((row) => ({ seq: row.seq, type: row.type, at: iso(row.at)!, origin, entry: feedEntry(row), kid }));
}

/**
 * The page `rows` make (read with one row past `limit`, which tells whether more follow), unsigned:
 * its items, the seq its cursor names (`after` for an empty page) and whether more follow.
 */
export function pageOf(rows: ChangeRow[], after: number, limit: number, origin: string, kid: string) {
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  return { items: unsignedItems(page, origin, kid), lastSeq: page.length > 0 ? page[page.length - 1]!.seq : after, hasMore };
}

/** The texts each item is signed over, in order. */
export function signedTexts(items: UnsignedItem[]): string[] {
  return items.map((item) => canonicalJson(item));
}

/** The page's `items` as JSON, each item with its signature (`sigs[i]` for `items[i]`). */
export function itemsJson(items: UnsignedItem[], sigs: string[]): string {
  return JSON.stringify(items.map((item, i) => ({ ...item, sig: sigs[i]! })));
}

/** The page's `page_sig` signature over its items' texts and signatures; null for an empty page. */
export function pageSignature(privateKey: string, texts: string[], sigs: string[]): string | null {
  return texts.length > 0 ? signText(privateKey, pageSignedText(texts, sigs)) : null;
}

export class SignedFeed {
  constructor(
    private readonly identity: InstanceIdentity,
    private readonly blacklist: BlacklistService,
    private readonly accounts: AccountsService,
    private readonly cursors: CursorCodec,
    private readonly crypto: CryptoThreads,
  ) {}

  /**
   * A page for a key of `accountId`, which the operator must have opened for following, as the
   * JSON text of a FeedPage (items, next_cursor, has_more).
   */
  async changes(accountId: string, options: { cursor?: string; limit?: number }): Promise<string> {
    const account = await this.accounts.getAccount(accountId);
    if (!account.federation) throw forbidden("This key's account is not open for following; the operator opens it with `trustlist accounts update NAME --federation on`.");
    const limit = options.limit ?? 100;
    let after = 0;
    if (options.cursor !== undefined) {
      const position = this.cursors.decode(options.cursor);
      if (!position || position.k !== "federation" || typeof position.s !== "number") {
        throw new ServiceError("invalid_cursor", "The cursor is malformed or was not issued by this server.");
      }
      after = position.s;
    }
    const [origin, key] = await Promise.all([this.identity.instanceId(), this.identity.signingKey()]);
    const file = this.blacklist.feedFile;
    const page =
      (file !== undefined && (await this.crypto.readPage({ file, after, limit, origin, kid: key.kid, privateKey: key.privateKey }))) ||
      (await this.readHere(after, limit, origin, key));
    const cursor = this.cursors.encode({ k: "federation", s: page.lastSeq });
    // The order of FeedPage's fields; the items are JSON already.
    const pageSig = page.pageSig === null ? "" : `,"page_sig":${JSON.stringify({ kid: key.kid, sig: page.pageSig })}`;
    return `{"items":${page.items}${pageSig},"next_cursor":${JSON.stringify(cursor)},"has_more":${page.hasMore}}`;
  }

  /** The page read on this thread (PostgreSQL, an in-memory database, or no thread to read it). */
  private async readHere(after: number, limit: number, origin: string, key: { kid: string; privateKey: string }) {
    const { items, lastSeq, hasMore } = pageOf(await this.blacklist.originChangesAfter(after, limit + 1), after, limit, origin, key.kid);
    const texts = signedTexts(items);
    const sigs = await this.crypto.sign(key.privateKey, texts);
    return { items: itemsJson(items, sigs), pageSig: pageSignature(key.privateKey, texts, sigs), lastSeq, hasMore };
  }
}

function feedEntry(row: ChangeRow): Item["entry"] {
  return {
    id: row.id,
    provider: row.provider,
    provider_user_id: row.providerUserId,
    username: row.username,
    severity: row.severity,
    scope: row.scope,
    vertical: row.vertical,
    reason_code: row.reasonCode,
    summary: row.summary,
    issued_at: iso(row.issuedAt)!,
    expires_at: iso(row.expiresAt),
    appealable: !!row.appealable,
    high_risk: !!row.highRisk,
    watchlist: !!row.watchlist,
    supersedes: row.supersedes,
  };
}
