// Appeals (docs/moderation.md, "Appeals"): the listed person is heard about one entry. A bot files
// for the platform account it talks to, or a signed-in creator for an entry naming them or one of
// their linked accounts (public or private). One open appeal per entry, none within 30 days of the
// entry's last decided one. A moderator decides: `upheld` changes nothing, `removed` overturns the
// entry, `downgraded` overturns it and issues an entry of lower severity that `supersedes` it; each
// one transaction with the entry's change-feed row, its webhook events, the creator's Trust Score
// (through the blacklist's listeners) and the audit events. Whoever filed reads status and the
// public note only; the statement, who filed and the entry's private fields are for staff. This
// module owns `appeals`.
import { type Clock, iso } from "../../clock";
import type { CursorCodec } from "../../cursor";
import type { Database } from "../../db/database";
import { UniqueViolation } from "../../db/errors";
import { SEVERITIES, type Severity } from "../../domain";
import { conflict, notFound, rateLimited, ServiceError, unprocessable } from "../../errors";
import { newId } from "../../ids";
import { cleanLines } from "../../values";
import { type Actor, type AuditLog, accountSubject, actorText } from "../audit/service";
import { type BlacklistService, type EntryRow, isProvider, normalizeAccountId, toPublicEntry, toStaffEntry } from "../blacklist/service";
import type { CreatorRow, CreatorsService } from "../creators/service";
import type { Viewer } from "../sessions/service";
import type { Appeal, AppealPage, AppealQueueQuery, DecideAppealBody, MeAppealBody, MyAppealsQuery, MyEntries, PartnerAppealBody, StaffAppeal, StaffAppealPage } from "./model";
import { type AppealPosition, type AppealRow, type AppealsStore, createAppealsStore } from "./store";

/** How long after a decided appeal the same entry may be appealed again. */
export const APPEAL_COOLDOWN_MS = 30 * 86_400_000;

type AppealView = typeof Appeal.static;
type StaffAppealView = typeof StaffAppeal.static;

/** The key a bot files with: its id and its account's. */
export interface FilingKey {
  keyId: string;
  accountId: string;
}

/** One answer for an unknown entry and for one that names someone else: nobody learns whether another account is listed. */
const NO_SUCH_ENTRY = (id: string) => notFound(`No entry ${id} names this account.`);

/** An appeal as whoever filed it reads it. */
export function toAppeal(row: AppealRow): AppealView {
  const appeal: AppealView = { id: row.id, entry_id: row.entryId, status: row.status, created_at: iso(row.createdAt) };
  if (row.outcome !== null) appeal.outcome = row.outcome;
  if (row.note !== null) appeal.note = row.note;
  if (row.newEntryId !== null) appeal.superseded_by = row.newEntryId;
  if (row.decidedAt !== null) appeal.decided_at = iso(row.decidedAt);
  return appeal;
}

/** Whether an entry still stands: active, confirmed (not a watchlist row) and not lapsed at `now`. */
function stands(entry: EntryRow, now: number): boolean {
  return entry.status === "active" && !entry.watchlist && (entry.expiresAt === null || entry.expiresAt > now);
}

export class AppealsService {
  private readonly store: AppealsStore;

  constructor(
    database: Database,
    private readonly clock: Clock,
    private readonly cursors: CursorCodec,
    private readonly blacklist: BlacklistService,
    private readonly creators: CreatorsService,
    private readonly audit: AuditLog,
  ) {
    this.store = createAppealsStore(database);
  }

  // Filing.

  /** A bot's appeal for the platform account it talks to: the entry must name that account. */
  async fileForAccount(key: FilingKey, body: typeof PartnerAppealBody.static): Promise<AppealView> {
    const statement = cleanLines(body.statement, "statement");
    const accountId = isProvider(body.provider) ? normalizeAccountId(body.provider, body.provider_user_id) : null;
    const entry = await this.blacklist.entryRow(body.entry_id);
    if (!entry || accountId === null || entry.provider !== body.provider || entry.providerUserId !== accountId) throw NO_SUCH_ENTRY(body.entry_id);
    return this.file(entry, statement, { kind: "key", id: key.keyId }, {
      filedByKind: "key",
      filedBy: key.accountId,
      relayedBy: key.keyId,
      provider: entry.provider,
      providerUserId: entry.providerUserId,
    });
  }

