// Creators and their linked platform accounts. The Trust Score kept on each creator row is
// score.ts's: every write here recomputes it in the same transaction, so no read sees a score
// that disagrees with its basis.
import { type Clock, iso } from "../../clock";
import type { Database } from "../../db/database";
import { UniqueViolation } from "../../db/errors";
import { conflict, notFound, unprocessable } from "../../errors";
import { newId } from "../../ids";
import type { Outbox } from "../outbox/service";
import { cleanText, isHttpUrl, normalizeHandle, parseTime, requireHandle } from "../../values";
import { type BlacklistService, isProvider, normalizeAccountId } from "../blacklist/service";
import type * as Model from "./model";
import { accountAgeDays, type TrustChangeListener, TrustScores } from "./score";
import {
  type ConnectionFields,
  type ConnectionRow,
  type CreatorRow,
  type CreatorsStore,
  type CreatorsSyncStore,
  createCreatorsStore,
  type NewConnection,
  type NewCreator,
  type ProfileFields,
} from "./store";
import { type TrustTrend, verificationLabel } from "./trust";

export type { ConnectionRow, CreatorRow } from "./store";
export { accountAgeDays, type TrustChange, type TrustChangeListener } from "./score";

/** Told, inside the linking transaction and awaited by it, about a newly linked account. */
export type ConnectionAddedListener = (creator: CreatorRow, connection: ConnectionRow, at: number) => void | Promise<void>;

export type CreatorProfile = typeof Model.CreatorProfile.static;
export type TrustBreakdown = typeof Model.TrustBreakdown.static;
export type PublicConnection = typeof Model.Connection.static;
export type ReviewsSummary = typeof Model.ReviewsSummary.static;

/** Profile fields as a partner or an import line gives them (validated here). */
export type CreatorInput = typeof Model.CreatorBody.static;

/** A link as a partner or an import line gives it (validated here). */
export type ConnectionInput = typeof Model.ConnectionBody.static;

export function reviewsSummary(count: number, sum: number): ReviewsSummary {
  return { count, average: count > 0 ? Math.round((sum / count) * 100) / 100 : null };
}

export class CreatorsService {
  readonly store: CreatorsStore;
  readonly scores: TrustScores;
  /** The store's synchronous capability (SQLite only): the import and the hot keyless reads use it. */
  private readonly sync: CreatorsSyncStore | null;
  private readonly connectionListeners: ConnectionAddedListener[] = [];

  constructor(
    database: Database,
    private readonly clock: Clock,
    outbox: Outbox,
    blacklist: BlacklistService,
    private readonly baseUrl: string,
  ) {
    this.store = createCreatorsStore(database);
    this.sync = this.store.sync ?? null;
    this.scores = new TrustScores(this.store, clock, outbox, blacklist);
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
    this.connectionListeners.push(listener);
  }

  /** The ids of a creator's public linked accounts on one platform. */
  async publicAccountIds(creatorId: string, provider: string): Promise<string[]> {
    return (await this.store.connectionsOf(creatorId)).filter((c) => c.public && c.provider === provider).map((c) => c.providerUserId);
  }

  private syncStore(): CreatorsSyncStore {
    if (!this.sync) throw new Error("This path of the creators module runs on SQLite only (it is not converted yet).");
    return this.sync;
  }

  // ---- reads ------------------------------------------------------------------------------

  /** The stored creator row, answered synchronously on SQLite (pages, public check, import). */
  findNow(rawHandle: string): CreatorRow | null {
    const handle = normalizeHandle(rawHandle);
    return handle === null ? null : this.syncStore().byHandle(handle);
  }

  async find(rawHandle: string): Promise<CreatorRow | null> {
    const handle = normalizeHandle(rawHandle);
    return handle === null ? null : this.store.byHandle(handle);
  }

  async findById(id: string): Promise<CreatorRow | null> {
    return this.store.byId(id);
  }

  private async require(rawHandle: string): Promise<CreatorRow> {
    const row = await this.find(rawHandle);
    if (!row) throw creatorNotFound(rawHandle);
    return row;
  }

