// Creators, their linked platform accounts, and the Trust Score kept on each creator row. Every
// change to a score input recomputes the score in the same transaction (SPEC section 5), so a
// directory sort, a badge or a profile read is one row and never disagrees with the basis.
import type { Database, Statement } from "bun:sqlite";
import { type Clock, iso, utcDay } from "../../clock";
import type { Store } from "../../db/client";
import type { ChangeType, Provider } from "../../db/schema";
import { conflict, notFound, unprocessable } from "../../errors";
import { newId } from "../../ids";
import type { Outbox } from "../../outbox";
import { cleanText, isHttpUrl, normalizeHandle, parseTime, requireHandle } from "../../values";
import { type BlacklistService, type EntryRow, isProvider, normalizeAccountId } from "../blacklist/service";
import { computeTrust, type TrustBand, type TrustTrend, trustTrend, verificationLabel } from "./trust";
import { yieldToRequests } from "../../yield";

const DAY_MS = 86_400_000;

export interface CreatorRow {
  rowid: number;
  id: string;
  handle: string;
  display_name: string | null;
  verification_level: number;
  karma: number;
  joined_at: number;
  avatar_r2_key: string | null;
  created_at: number;
  updated_at: number;
  trust_score: number;
  trust_band: TrustBand;
  blacklisted: number;
  trust_computed_at: number;
  linked_accounts: number;
  verified_connections: number;
  vouch_count: number;
  deal_count: number;
  review_count: number;
  review_sum: number;
  courses_passed: number;
  search_text: string;
  platforms: string;
}

export interface ConnectionRow {
  id: number;
  creator_id: string;
  provider: Provider;
  provider_user_id: string;
  provider_username: string | null;
  provider_url: string | null;
  verified_at: number | null;
  public: number;
  created_at: number;
}

export interface ReviewsSummary {
  count: number;
  average: number | null;
}

export interface CreatorProfile {
  handle: string;
  display_name: string | null;
  verification_level: number;
  verification_label: string;
  karma: number;
  trust_score: number;
  trust_band: TrustBand;
  reviews: ReviewsSummary;
  completed_deals: number;
  linked_accounts: number;
  blacklisted: boolean;
  joined_at: string;
  profile_url: string;
}

export interface TrustBreakdown {
  handle: string;
  trust_score: number;
  band: TrustBand;
  trend: TrustTrend;
  blacklisted: boolean;
  basis: {
    verification_level: number;
    verification_label: string;
    account_age_days: number;
    linked_accounts: number;
    completed_deals: number;
    reviews: ReviewsSummary;
  };
  computed_at: string;
}

export interface PublicConnection {
  provider: Provider;
  provider_username: string | null;
  provider_url: string | null;
  verified_at: string | null;
}

export interface CreatorInput {
  display_name?: string | null;
  verification_level?: number;
  karma?: number;
  joined_at?: string;
  avatar_r2_key?: string | null;
}

export interface ConnectionInput {
  provider: string;
  provider_user_id: string;
  provider_username?: string | null;
  provider_url?: string | null;
  verified_at?: string | null;
  public?: boolean;
}

export function reviewsSummary(count: number, sum: number): ReviewsSummary {
  return { count, average: count > 0 ? Math.round((sum / count) * 100) / 100 : null };
}

interface PenaltyRow {
  id: string;
  severity: EntryRow["severity"];
  high_risk: number;
  watchlist: number;
}

/** The stored rows a creator's score is computed from, besides the creator row itself. */
interface ScoreBasis {
  /** Oldest first, as the haystack lists the usernames. */
  connections: ConnectionRow[];
  vouches: number;
  deals: number;
  reviews: { n: number; sum: number | null };
  /** Active entries naming the creator or one of its connections, each once. */
  penalties: PenaltyRow[];
}

/**
 * From this many creators awaiting recomputation at the end of a bulk write, their inputs are read
 * with one grouped query per table instead of five look-ups per creator: at 100k imported
 * creators about 2 s instead of 10 s (measured on the 1M-entry bench data set).
 */