  /** A signed-in creator's appeal: the entry must name them, or one of their linked accounts (public or private). */
  async fileForCreator(viewer: Viewer, body: typeof MeAppealBody.static): Promise<AppealView> {
    const statement = cleanLines(body.statement, "statement");
    const entry = await this.blacklist.entryRow(body.entry_id);
    if (!entry || !(await this.namesCreator(entry, viewer.creatorId))) throw NO_SUCH_ENTRY(body.entry_id);
    return this.file(entry, statement, { kind: "creator", id: viewer.handle }, {
      filedByKind: "creator",
      filedBy: viewer.creatorId,
      relayedBy: null,
      provider: null,
      providerUserId: null,
    });
  }

  private async namesCreator(entry: EntryRow, creatorId: string): Promise<boolean> {
    return (await this.creators.store.creatorsNamedBy(entry.creatorHandle ?? "", entry.provider, entry.providerUserId)).includes(creatorId);
  }

  private async file(
    entry: EntryRow,
    statement: string,
    actor: Actor,
    filer: Pick<AppealRow, "filedByKind" | "filedBy" | "relayedBy" | "provider" | "providerUserId">,
  ): Promise<AppealView> {
    const now = this.clock.now();
    if (!entry.appealable) throw new ServiceError("not_appealable", `Entry ${entry.id} is not appealable.`);
    if (!stands(entry, now)) throw conflict(`Entry ${entry.id} is no longer active: there is nothing to appeal.`);
    const row: AppealRow = {
      id: newId("apl", now),
      entryId: entry.id,
      status: "open",
      statement,
      ...filer,
      outcome: null,
      note: null,
      severity: null,
      newEntryId: null,
      decidedBy: null,
      createdAt: now,
      decidedAt: null,
    };
    await this.store.transaction(async () => {
      if (await this.store.openOn(entry.id)) throw conflict(`Entry ${entry.id} already has an open appeal; wait for its decision.`);
      const decidedAt = await this.store.lastDecidedAt(entry.id);
      if (decidedAt !== null && now < decidedAt + APPEAL_COOLDOWN_MS) {
        const wait = (decidedAt + APPEAL_COOLDOWN_MS - now) / 1000;
        throw rateLimited(`An appeal of entry ${entry.id} was decided on ${iso(decidedAt)}; it may be appealed again 30 days after that.`, wait);
      }
      try {
        await this.store.insert(row);
      } catch (error) {
        // Another filing on the same entry committed between the check and this insert.
        if (error instanceof UniqueViolation) throw conflict(`Entry ${entry.id} already has an open appeal; wait for its decision.`);
        throw error;
      }
      await this.audit.record(
        actor,
        "appeal.filed",
        { entryId: entry.id, appealId: row.id, subject: accountSubject(entry.provider, entry.providerUserId) },
        { filed_by: { kind: row.filedByKind, id: row.filedBy }, statement },
        now,
      );
    });
    return toAppeal(row);
  }

  // Reads of whoever filed.

  /** An appeal a key of `accountId` filed; 404 for any other. */
  async forAccount(accountId: string, id: string): Promise<AppealView> {
    const row = await this.store.byId(id);
    if (!row || row.filedByKind !== "key" || row.filedBy !== accountId) throw notFound(`No appeal ${id} filed by this account.`);
    return toAppeal(row);
  }

  /** The signed-in creator's own appeals, newest first. */
  async mine(viewer: Viewer, query: typeof MyAppealsQuery.static): Promise<typeof AppealPage.static> {
    const limit = query.limit ?? 20;
    const before = this.position(query.cursor, `me:${viewer.creatorId}`);
    const rows = await this.store.filedBy("creator", viewer.creatorId, before, limit + 1);
    return this.page(rows, limit, `me:${viewer.creatorId}`, toAppeal);
  }

