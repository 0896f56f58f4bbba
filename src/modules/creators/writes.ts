// Writing creators: profile upserts and account links, the partner's, the import's synchronous and
// awaited forms, unlinking and courses passed, each recomputing the Trust Score in its transaction;
// its own file as the creators module's write side (service.ts is the facade).
import type { Clock } from "../../clock";
import { UniqueViolation } from "../../db/errors";
import { conflict, notFound, unprocessable } from "../../errors";
import { newId } from "../../ids";
import { cleanText, isHttpUrl, parseTime, requireHandle } from "../../values";
import { isProvider, normalizeAccountId } from "../blacklist/service";
import type * as Model from "./model";
import { type CreatorProfile, type CreatorReads, creatorNotFound } from "./reads";
import type { TrustScores } from "./score";
import type {
  ConnectionFields,
  ConnectionRow,
  CreatorRow,
  CreatorsStore,
  CreatorsSyncStore,
  NewConnection,
  NewCreator,
  ProfileFields,
} from "./store";

/** Told, inside the linking transaction and awaited by it, about a newly linked account. */
export type ConnectionAddedListener = (creator: CreatorRow, connection: ConnectionRow, at: number) => void | Promise<void>;

/** Profile fields as a partner or an import line gives them (validated here). */
export type CreatorInput = typeof Model.CreatorBody.static;

/** A link as a partner or an import line gives it (validated here). */
export type ConnectionInput = typeof Model.ConnectionBody.static;

export class CreatorWrites {
  private readonly connectionListeners: ConnectionAddedListener[] = [];

  constructor(
    private readonly store: CreatorsStore,
    private readonly syncStore: () => CreatorsSyncStore,
    private readonly clock: Clock,
    private readonly scores: TrustScores,
    private readonly reads: CreatorReads,
  ) {}

  /** Accounts newly linked through `link` (not imports), awaited inside its transaction. */
  onConnectionAdded(listener: ConnectionAddedListener): void {
    this.connectionListeners.push(listener);
  }

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
      return { created: !existing, profile: this.reads.toProfile((await this.store.byHandle(handle))!) };
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

  /**
   * A creator of an import that awaits its store (PostgreSQL), inside its transaction: stored
   * unless the handle is, then false and nothing written (the import fails at that line and rolls
   * back). The insert is sent as this is called, before any read: the import sends a creator's
   * links right behind it, in the same window, and they must reach the database after it.
   */
  async insertImported(handle: string, input: CreatorInput, now: number, id?: string): Promise<boolean> {
    const joinedAt = checkedJoinedAt(input, now);
    const creatorId = id ?? newId("crt", now);
    if (!(await this.store.insertCreatorUnlessTaken(newCreator(creatorId, handle, input, joinedAt, now)))) return false;
    await this.scores.recompute(creatorId, now, true);
    return true;
  }

  /** A creator line of the import that stores a window at a time (`storeImported`): checked and made a row now. */
  prepareImported(handle: string, input: CreatorInput, now: number, id?: string): NewCreator {
    return newCreator(id ?? newId("crt", now), handle, input, checkedJoinedAt(input, now), now);
  }

  /** A link line of that import, checked and made a row now. */
  prepareImportedLink(creator: Pick<CreatorRow, "id">, input: ConnectionInput, now: number): NewConnection {
    return checkedConnection(creator, input, now);
  }

  /**
   * A window of the import on PostgreSQL, inside its transaction: its creators in one statement,
   * then its links in another (a statement a line was most of the import's time). What each row
   * came to, in order: a creator true when stored, false when its handle is (nothing written), or
   * the error of an id already stored; a link null when stored or updated, or its error (that of
   * `linkImported`; a link of a creator of this window that was not stored fails too, after it).
   */
  async storeImported(
    creators: NewCreator[],
    links: Array<{ link: NewConnection; input: ConnectionInput }>,
    now: number,
  ): Promise<{ creators: Array<boolean | Error>; links: Array<Error | null> }> {
    const many = this.store.many;
    if (!many) throw new Error("storeImported runs on a store that writes many rows at once (PostgreSQL)");
    // Both statements go out together; a link whose creator was not stored is left out by the
    // store (it names no stored creator) and fails after its creator's line.
    const [insertedCreators, insertedLinks] = await Promise.allSettled([
      many.insertCreatorsUnlessTaken(creators),
      many.insertConnectionsUnlessTaken(links.map(({ link }) => link)),
    ]);
    if (insertedCreators.status === "rejected") throw insertedCreators.reason;
    if (insertedLinks.status === "rejected") throw insertedLinks.reason;
    const inserted = insertedCreators.value;
    const stored = insertedLinks.value;
    const refused = new Set<string>();
    const creatorOutcomes: Array<boolean | Error> = [];
    for (const creator of creators) {
      if (inserted.has(creator.id)) {
        await this.scores.recompute(creator.id, now, true);
        creatorOutcomes.push(true);
        continue;
      }
      refused.add(creator.id);
      creatorOutcomes.push((await this.store.byHandle(creator.handle)) ? false : new UniqueViolation(null));
    }
    const outcomes = new Map<NewConnection, Error | null>();
    for (const [i, { link, input }] of links.entries()) {
      if (refused.has(link.creatorId)) continue;
      if (!stored.has(i)) {
        // The account is linked already: to this creator it is an update, as `linkImported` does.
        const existing = await this.store.connectionByAccount(link.provider, link.providerUserId);
        if (existing && existing.creatorId !== link.creatorId) {
          outcomes.set(link, accountTaken(link.provider));
          continue;
        }
        if (existing) await this.store.updateConnection(existing.id, updatedConnection(existing, input, link));
      }
      await this.scores.recompute(link.creatorId, now, true);
      outcomes.set(link, null);
    }
    const creatorRefused = conflict("The creator of this link was not stored.");
    return { creators: creatorOutcomes, links: links.map(({ link }) => outcomes.get(link) ?? (refused.has(link.creatorId) ? creatorRefused : null)) };
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