  profileUrl(handle: string): string {
    return `${this.baseUrl}/u/${handle}`;
  }

  toProfile(row: CreatorRow): CreatorProfile {
    return {
      handle: row.handle,
      display_name: row.displayName,
      verification_level: row.verificationLevel,
      verification_label: verificationLabel(row.verificationLevel),
      karma: row.karma,
      trust_score: row.trustScore,
      trust_band: row.trustBand,
      reviews: reviewsSummary(row.reviewCount, row.reviewSum),
      completed_deals: row.dealCount,
      linked_accounts: row.linkedAccounts,
      blacklisted: !!row.blacklisted,
      joined_at: iso(row.joinedAt),
      profile_url: this.profileUrl(row.handle),
    };
  }

  async profile(rawHandle: string): Promise<CreatorProfile> {
    return this.toProfile(await this.require(rawHandle));
  }

  async trust(rawHandle: string): Promise<TrustBreakdown> {
    const row = await this.require(rawHandle);
    return {
      handle: row.handle,
      trust_score: row.trustScore,
      band: row.trustBand,
      trend: await this.trend(row),
      blacklisted: !!row.blacklisted,
      basis: {
        verification_level: row.verificationLevel,
        verification_label: verificationLabel(row.verificationLevel),
        // As of the computation, so the basis is exactly what produced the score.
        account_age_days: accountAgeDays(row.joinedAt, row.trustComputedAt),
        linked_accounts: row.linkedAccounts,
        completed_deals: row.dealCount,
        reviews: reviewsSummary(row.reviewCount, row.reviewSum),
      },
      computed_at: iso(row.trustComputedAt),
    };
  }

  trend(row: CreatorRow): Promise<TrustTrend> {
    return this.scores.trend(row);
  }

  /** Public connections, oldest first. */
  async connections(rawHandle: string): Promise<PublicConnection[]> {
    const row = await this.require(rawHandle);
    return (await this.store.connectionsOf(row.id))
      .filter((c) => c.public)
      .map((c) => ({
        provider: c.provider,
        provider_username: c.providerUsername,
        provider_url: c.providerUrl,
        verified_at: iso(c.verifiedAt),
      }));
  }

  // ---- writes -----------------------------------------------------------------------------

  /** Creates or updates a creator's profile fields; `created` tells which. */
  async upsert(rawHandle: string, input: CreatorInput): Promise<{ created: boolean; profile: CreatorProfile }> {
    const handle = requireHandle(rawHandle);
    const now = this.clock.now();
    const joinedAt = checkedJoinedAt(input, now);
    return this.store.transaction(async () => {
      const existing = await this.store.byHandle(handle);
      if (!existing) {
        const id = newId("crt", now);
        try {
          await this.store.insertCreator(newCreator(id, handle, input, joinedAt, now));
        } catch (error) {
          // Another instance created the handle between the look-up and the insert.
          if (error instanceof UniqueViolation) throw conflict(`The handle '${handle}' was just taken; retry to update it.`);
          throw error;
        }
        await this.scores.recompute(id, now, true);
      } else {
        await this.store.updateProfile(existing.id, profileFields(existing, input, joinedAt), now);
        await this.scores.recompute(existing.id, now, true);
      }
      return { created: !existing, profile: this.toProfile((await this.store.byHandle(handle))!) };
    });
  }

  /** The upsert inside the caller's synchronous transaction (the import, on SQLite). */
  upsertNow(handle: string, input: CreatorInput, now: number, id?: string): boolean {
    const store = this.syncStore();
    const joinedAt = checkedJoinedAt(input, now);
    const existing = store.byHandle(handle);
    if (!existing) {
      const creatorId = id ?? newId("crt", now);
      store.insertCreator(newCreator(creatorId, handle, input, joinedAt, now));
      this.scores.recomputeNow(creatorId, now, true);
      return true;
    }
    store.updateProfile(existing.id, profileFields(existing, input, joinedAt), now);
    this.scores.recomputeNow(existing.id, now, true);
    return false;
  }