  /**
   * The confirmed entries that stand against the signed-in creator (naming them, or any of their
   * linked accounts), newest first: the entries they may appeal. Each in its public view: which
   * account it names, its private note and who reported stay with staff.
   */
  async entriesNaming(viewer: Viewer): Promise<typeof MyEntries.static> {
    const now = this.clock.now();
    const basis = await this.creators.store.scoreBasis({ id: viewer.creatorId, handle: viewer.handle }, now);
    const rows: EntryRow[] = [];
    for (const penalty of basis.penalties) {
      const entry = penalty.watchlist ? null : await this.blacklist.entryRow(penalty.id);
      if (entry && stands(entry, now)) rows.push(entry);
    }
    rows.sort((a, b) => b.issuedAt - a.issuedAt || (a.id < b.id ? 1 : -1));
    const data = [];
    for (const entry of rows) data.push({ entry: toPublicEntry(entry), open_appeal: (await this.store.openOn(entry.id))?.id ?? null });
    return { data };
  }

  // Staff.

  /** Appeals of one status: open ones oldest first (the queue), decided ones newest first. */
  async queue(query: typeof AppealQueueQuery.static): Promise<typeof StaffAppealPage.static> {
    const status = query.status ?? "open";
    const limit = query.limit ?? 50;
    const rows = await this.store.queue(status, this.position(query.cursor, `queue:${status}`), limit + 1);
    const page = this.page(rows, limit, `queue:${status}`, (row) => row);
    return { ...page, data: await Promise.all(page.data.map((row) => this.staffView(row))) };
  }

  async staffAppeal(id: string): Promise<StaffAppealView> {
    const row = await this.store.byId(id);
    if (!row) throw notFound(`No appeal ${id}.`);
    return this.staffView(row);
  }

  /**
   * A moderator's decision, in one transaction with everything it causes. A downgrade needs a
   * severity below the entry's; a removal or downgrade of an entry that no longer stands (it
   * expired or was overturned meanwhile) changes no entry: a removal is recorded as decided, a
   * downgrade is refused.
   */
  async decide(id: string, body: typeof DecideAppealBody.static, actor: Actor): Promise<StaffAppealView> {
    const note = cleanLines(body.note, "note");
    if (body.outcome === "downgraded" && body.severity === undefined) throw unprocessable("A downgrade names the new severity (warn or restrict).");
    if (body.outcome !== "downgraded" && body.severity !== undefined) throw unprocessable("Only a downgrade takes a severity.");
    const decided = await this.blacklist.transaction(async () => {
      const now = this.clock.now();
      const row = await this.store.lockById(id);
      if (!row) throw notFound(`No appeal ${id}.`);
      if (row.status !== "open") throw conflict(`Appeal ${id} was already decided (${row.outcome}).`);
      const entry = await this.blacklist.entryRow(row.entryId);
      if (!entry) throw notFound(`The entry ${row.entryId} of appeal ${id} no longer exists.`);
      const active = stands(entry, now);
      let newEntryId: string | null = null;
      if (body.outcome === "downgraded") {
        const severity = body.severity as Severity;
        if (SEVERITIES.indexOf(severity) >= SEVERITIES.indexOf(entry.severity)) {
          throw unprocessable(`A downgrade lowers the severity: entry ${entry.id} is ${entry.severity}, so ${severity} is not lower (ban > restrict > warn).`);
        }
        if (!active) throw conflict(`Entry ${entry.id} is no longer active: decide the appeal upheld or removed.`);
        await this.blacklist.overturn(entry.id, `appeal ${id}: downgraded`, actor, { appealId: id });
        const replacement = await this.blacklist.add(
          {
            provider: entry.provider,
            provider_user_id: entry.providerUserId,
            username: entry.username,
            severity,
            scope: entry.scope,
            vertical: entry.vertical,
            reason_code: entry.reasonCode,
            summary: entry.summary,
            expires_at: entry.expiresAt === null ? null : iso(entry.expiresAt),
            appealable: !!entry.appealable,
            high_risk: !!entry.highRisk,
            creator: entry.creatorHandle,
            evidence: entry.evidence,
            supersedes: entry.id,
          },
          actor,
          { appealId: id },
        );
        newEntryId = replacement.id;
      } else if (body.outcome === "removed" && active) {
        await this.blacklist.overturn(entry.id, `appeal ${id}: removed`, actor, { appealId: id });
      }
      const decision = {
        outcome: body.outcome,
        note,
        severity: body.outcome === "downgraded" ? (body.severity as Severity) : null,
        newEntryId,
        decidedBy: actorText(actor),
        decidedAt: now,
      };
      if (!(await this.store.markDecided(id, decision))) throw conflict(`Appeal ${id} was already decided.`);
      await this.audit.record(
        actor,
        "appeal.decided",
        { entryId: entry.id, appealId: id, subject: accountSubject(entry.provider, entry.providerUserId) },
        { outcome: body.outcome, note, severity: decision.severity, new_entry_id: newEntryId, entry_was_active: active },
        now,
      );
      return { ...row, status: "decided" as const, ...decision };
    });
    return this.staffView(decided);
  }

