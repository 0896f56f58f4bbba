// The list a bot mirrors and its change feed: active, confirmed entries one keyset page at a time,
// and every change (added, overturned, expired) in `seq` order, both with cursors this server
// issued.
import { type Clock, iso } from "../../clock";
import type { CursorCodec } from "../../cursor";
import type { Vertical } from "../../domain";
import { ServiceError } from "../../errors";
import { type PublicEntry, toPublicEntry } from "./entry";
import type { ChangesPage } from "./model";
import type { BlacklistStore } from "./store";

export type Change = (typeof ChangesPage.static)["data"][number];

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}

const BAD_CURSOR = "The cursor is malformed or was not issued by this server.";

export class BlacklistFeed {
  constructor(
    private readonly store: BlacklistStore,
    private readonly clock: Clock,
    private readonly cursors: CursorCodec,
  ) {}

  /** Active, confirmed entries in (issued_at, id) order, one keyset page at a time. */
  async list(options: { cursor?: string; limit?: number; vertical?: Vertical; since?: string }): Promise<Page<PublicEntry>> {
    const limit = options.limit ?? 50;
    let afterTime = -1;
    let afterId = "";
    if (options.cursor !== undefined) {
      const position = this.cursors.decode(options.cursor);
      if (!position || position.k !== "list" || typeof position.t !== "number" || typeof position.i !== "string") {
        throw new ServiceError("invalid_cursor", BAD_CURSOR);
      }
      afterTime = position.t;
      afterId = position.i;
    }
    if (options.since !== undefined) {
      const since = Date.parse(options.since);
      // "Strictly after `since`": start past every id at that instant ('~' sorts after any id).
      if (since > afterTime || (since === afterTime && afterId < "~")) {
        afterTime = since;
        afterId = "~";
      }
    }
    const rows = await this.store.page(afterTime, afterId, this.clock.now(), options.vertical ?? "all", limit + 1);
    const hasMore = rows.length > limit;
    const page = hasMore ? rows.slice(0, limit) : rows;
    const last = page[page.length - 1];
    return {
      data: page.map(toPublicEntry),
      next_cursor: hasMore && last ? this.cursors.encode({ k: "list", t: last.issuedAt, i: last.id }) : null,
      has_more: hasMore,
    };
  }

  /** One active, confirmed entry; null for unknown, overturned, expired or watchlist rows. */
  async get(id: string): Promise<PublicEntry | null> {
    const row = await this.store.byId(id);
    if (!row || row.status !== "active" || row.watchlist || (row.expiresAt !== null && row.expiresAt <= this.clock.now())) {
      return null;
    }
    return toPublicEntry(row);
  }

  async changes(options: { cursor?: string; limit?: number }): Promise<Page<Change>> {
    const limit = options.limit ?? 100;
    let after = 0;
    if (options.cursor !== undefined) {
      const position = this.cursors.decode(options.cursor);
      if (!position || position.k !== "changes" || typeof position.s !== "number") {
        throw new ServiceError("invalid_cursor", BAD_CURSOR);
      }
      after = position.s;
    }
    const rows = await this.store.changesAfter(after, limit + 1);
    const hasMore = rows.length > limit;
    const page = hasMore ? rows.slice(0, limit) : rows;
    const lastSeq = page.length > 0 ? page[page.length - 1]!.seq : after;
    return {
      data: page.map((row) => {
        const change: Change = { seq: row.seq, type: row.type, entry_id: row.entryId, at: iso(row.at) };
        if (row.type === "added") change.entry = toPublicEntry(row);
        return change;
      }),
      next_cursor: this.cursors.encode({ k: "changes", s: lastSeq }),
      has_more: hasMore,
    };
  }
}