  /** `upsertNow` awaiting its store: the import on PostgreSQL, inside its transaction. */
  async upsertImported(handle: string, input: CreatorInput, now: number, id?: string): Promise<boolean> {
    const joinedAt = checkedJoinedAt(input, now);
    const existing = await this.store.byHandle(handle);
    if (!existing) {
      const creatorId = id ?? newId("crt", now);
      await this.store.insertCreator(newCreator(creatorId, handle, input, joinedAt, now));
      await this.scores.recompute(creatorId, now, true);
      return true;
    }
    await this.store.updateProfile(existing.id, profileFields(existing, input, joinedAt), now);
    await this.scores.recompute(existing.id, now, true);
    return false;
  }

  /**
   * Links a platform account to a creator, or updates the link when it is already this
   * creator's. An account linked to another creator is a conflict.
   */
  async link(rawHandle: string, input: ConnectionInput): Promise<{ created: boolean; connection: ConnectionRow }> {
    const now = this.clock.now();
    return this.store.transaction(async () => {
      const creator = await this.store.byHandle(requireHandle(rawHandle));
      if (!creator) throw creatorNotFound(rawHandle);
      const link = checkedConnection(creator, input, now);
      // The insert comes first and yields to a stored link: a new account costs one statement.
      const existing = (await this.store.insertConnection(link))
        ? null
        : await this.store.connectionByAccount(link.provider, link.providerUserId);
      if (existing && existing.creatorId !== creator.id) throw accountTaken(link.provider);
      if (existing) await this.store.updateConnection(existing.id, updatedConnection(existing, input, link));
      await this.scores.recompute(creator.id, now, true);
      const connection = (await this.store.connectionByAccount(link.provider, link.providerUserId))!;
      if (!existing) for (const listener of this.connectionListeners) await listener(creator, connection, now);
      return { created: !existing, connection };
    });
  }

  /**
   * The link inside the caller's synchronous transaction (the import, on SQLite), without reading
   * the row back: 300k connections of the bench data set spent about a third of their time doing so.
   */
  linkNow(creator: Pick<CreatorRow, "id">, input: ConnectionInput, now: number): { created: boolean; accountId: string } {
    const store = this.syncStore();
    const link = checkedConnection(creator, input, now);
    const existing = store.insertConnection(link) ? null : store.connectionByAccount(link.provider, link.providerUserId);
    if (existing && existing.creatorId !== creator.id) throw accountTaken(link.provider);
    if (existing) store.updateConnection(existing.id, updatedConnection(existing, input, link));
    this.scores.recomputeNow(creator.id, now, true);
    return { created: !existing, accountId: link.providerUserId };
  }

  /** `linkNow` awaiting its store: the import on PostgreSQL, inside its transaction. */
  async linkImported(creator: Pick<CreatorRow, "id">, input: ConnectionInput, now: number): Promise<void> {
    const link = checkedConnection(creator, input, now);
    const existing = (await this.store.insertConnection(link)) ? null : await this.store.connectionByAccount(link.provider, link.providerUserId);
    if (existing && existing.creatorId !== creator.id) throw accountTaken(link.provider);
    if (existing) await this.store.updateConnection(existing.id, updatedConnection(existing, input, link));
    await this.scores.recompute(creator.id, now, true);
  }

  /** Unlinks a platform account from a creator; the score is recomputed without it. */
  async unlink(rawHandle: string, provider: string, rawAccountId: string): Promise<ConnectionRow> {
    const now = this.clock.now();
    return this.store.transaction(async () => {
      const creator = await this.store.byHandle(requireHandle(rawHandle));
      if (!creator) throw creatorNotFound(rawHandle);
      const accountId = isProvider(provider) ? normalizeAccountId(provider, rawAccountId) : null;
      const existing = accountId === null ? null : await this.store.connectionByAccount(provider, accountId);
      if (!existing || existing.creatorId !== creator.id) throw notFound(`${creator.handle} has no such linked ${provider} account.`);
      await this.store.deleteConnection(existing.id);
      await this.scores.recompute(creator.id, now, true);
      return existing;
    });
  }

