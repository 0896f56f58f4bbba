// The signed feed: this instance's own entries' changes in commit order, each item signed with the
// current key over its RFC 8785 canonical JSON. Entries applied from a followed source are never
// published (two instances that follow each other do not echo); watchlist rows are, flagged.
// Signatures are made as a page is read, on a low-priority thread (crypto-threads.ts): Ed25519 is
// deterministic, so a page read twice is signed the same, and nothing is stored per change.
import { iso } from "../../clock";
import type { CursorCodec } from "../../cursor";
import { forbidden, ServiceError } from "../../errors";
import type { AccountsService } from "../accounts/service";
import type { BlacklistService, EntryRow } from "../blacklist/service";
import type { InstanceIdentity } from "./identity";
import type { FeedItem, FeedPage } from "./model";
import type { CryptoThreads } from "./crypto-threads";
import { canonicalJson } from "./signing";

type Item = typeof FeedItem.static;

export class SignedFeed {
  constructor(
    private readonly identity: InstanceIdentity,
    private readonly blacklist: BlacklistService,
    private readonly accounts: AccountsService,
    private readonly cursors: CursorCodec,
    private readonly crypto: CryptoThreads,
  ) {}

  /** A page for a key of `accountId`, which the operator must have opened for following. */
  async changes(accountId: string, options: { cursor?: string; limit?: number }): Promise<typeof FeedPage.static> {
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
    const [origin, key, rows] = await Promise.all([this.identity.instanceId(), this.identity.signingKey(), this.blacklist.originChangesAfter(after, limit + 1)]);
    const hasMore = rows.length > limit;
    const page = hasMore ? rows.slice(0, limit) : rows;
    const unsigned = page.map((row): Omit<Item, "sig"> => ({ seq: row.seq, type: row.type, at: iso(row.at)!, origin, entry: feedEntry(row), kid: key.kid }));
    const sigs = await this.crypto.sign(key.privateKey, unsigned.map((item) => canonicalJson(item)));
    const items = unsigned.map((item, i) => ({ ...item, sig: sigs[i]! }));
    const lastSeq = page.length > 0 ? page[page.length - 1]!.seq : after;
    return { items, next_cursor: this.cursors.encode({ k: "federation", s: lastSeq }), has_more: hasMore };
  }
}

function feedEntry(row: EntryRow): Item["entry"] {
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
