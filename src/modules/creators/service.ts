// Creators and their linked platform accounts, as the rest of the app sees them: reads (reads.ts),
// profile and link writes (writes.ts) and the Trust Score (score.ts), over one store. The score kept
// on each creator row is score.ts's: every write recomputes it in the same transaction, so no read
// sees a score that disagrees with its basis.
import type { Clock } from "../../clock";
import type { Database } from "../../db/database";
import type { Outbox } from "../outbox/service";
import type { BlacklistService } from "../blacklist/service";
import { type CreatorProfile, CreatorReads, type PublicConnection, type TrustBreakdown } from "./reads";
import { type TrustChangeListener, TrustScores } from "./score";
import { type ConnectionRow, type CreatorRow, type CreatorsStore, type CreatorsSyncStore, createCreatorsStore, type NewConnection, type NewCreator } from "./store";
import type { TrustTrend } from "./trust";
import { type ConnectionAddedListener, type ConnectionInput, type CreatorInput, CreatorWrites } from "./writes";

export type { ConnectionRow, CreatorRow, NewConnection, NewCreator } from "./store";
export { accountAgeDays, type TrustChange, type TrustChangeListener } from "./score";
export {
  type CreatorProfile,
  creatorNotFound,
  type PublicConnection,
  type ReviewsSummary,
  reviewsSummary,
  type TrustBreakdown,
} from "./reads";
export type { ConnectionAddedListener, ConnectionInput, CreatorInput } from "./writes";

export class CreatorsService {
  readonly store: CreatorsStore;
  readonly scores: TrustScores;
  /** The store's synchronous capability (SQLite only): the import and the hot keyless reads use it. */
  private readonly sync: CreatorsSyncStore | null;
  private readonly reads: CreatorReads;
  private readonly writes: CreatorWrites;

  constructor(
    database: Database,
    clock: Clock,
    outbox: Outbox,
    blacklist: BlacklistService,
    baseUrl: string,
  ) {
    this.store = createCreatorsStore(database);
    this.sync = this.store.sync ?? null;
    this.scores = new TrustScores(this.store, clock, outbox, blacklist);
    const syncStore = () => this.syncStore();
    this.reads = new CreatorReads(this.store, syncStore, this.scores, baseUrl);
    this.writes = new CreatorWrites(this.store, syncStore, clock, this.scores, this.reads);
  }

  /**
   * Told, inside the writing transaction, about every creator whose row was rewritten; listeners
   * must only take note (the transaction may still roll back) and read the row later.
   */
  onChange(listener: (creatorId: string) => void): void {
    this.scores.onChange(listener);
  }

  /** Score drops and bans of emitting writes, awaited inside their transaction (score.ts). */
  onTrustChange(listener: TrustChangeListener): void {
    this.scores.onTrustChange(listener);
  }

  /** Accounts newly linked through `link` (not imports), awaited inside its transaction. */
  onConnectionAdded(listener: ConnectionAddedListener): void {
    this.writes.onConnectionAdded(listener);
  }

  /** The ids of a creator's public linked accounts on one platform. */
  async publicAccountIds(creatorId: string, provider: string): Promise<string[]> {
    return (await this.store.connectionsOf(creatorId)).filter((c) => c.public && c.provider === provider).map((c) => c.providerUserId);
  }

  private syncStore(): CreatorsSyncStore {
    if (!this.sync) throw new Error("This path of the creators module runs on SQLite only (it is not converted yet).");
    return this.sync;
  }

  // Reads (reads.ts).

  /** The stored creator row, answered synchronously on SQLite (pages, public check, import). */
  findNow(rawHandle: string): CreatorRow | null {
    return this.reads.findNow(rawHandle);
  }

  find(rawHandle: string): Promise<CreatorRow | null> {
    return this.reads.find(rawHandle);
  }

  findById(id: string): Promise<CreatorRow | null> {
    return this.reads.findById(id);
  }

  profileUrl(handle: string): string {
    return this.reads.profileUrl(handle);
  }

  toProfile(row: CreatorRow): CreatorProfile {
    return this.reads.toProfile(row);
  }

