// The creator directory: pages of creators by a sort, filtered by a fuzzy `q` and a platform,
// answered from the in-memory directory index (directory-index.ts) once it is built.
import { iso } from "../../clock";
import type { Database } from "../../db/database";
import type { MetaStore } from "../../db/meta-store";
import { unprocessable } from "../../errors";
import type { CreatorsService } from "../creators/service";
import type { CreatorScan, CreatorsStore, DirectoryListRow } from "../creators/store";
import { DirectoryIndex } from "./directory-index";
import type { DirectorySnapshotShelf } from "./directory-snapshot";
import type { DirectoryItem as DirectoryItemSchema, DirectoryPage as DirectoryPageSchema } from "./model";

export const DIRECTORY_SORTS = ["newest", "trust", "vouches", "deals"] as const;
export type DirectorySort = (typeof DIRECTORY_SORTS)[number];

/**
 * Deepest row the directory lists (`page` x `limit`). Any page within it is a bounded selection
 * from the in-memory index, or an index walk of at most this many rows; deeper pages cost as much
 * as sorting every match (60 ms at 50k creators), and nobody reads a listing that far: past it the
 * answer is 422, asking for a narrower query.
 */
export const MAX_DIRECTORY_ROWS = 1_000;

export type DirectoryItem = typeof DirectoryItemSchema.static;
export type DirectoryPage = typeof DirectoryPageSchema.static;


export class PublicDirectory {
  private readonly index: DirectoryIndex;
  /** The creators module's store: the index's rows, the pages' creators and the unfiltered directory. */
  private readonly creators: CreatorsStore;

  constructor(database: Pick<Database, "changes" | "afterCommit">, meta: MetaStore, creators: CreatorsService) {
    this.creators = creators.store;
    this.index = new DirectoryIndex(this.creators, database, meta);
    creators.onChange((id) => this.index.markDirty(id));
  }

  /**
   * One page of the creator directory, at most MAX_DIRECTORY_ROWS deep. `q` (3+ characters) is
   * matched without case against each creator's haystack (handle, display name, public connection
   * usernames) by the in-memory directory index: as typed, anywhere in it ("ht dr" finds "knight
   * drake"), or, when that finds nothing, every word of three characters or more in any order. A
   * shorter `q` is a handle prefix. Any filter (`q`, `platform`) is answered from that index (which
   * keeps each recent query's ordered first rows until the next change); the unfiltered list walks
   * the sort's index in the database, at most MAX_DIRECTORY_ROWS entries.
   */
  async page(options: { q?: string; sort?: DirectorySort; page?: number; limit?: number; platform?: string }): Promise<DirectoryPage> {
    const sort = options.sort ?? "newest";
    const page = options.page ?? 1;
    const limit = options.limit ?? 24;
    if (page * limit > MAX_DIRECTORY_ROWS) {
      throw unprocessable(
        `page x limit is ${page * limit}; the directory lists the first ${MAX_DIRECTORY_ROWS} rows of a query. Narrow it with q or platform, or sort differently.`,
      );
    }
    const text = (options.q ?? "").toLowerCase().replace(/\s+/g, " ").trim();
    const platform = options.platform ?? null;
    const offset = (page - 1) * limit;
    const refreshed = this.index.refresh();
    const scanned = () => this.fromStore(text, platform, sort, offset, Math.min(limit, MAX_DIRECTORY_ROWS - offset));
    let total: number;
    let rows: DirectoryListRow[];
    if (!this.index.ready) refreshed.catch(() => {}); // a failed build is retried by the next query
    if (!(await this.index.whenAnswerable())) {
      // Creators changed while the index builds: the database answers, scanning the creators.
      ({ total, rows } = await scanned());
    } else if ((this.index.ready && (await refreshed), text === "" && platform === null)) {
      total = this.index.size;
      rows = offset < total ? await this.creators.creatorsInOrder(sort, limit, offset) : [];
    } else {
      const found = await this.index.query(text, platform, sort, offset, limit, MAX_DIRECTORY_ROWS);
      if (found === null) {
        ({ total, rows } = await scanned());
      } else {
        total = found.total;
        const byRowid = new Map((await this.creators.creatorsByRowids(found.rowids)).map((row) => [row.rowid, row]));
        rows = found.rowids.flatMap((rowid) => byRowid.get(rowid) ?? []);
      }
    }
    const totalPages = Math.ceil(total / limit);
    return {
      items: rows.map(directoryItem),
      page,
      limit,
      page_size: rows.length,
      total,
      total_pages: totalPages,
      has_more: page < totalPages,
      sort,
    };
  }

  /** The directory index's answer read from the database, for queries that come while it builds and creators change. */
  private async fromStore(text: string, platform: string | null, sort: DirectorySort, offset: number, limit: number) {
    if (text === "" && platform === null) {
      return { total: await this.creators.countCreators(), rows: await this.creators.creatorsInOrder(sort, limit, offset) };
    }
    // What the directory index answers, as a scan: a short q is a handle prefix; else the text as
    // typed, or failing that every word of three characters or more.
    const page = (scan: Omit<CreatorScan, "platform">) => this.creators.scanCreators({ ...scan, platform }, sort, limit, offset);
    if ([...text].length < 3) return page({ text: null, words: null, handlePrefix: text === "" ? null : text });
    const exact = await page({ text, words: null, handlePrefix: null });
    const words = [...new Set(text.split(" ").filter((w) => [...w].length >= 3))];
    return exact.total > 0 || words.length < 2 ? exact : page({ text: null, words, handlePrefix: null });
  }

  /** Shares the index's snapshots with the other processes of one serve (directory-index.ts). */
  shareWith(shelf: DirectorySnapshotShelf): void {
    this.index.shareWith(shelf);
  }

  /** Builds the directory index ahead of the first query that needs it. */
  warm(): Promise<void> {
    return this.index.refresh();
  }
}

function directoryItem(row: DirectoryListRow): DirectoryItem {
  return {
    id: row.id,
    handle: row.handle,
    display_name: row.displayName,
    verification_level: row.verificationLevel,
    karma: row.karma,
    avatar_r2_key: row.avatarR2Key,
    created_at: iso(row.createdAt),
    trust_score: row.trustScore,
    vouch_count: row.vouchCount,
    deal_count: row.dealCount,
    platforms: row.platforms === "" ? [] : row.platforms.split(","),
    // SQLite's pages read the row as stored: its flag is 0 or 1 there.
    blacklisted: !!row.blacklisted,
    match: row.searchText,
  };
}