  /**
   * Records how many courses a creator passed and recomputes the score with the course buff, in
   * the caller's transaction when there is one (the courses module's grading).
   */
  async setCoursesPassed(creatorId: string, count: number): Promise<void> {
    const now = this.clock.now();
    await this.store.transaction(async () => {
      await this.store.writeCoursesPassed(creatorId, count);
      await this.scores.recompute(creatorId, now, true);
    });
  }

  // ---- the score (score.ts), for the import, the network module and the daily job ---------

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

function checkedJoinedAt(input: CreatorInput, now: number): number | undefined {
  const joinedAt = input.joined_at !== undefined ? parseTime(input.joined_at, "joined_at") : undefined;
  if (joinedAt !== undefined && joinedAt > now + 5 * 60_000) throw unprocessable("joined_at must not be in the future.");
  return joinedAt;
}

function newCreator(id: string, handle: string, input: CreatorInput, joinedAt: number | undefined, now: number): NewCreator {
  return {
    id,
    handle,
    displayName: cleanText(input.display_name),
    verificationLevel: input.verification_level ?? 0,
    karma: input.karma ?? 0,
    joinedAt: joinedAt ?? now,
    avatarR2Key: input.avatar_r2_key ?? null,
    createdAt: now,
  };
}

/** The profile after `input`: fields left out keep their value. */
function profileFields(existing: CreatorRow, input: CreatorInput, joinedAt: number | undefined): ProfileFields {
  return {
    displayName: input.display_name !== undefined ? cleanText(input.display_name) : existing.displayName,
    verificationLevel: input.verification_level ?? existing.verificationLevel,
    karma: input.karma ?? existing.karma,
    joinedAt: joinedAt ?? existing.joinedAt,
    avatarR2Key: input.avatar_r2_key !== undefined ? input.avatar_r2_key : existing.avatarR2Key,
  };
}

/** The connection row `input` asks for, validated. */
function checkedConnection(creator: Pick<CreatorRow, "id">, input: ConnectionInput, now: number): NewConnection {
  if (!isProvider(input.provider)) throw unprocessable(`Unknown provider '${String(input.provider).slice(0, 32)}'.`);
  const accountId = normalizeAccountId(input.provider, String(input.provider_user_id ?? ""));
  if (accountId === null) {
    throw unprocessable(`'${String(input.provider_user_id).slice(0, 64)}' is not a valid ${input.provider} user id.`);
  }
  const verifiedAt = input.verified_at != null ? parseTime(input.verified_at, "verified_at") : null;
  if (input.provider_url != null && !isHttpUrl(input.provider_url)) throw unprocessable("provider_url must be an http(s) URL.");
  return {
    creatorId: creator.id,
    provider: input.provider,
    providerUserId: accountId,
    providerUsername: cleanText(input.provider_username),
    providerUrl: input.provider_url ?? null,
    verifiedAt,
    public: input.public !== false,
    createdAt: now,
  };
}

/** A stored link after `input`: fields left out keep their value. */
function updatedConnection(existing: ConnectionRow, input: ConnectionInput, link: NewConnection): ConnectionFields {
  return {
    providerUsername: input.provider_username !== undefined ? link.providerUsername : existing.providerUsername,
    providerUrl: input.provider_url !== undefined ? link.providerUrl : existing.providerUrl,
    verifiedAt: input.verified_at !== undefined ? link.verifiedAt : existing.verifiedAt,
    public: input.public !== undefined ? link.public : existing.public,
  };
}

function accountTaken(provider: string) {
  return conflict(`This ${provider} account is already linked to another creator.`);
}

/** 404 for a handle no creator has; the handle is shown as given, shortened. */
export function creatorNotFound(rawHandle: string, role?: string) {
  return notFound(`No creator '${rawHandle.replace(/^@/, "").slice(0, 40)}'${role ? ` (${role})` : ""}.`);
}