  profile(rawHandle: string): Promise<CreatorProfile> {
    return this.reads.profile(rawHandle);
  }

  trust(rawHandle: string): Promise<TrustBreakdown> {
    return this.reads.trust(rawHandle);
  }

  trend(row: CreatorRow): Promise<TrustTrend> {
    return this.reads.trend(row);
  }

  /** Public connections, oldest first. */
  connections(rawHandle: string): Promise<PublicConnection[]> {
    return this.reads.connections(rawHandle);
  }

  // Writes (writes.ts).

  /** Creates or updates a creator's profile fields; `created` tells which. */
  upsert(rawHandle: string, input: CreatorInput): Promise<{ created: boolean; profile: CreatorProfile }> {
    return this.writes.upsert(rawHandle, input);
  }

  /** The upsert inside the caller's synchronous transaction (the import, on SQLite). */
  upsertNow(handle: string, input: CreatorInput, now: number, id?: string): boolean {
    return this.writes.upsertNow(handle, input, now, id);
  }

  /** A creator of the import on PostgreSQL, inside its transaction; false when the handle is stored (see CreatorWrites). */
  insertImported(handle: string, input: CreatorInput, now: number, id?: string): Promise<boolean> {
    return this.writes.insertImported(handle, input, now, id);
  }

  /** Links a platform account to a creator, or updates the link when it is already this creator's. */
  link(rawHandle: string, input: ConnectionInput): Promise<{ created: boolean; connection: ConnectionRow }> {
    return this.writes.link(rawHandle, input);
  }

  /** The link inside the caller's synchronous transaction (the import, on SQLite), without reading the row back. */
  linkNow(creator: Pick<CreatorRow, "id">, input: ConnectionInput, now: number): { created: boolean; accountId: string } {
    return this.writes.linkNow(creator, input, now);
  }

  /** `linkNow` awaiting its store: the import on PostgreSQL, inside its transaction. */
  linkImported(creator: Pick<CreatorRow, "id">, input: ConnectionInput, now: number): Promise<void> {
    return this.writes.linkImported(creator, input, now);
  }

  /** The import's window on PostgreSQL: see CreatorWrites.prepareImported, prepareImportedLink and storeImported. */
  prepareImported(handle: string, input: CreatorInput, now: number, id?: string): NewCreator {
    return this.writes.prepareImported(handle, input, now, id);
  }

  prepareImportedLink(creator: Pick<CreatorRow, "id">, input: ConnectionInput, now: number): NewConnection {
    return this.writes.prepareImportedLink(creator, input, now);
  }

  storeImported(creators: NewCreator[], links: Array<{ link: NewConnection; input: ConnectionInput }>, now: number) {
    return this.writes.storeImported(creators, links, now);
  }

  /** Unlinks a platform account from a creator; the score is recomputed without it. */
  unlink(rawHandle: string, provider: string, rawAccountId: string): Promise<ConnectionRow> {
    return this.writes.unlink(rawHandle, provider, rawAccountId);
  }

  /** Records how many courses a creator passed and recomputes the score with the course buff. */
  setCoursesPassed(creatorId: string, count: number): Promise<void> {
    return this.writes.setCoursesPassed(creatorId, count);
  }

  // The score (score.ts), for the import, the network module and the daily job.

  recompute(creatorId: string, now: number, emit: boolean): Promise<void> {
    return this.scores.recompute(creatorId, now, emit);
  }

  recomputeNow(creatorId: string, now: number, emit: boolean): void | Promise<void> {
    return this.scores.recomputeNow(creatorId, now, emit);
  }

  beginBulk(): void {
    this.scores.beginBulk();
  }

  /** See `TrustScores.scoreAheadOfEntries`. */
  scoreAheadOfEntries(): void {
    this.scores.scoreAheadOfEntries();
  }

  endBulk(): number {
    return this.scores.endBulk();
  }

  endBulkAsync(): Promise<number> {
    return this.scores.endBulkAsync();
  }

  abandonBulk(): void {
    this.scores.abandonBulk();
  }

  refreshAll(batch?: number): Promise<number> {
    return this.scores.refreshAll(batch);
  }
}