  private async staffView(row: AppealRow): Promise<StaffAppealView> {
    const entry = await this.blacklist.entryRow(row.entryId);
    const creator = row.filedByKind === "creator" ? await this.creators.findById(row.filedBy) : null;
    return {
      id: row.id,
      entry_id: row.entryId,
      status: row.status,
      outcome: row.outcome,
      note: row.note,
      severity: row.severity,
      superseded_by: row.newEntryId,
      statement: row.statement,
      filed_by: {
        kind: row.filedByKind,
        id: row.filedBy,
        key_id: row.relayedBy,
        handle: creator?.handle ?? null,
        provider: row.provider,
        provider_user_id: row.providerUserId,
      },
      decided_by: row.decidedBy,
      created_at: iso(row.createdAt),
      decided_at: row.decidedAt === null ? null : iso(row.decidedAt),
      entry: entry ? toStaffEntry(entry) : null,
    };
  }

  // Paging.

  private position(cursor: string | undefined, list: string): AppealPosition | null {
    if (cursor === undefined) return null;
    const position = this.cursors.decode(cursor);
    if (!position || position.k !== "appeals" || position.l !== list || typeof position.t !== "number" || typeof position.i !== "string") {
      throw new ServiceError("invalid_cursor", "The cursor is malformed or was not issued for this list.");
    }
    return { createdAt: position.t, id: position.i };
  }

  private page<T>(rows: AppealRow[], limit: number, list: string, view: (row: AppealRow) => T): { data: T[]; next_cursor: string | null; has_more: boolean } {
    const hasMore = rows.length > limit;
    const page = hasMore ? rows.slice(0, limit) : rows;
    const last = page[page.length - 1];
    return {
      data: page.map(view),
      next_cursor: hasMore && last ? this.cursors.encode({ k: "appeals", l: list, t: last.createdAt, i: last.id }) : null,
      has_more: hasMore,
    };
  }

  // What the public pages say.

  /**
   * Whether a confirmed ban that names the creator, and that they may appeal, stands now: the
   * public profile page then tells them how to appeal. It says nothing of which entry or account.
   */
  async appealableBan(creator: Pick<CreatorRow, "id" | "handle">): Promise<boolean> {
    const now = this.clock.now();
    const basis = await this.creators.store.scoreBasis(creator, now);
    for (const penalty of basis.penalties) {
      if (penalty.severity !== "ban" || penalty.watchlist) continue;
      const entry = await this.blacklist.entryRow(penalty.id);
      if (entry && entry.appealable && stands(entry, now)) return true;
    }
    return false;
  }
}