const RECOMPUTE_TOGETHER_FROM = 1_000;

/**
 * Creators recomputed per transaction by the daily refresh: 100 held the request thread for up to
 * 36 ms of CPU at 100k creators and 1M entries (bench data set, 2-core bench machine).
 */
const REFRESH_SLICE_CREATORS = 50;

export class CreatorsService {
  private readonly sqlite: Database;
  private readonly byHandle: Statement<CreatorRow, [string]>;
  private readonly byId: Statement<CreatorRow, [string]>;
  private readonly insertCreator: Statement;
  private readonly updateProfile: Statement;
  private readonly connectionByAccount: Statement<ConnectionRow, [string, string]>;
  private readonly connectionsOf: Statement<ConnectionRow, [string]>;
  private readonly insertConnection: Statement;
  private readonly updateConnection: Statement;
  private readonly deleteConnection: Statement;
  private readonly countVouches: Statement<{ n: number }, [string]>;
  private readonly countDeals: Statement<{ n: number }, [string]>;
  private readonly reviewTotals: Statement<{ n: number; sum: number | null }, [string]>;
  private readonly penaltyRows: Statement<PenaltyRow, [string, string, number]>;
  private readonly creatorsNamedBy: Statement<{ id: string }, [string, string, string]>;
  private readonly creatorsNamedSince: Statement<{ id: string }, [number]>;
  private readonly writeTrust: Statement;
  private readonly writeSnapshot: Statement;
  private readonly snapshotOnOrBefore: Statement<{ score: number }, [string, string]>;
  private readonly oldestSnapshot: Statement<{ score: number }, [string]>;
  private readonly changeListeners: Array<(creatorId: string) => void> = [];
  /** Creators whose score awaits recomputation at the end of a bulk write (an import). */
  private deferred: Set<string> | null = null;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly outbox: Outbox,
    blacklist: BlacklistService,
    private readonly baseUrl: string,
  ) {
    const db = (this.sqlite = store.sqlite);
    this.byHandle = db.prepare("SELECT rowid, * FROM creators WHERE handle = ?");
    this.byId = db.prepare("SELECT rowid, * FROM creators WHERE id = ?");
    this.insertCreator = db.prepare(
      `INSERT INTO creators (id, handle, display_name, verification_level, karma, joined_at, avatar_r2_key, created_at,
         updated_at, trust_computed_at, search_text)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?8, ?2)`,
    );
    this.updateProfile = db.prepare(
      `UPDATE creators SET display_name = ?2, verification_level = ?3, karma = ?4, joined_at = ?5, avatar_r2_key = ?6,
         updated_at = ?7 WHERE id = ?1`,
    );
    this.connectionByAccount = db.prepare("SELECT * FROM connections WHERE provider = ? AND provider_user_id = ?");
    this.connectionsOf = db.prepare("SELECT * FROM connections WHERE creator_id = ? ORDER BY created_at, id");
    this.insertConnection = db.prepare(
      `INSERT INTO connections (creator_id, provider, provider_user_id, provider_username, provider_url, verified_at, public, created_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (provider, provider_user_id) DO NOTHING`,
    );
    this.updateConnection = db.prepare(
      "UPDATE connections SET provider_username = ?2, provider_url = ?3, verified_at = ?4, public = ?5 WHERE id = ?1",
    );
    this.deleteConnection = db.prepare("DELETE FROM connections WHERE id = ?");
    this.countVouches = db.prepare("SELECT count(*) AS n FROM vouches WHERE to_creator_id = ?");
    this.countDeals = db.prepare(
      `SELECT (SELECT count(*) FROM deals WHERE from_creator_id = ?1 AND status = 'completed')
            + (SELECT count(*) FROM deals WHERE to_creator_id = ?1 AND status = 'completed') AS n`,
    );
    this.reviewTotals = db.prepare("SELECT count(*) AS n, sum(rating) AS sum FROM reviews WHERE to_creator_id = ?");
    // Active rows naming the creator directly or through any of its connections, each row once.
    this.penaltyRows = db.prepare(
      `SELECT id, severity, high_risk, watchlist FROM blacklist_entries INDEXED BY blacklist_creator_idx
       WHERE creator_handle = ?1 AND status = 'active' AND (expires_at IS NULL OR expires_at > ?3)
       UNION
       SELECT e.id, e.severity, e.high_risk, e.watchlist
       FROM connections c JOIN blacklist_entries e ON e.provider = c.provider AND e.provider_user_id = c.provider_user_id
       WHERE c.creator_id = ?2 AND e.status = 'active' AND (e.expires_at IS NULL OR e.expires_at > ?3)`,
    );
    this.creatorsNamedBy = db.prepare(
      `SELECT id FROM creators WHERE handle = ?1
       UNION SELECT creator_id FROM connections WHERE provider = ?2 AND provider_user_id = ?3`,
    );
    // Connections are fewer than a bulk write's entries: each is looked up in the subject index.
    this.creatorsNamedSince = db.prepare(
      `SELECT id FROM creators WHERE handle IN (
         SELECT creator_handle FROM blacklist_entries WHERE rowid > ?1 AND status = 'active' AND creator_handle IS NOT NULL)
       UNION
       SELECT c.creator_id FROM connections c WHERE EXISTS (
         SELECT 1 FROM blacklist_entries e
         WHERE e.provider = c.provider AND e.provider_user_id = c.provider_user_id AND e.rowid > ?1 AND e.status = 'active')`,
    );
    this.writeTrust = db.prepare(
      `UPDATE creators SET trust_score = ?2, trust_band = ?3, blacklisted = ?4, trust_computed_at = ?5, linked_accounts = ?6,
         verified_connections = ?7, vouch_count = ?8, deal_count = ?9, review_count = ?10, review_sum = ?11,
         search_text = ?12, platforms = ?13
       WHERE id = ?1`,
    );
    this.writeSnapshot = db.prepare(
      `INSERT INTO trust_snapshots (creator_id, day, score) VALUES (?1, ?2, ?3)
       ON CONFLICT (creator_id, day) DO UPDATE SET score = excluded.score`,
    );
    this.snapshotOnOrBefore = db.prepare(
      "SELECT score FROM trust_snapshots WHERE creator_id = ? AND day <= ? ORDER BY day DESC LIMIT 1",
    );
    this.oldestSnapshot = db.prepare("SELECT score FROM trust_snapshots WHERE creator_id = ? ORDER BY day LIMIT 1");
    blacklist.onEntryChange((row, change, emit) => this.afterEntryChange(row, change, emit));
    blacklist.onBulkEntries((afterRowid) => this.afterBulkEntries(afterRowid));
  }

  /**
   * Told, inside the writing transaction, about every creator whose row was rewritten; listeners
   * must only take note (the transaction may still roll back) and read the row later.
   */
  onChange(listener: (creatorId: string) => void): void {
    this.changeListeners.push(listener);
  }

  // ---- reads ------------------------------------------------------------------------------

  /** The stored creator row; the sync form serves hot keyless paths (badge, public trust). */
  findNow(rawHandle: string): CreatorRow | null {
    const handle = normalizeHandle(rawHandle);
    return handle === null ? null : this.byHandle.get(handle);
  }

  async find(rawHandle: string): Promise<CreatorRow | null> {
    return this.findNow(rawHandle);
  }

  async findById(id: string): Promise<CreatorRow | null> {
    return this.byId.get(id);
  }

  private async require(rawHandle: string): Promise<CreatorRow> {
    const row = this.findNow(rawHandle);
    if (!row) throw creatorNotFound(rawHandle);
    return row;
  }

  profileUrl(handle: string): string {
    return `${this.baseUrl}/u/${handle}`;
  }

  toProfile(row: CreatorRow): CreatorProfile {
    return {
      handle: row.handle,
      display_name: row.display_name,
      verification_level: row.verification_level,
      verification_label: verificationLabel(row.verification_level),
      karma: row.karma,
      trust_score: row.trust_score,
      trust_band: row.trust_band,
      reviews: reviewsSummary(row.review_count, row.review_sum),
      completed_deals: row.deal_count,
      linked_accounts: row.linked_accounts,
      blacklisted: !!row.blacklisted,
      joined_at: iso(row.joined_at),
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
      trust_score: row.trust_score,
      band: row.trust_band,
      trend: await this.trend(row),
      blacklisted: !!row.blacklisted,
      basis: {
        verification_level: row.verification_level,
        verification_label: verificationLabel(row.verification_level),
        // As of the computation, so the basis is exactly what produced the score.
        account_age_days: accountAgeDays(row.joined_at, row.trust_computed_at),
        linked_accounts: row.linked_accounts,
        completed_deals: row.deal_count,
        reviews: reviewsSummary(row.review_count, row.review_sum),
      },
      computed_at: iso(row.trust_computed_at),
    };
  }

  async trend(row: CreatorRow): Promise<TrustTrend> {
    const windowStart = utcDay(this.clock.now() - 30 * DAY_MS);
    const from = this.snapshotOnOrBefore.get(row.id, windowStart) ?? this.oldestSnapshot.get(row.id);
    return trustTrend(row.trust_score, from ? from.score : null);
  }

  /** Public connections, oldest first. */
  async connections(rawHandle: string): Promise<PublicConnection[]> {
    const row = await this.require(rawHandle);
    return this.connectionsOf
      .all(row.id)
      .filter((c) => c.public)
      .map((c) => ({
        provider: c.provider,
        provider_username: c.provider_username,
        provider_url: c.provider_url,
        verified_at: iso(c.verified_at),
      }));
  }

  // ---- writes -----------------------------------------------------------------------------

  /** Creates or updates a creator's profile fields; `created` tells which. */
  async upsert(rawHandle: string, input: CreatorInput): Promise<{ created: boolean; profile: CreatorProfile }> {
    const handle = requireHandle(rawHandle);
    const now = this.clock.now();
    const created = await this.store.write(() => this.upsertNow(handle, input, now));
    return { created, profile: this.toProfile(this.byHandle.get(handle)!) };
  }

  /** The upsert inside the caller's transaction (import shares it). */
  upsertNow(handle: string, input: CreatorInput, now: number, id?: string): boolean {
    const joinedAt = input.joined_at !== undefined ? parseTime(input.joined_at, "joined_at") : undefined;
    if (joinedAt !== undefined && joinedAt > now + 5 * 60_000) throw unprocessable("joined_at must not be in the future.");
    const existing = this.byHandle.get(handle);
    if (!existing) {
      const creatorId = id ?? newId("crt", now);
      this.insertCreator.run(
        creatorId,
        handle,
        cleanText(input.display_name),
        input.verification_level ?? 0,
        input.karma ?? 0,
        joinedAt ?? now,
        input.avatar_r2_key ?? null,
        now,
      );
      this.recompute(creatorId, now, true);
      return true;
    }
    this.updateProfile.run(
      existing.id,
      input.display_name !== undefined ? cleanText(input.display_name) : existing.display_name,
      input.verification_level ?? existing.verification_level,
      input.karma ?? existing.karma,
      joinedAt ?? existing.joined_at,
      input.avatar_r2_key !== undefined ? input.avatar_r2_key : existing.avatar_r2_key,
      now,
    );
    this.recompute(existing.id, now, true);
    return false;
  }

  /**
   * Links a platform account to a creator, or updates the link when it is already this
   * creator's. An account linked to another creator is a conflict.
   */
  async link(rawHandle: string, input: ConnectionInput): Promise<{ created: boolean; connection: ConnectionRow }> {
    const now = this.clock.now();
    return this.store.write(() => {
      const creator = this.byHandle.get(requireHandle(rawHandle));
      if (!creator) throw creatorNotFound(rawHandle);
      const { created, accountId } = this.linkNow(creator, input, now);
      return { created, connection: this.connectionByAccount.get(input.provider, accountId)! };
    });
  }

  /**
   * The link inside the caller's transaction (import shares it, and does not read the row back:
   * 300k connections of the bench data set spent about a third of their time doing so).
   */
  linkNow(creator: Pick<CreatorRow, "id">, input: ConnectionInput, now: number): { created: boolean; accountId: string } {
    if (!isProvider(input.provider)) throw unprocessable(`Unknown provider '${String(input.provider).slice(0, 32)}'.`);
    const accountId = normalizeAccountId(input.provider, String(input.provider_user_id ?? ""));
    if (accountId === null) {
      throw unprocessable(`'${String(input.provider_user_id).slice(0, 64)}' is not a valid ${input.provider} user id.`);
    }
    const verifiedAt = input.verified_at != null ? parseTime(input.verified_at, "verified_at") : null;
    if (input.provider_url != null && !isHttpUrl(input.provider_url)) throw unprocessable("provider_url must be an http(s) URL.");
    const username = cleanText(input.provider_username);
    const isPublic = input.public === false ? 0 : 1;
    // The insert comes first and yields to a stored link: a new account (every line of a fresh
    // import) costs one statement instead of a look-up and an insert.
    const inserted = this.insertConnection.run(creator.id, input.provider, accountId, username, input.provider_url ?? null, verifiedAt, isPublic, now);
    const existing = inserted.changes === 0 ? this.connectionByAccount.get(input.provider, accountId) : null;
    if (existing && existing.creator_id !== creator.id) {
      throw conflict(`This ${input.provider} account is already linked to another creator.`);
    }
    if (existing) {
      this.updateConnection.run(
        existing.id,
        input.provider_username !== undefined ? username : existing.provider_username,
        input.provider_url !== undefined ? input.provider_url : existing.provider_url,
        input.verified_at !== undefined ? verifiedAt : existing.verified_at,
        input.public !== undefined ? isPublic : existing.public,
      );
    }
    this.recompute(creator.id, now, true);
    return { created: !existing, accountId };
  }

  /** Unlinks a platform account from a creator; the score is recomputed without it. */
  async unlink(rawHandle: string, provider: string, rawAccountId: string): Promise<ConnectionRow> {
    const now = this.clock.now();
    return this.store.write(() => {
      const creator = this.byHandle.get(requireHandle(rawHandle));
      if (!creator) throw creatorNotFound(rawHandle);
      const accountId = isProvider(provider) ? normalizeAccountId(provider, rawAccountId) : null;
      const existing = accountId === null ? null : this.connectionByAccount.get(provider, accountId);
      if (!existing || existing.creator_id !== creator.id) throw notFound(`${creator.handle} has no such linked ${provider} account.`);
      this.deleteConnection.run(existing.id);
      this.recompute(creator.id, now, true);
      return existing;
    });
  }

  // ---- the score ------------------------------------------------------------------------------

  /**
   * Recomputes one creator's score, counters and search text from the live rows and records
   * today's snapshot. The caller holds the transaction. Inside a bulk write the work waits for
   * `endBulk`. A creator who becomes blacklisted emits `creator.blacklisted` when `emit`.
   */
  recompute(creatorId: string, now: number, emit: boolean): void {
    if (this.deferred) {
      this.deferred.add(creatorId);
      return;
    }
    const row = this.byId.get(creatorId);
    if (!row) return;
    this.applyScore(
      row,
      {
        connections: this.connectionsOf.all(creatorId),
        vouches: this.countVouches.get(creatorId)!.n,
        deals: this.countDeals.get(creatorId)!.n,
        reviews: this.reviewTotals.get(creatorId)!,
        penalties: this.penaltyRows.all(row.handle, creatorId, now),
      },
      now,
      emit,
    );
  }

  /** Computes and stores one creator's score, counters, search text and today's snapshot. */
  private applyScore(row: CreatorRow, basis: ScoreBasis, now: number, emit: boolean): void {
    const creatorId = row.id;
    const visible = basis.connections.filter((c) => c.public);
    const verified = visible.filter((c) => c.verified_at !== null).length;
    const vouchCount = basis.vouches;
    const dealCount = basis.deals;
    const reviews = basis.reviews;
    let warns = 0;
    let restricts = 0;
    let flagged = false;
    let banEntry: string | null = null;
    for (const hit of basis.penalties) {
      if (hit.high_risk || hit.watchlist) flagged = true;
      if (hit.watchlist) continue;
      if (hit.severity === "ban") banEntry ??= hit.id;
      else if (hit.severity === "restrict") restricts++;
      else warns++;
    }
    const blacklisted = banEntry !== null;
    const { score, band } = computeTrust({
      verificationLevel: row.verification_level,
      accountAgeDays: accountAgeDays(row.joined_at, now),
      verifiedPublicConnections: verified,
      completedDeals: dealCount,
      reviewCount: reviews.n,
      reviewAverage: reviews.n > 0 ? (reviews.sum ?? 0) / reviews.n : null,
      vouchesReceived: vouchCount,
      coursesPassed: row.courses_passed,
      activeWarns: warns,
      activeRestricts: restricts,
      flagged,
      blacklisted,
    });
    const searchText = [row.handle, row.display_name ?? "", ...visible.map((c) => c.provider_username ?? "")]
      .filter((part) => part !== "")
      .join(" ")
      .toLowerCase();
    const platforms = [...new Set(visible.map((c) => c.provider))].sort().join(",");
    this.writeTrust.run(
      creatorId,
      score,
      band,
      blacklisted ? 1 : 0,
      now,
      visible.length,
      verified,
      vouchCount,
      dealCount,
      reviews.n,
      reviews.sum ?? 0,
      searchText,
      platforms,
    );
    this.writeSnapshot.run(creatorId, utcDay(now), score);
    for (const listener of this.changeListeners) listener(creatorId);
    if (emit && blacklisted && !row.blacklisted) {
      this.outbox.write("creator.blacklisted", { creator_id: creatorId, handle: row.handle, entry_id: banEntry }, now);
    }
  }

  /** Recomputes the creators an entry names, in the entry's transaction. */
  private afterEntryChange(row: EntryRow, _change: ChangeType, emit: boolean) {
    const now = this.clock.now();
    for (const { id } of this.creatorsNamedBy.all(row.creator_handle ?? "", row.provider, row.provider_user_id)) {
      this.recompute(id, now, emit);
    }
  }

  /** A bulk write stored entries past `afterRowid`: the creators they name await recomputation. */
  private afterBulkEntries(afterRowid: number) {
    for (const { id } of this.creatorsNamedSince.all(afterRowid)) this.recompute(id, this.clock.now(), false);
  }

  /** Defers recomputation until `endBulk`, so an import computes each creator once. */
  beginBulk(): void {
    this.deferred = new Set();
  }

  /** Recomputes every creator touched since `beginBulk`, inside the caller's transaction. */
  endBulk(): number {
    const pending = this.deferred;
    this.deferred = null;
    if (!pending) return 0;
    const now = this.clock.now();
    if (pending.size < RECOMPUTE_TOGETHER_FROM) {
      for (const id of pending) this.recompute(id, now, false);
      return pending.size;
    }
    const basis = this.everyScoreBasis(now);
    const none: ScoreBasis = { connections: [], vouches: 0, deals: 0, reviews: { n: 0, sum: null }, penalties: [] };
    // Read whole before writing: the writes update the table being read.
    for (const row of this.sqlite.query<CreatorRow, []>("SELECT rowid, * FROM creators").all()) {
      if (pending.has(row.id)) this.applyScore(row, basis.get(row.id) ?? none, now, false);
    }
    return pending.size;
  }

  /**
   * Every creator's score basis in one grouped query per table: the same rows `recompute` reads
   * for one creator (connections in the same order, penalties deduplicated per creator as its
   * UNION does).
   */
  private everyScoreBasis(now: number): Map<string, ScoreBasis> {
    const all = new Map<string, ScoreBasis>();
    const of = (id: string) => {
      let basis = all.get(id);
      if (!basis) all.set(id, (basis = { connections: [], vouches: 0, deals: 0, reviews: { n: 0, sum: null }, penalties: [] }));
      return basis;
    };
    const db = this.sqlite;
    for (const c of db.query<ConnectionRow, []>("SELECT * FROM connections ORDER BY creator_id, created_at, id").iterate()) {
      of(c.creator_id).connections.push(c);
    }
    for (const v of db.query<{ id: string; n: number }, []>("SELECT to_creator_id AS id, count(*) AS n FROM vouches GROUP BY to_creator_id").iterate()) {
      of(v.id).vouches = v.n;
    }
    const deals = db.query<{ id: string; n: number }, []>(
      `SELECT from_creator_id AS id, count(*) AS n FROM deals WHERE status = 'completed' GROUP BY from_creator_id
       UNION ALL
       SELECT to_creator_id AS id, count(*) AS n FROM deals WHERE status = 'completed' GROUP BY to_creator_id`,
    );
    for (const d of deals.iterate()) of(d.id).deals += d.n;
    const reviews = db.query<{ id: string; n: number; sum: number | null }, []>(
      "SELECT to_creator_id AS id, count(*) AS n, sum(rating) AS sum FROM reviews GROUP BY to_creator_id",
    );
    for (const r of reviews.iterate()) of(r.id).reviews = { n: r.n, sum: r.sum };
    const penalties = db.query<PenaltyRow & { creator_id: string }, [number]>(
      `SELECT c.id AS creator_id, e.id, e.severity, e.high_risk, e.watchlist
       FROM creators c JOIN blacklist_entries e INDEXED BY blacklist_creator_idx ON e.creator_handle = c.handle
       WHERE e.status = 'active' AND (e.expires_at IS NULL OR e.expires_at > ?1)
       UNION
       SELECT c.creator_id, e.id, e.severity, e.high_risk, e.watchlist
       FROM connections c JOIN blacklist_entries e ON e.provider = c.provider AND e.provider_user_id = c.provider_user_id
       WHERE e.status = 'active' AND (e.expires_at IS NULL OR e.expires_at > ?1)`,
    );
    for (const p of penalties.iterate(now)) of(p.creator_id).penalties.push(p);
    return all;
  }

  /** Leaves bulk mode without recomputing (the bulk write was rolled back). */
  abandonBulk(): void {
    this.deferred = null;
  }

  /**
   * The daily job (00:05 UTC): recompute every creator (account age moves the score without any
   * write) and record the day's snapshot. Works in batches so requests are served in between.
   */
  async refreshAll(batch = REFRESH_SLICE_CREATORS): Promise<number> {
    const ids = this.sqlite.query<{ id: string }, [string, number]>("SELECT id FROM creators WHERE id > ? ORDER BY id LIMIT ?");
    let after = "";
    let total = 0;
    for (;;) {
      const page = ids.all(after, batch);
      if (page.length === 0) return total;
      const now = this.clock.now();
      await this.store.write(() => {
        for (const { id } of page) this.recompute(id, now, true);
      });
      total += page.length;
      after = page[page.length - 1]!.id;
      await yieldToRequests();
    }
  }
}

/** 404 for a handle no creator has; the handle is shown as given, shortened. */
export function creatorNotFound(rawHandle: string, role?: string) {
  return notFound(`No creator '${rawHandle.replace(/^@/, "").slice(0, 40)}'${role ? ` (${role})` : ""}.`);
}

export function accountAgeDays(joinedAt: number, at: number): number {
  return Math.max(0, Math.floor((at - joinedAt) / DAY_MS));
}
