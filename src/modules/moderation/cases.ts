// Cases as staff work them (docs/moderation.md, "Cases"): the queue, one case whole, and the
// actions. Each action is one transaction with its audit event; a decision or a watchlisting adds
// its entry through the blacklist's own path (change-feed row, webhook events, the creator's Trust
// Score) inside that same transaction, so a failure anywhere leaves the case open and no entry.
import { type Clock, iso } from "../../clock";
import type { CursorCodec } from "../../cursor";
import type { Provider, ReportOutcome } from "../../domain";
import { conflict, notFound, ServiceError, unprocessable } from "../../errors";
import { newId } from "../../ids";
import { cleanLines } from "../../values";
import { type Actor, type AuditLog, actorText } from "../audit/service";
import { type BlacklistService, type NewEntry, normalizeAccountId, toStaffEntry } from "../blacklist/service";
import type { CreatorsService } from "../creators/service";
import type { StaffService } from "../staff/service";
import type { AssignBody, CaseActionResult, CasePage, CaseQuery, CaseSummary, CaseView, CommentResult, DecideBody, MuteResult } from "./model";
import { toEvidence } from "./reports";
import type { CaseRow, ModerationStore, QueuedCase } from "./store";

type CaseSummaryView = typeof CaseSummary.static;
type ActionResult = typeof CaseActionResult.static;

function subjectOf(row: CaseRow): CaseSummaryView["subject"] {
  return { key: row.subjectKey, provider: row.provider, id: row.providerUserId, username: row.username, handle: row.creatorHandle };
}

export class ModerationCases {
  constructor(
    private readonly store: ModerationStore,
    private readonly clock: Clock,
    private readonly cursors: CursorCodec,
    private readonly blacklist: BlacklistService,
    private readonly creators: CreatorsService,
    private readonly staff: Pick<StaffService, "roleOf">,
    private readonly audit: AuditLog,
  ) {}

  /** Handles of the creators named, by id (a deleted one keeps its id). */
  private async handles(ids: Array<string | null>): Promise<Map<string, string>> {
    const handles = new Map<string, string>();
    for (const id of new Set(ids)) {
      if (id === null) continue;
      handles.set(id, (await this.creators.findById(id))?.handle ?? id);
    }
    return handles;
  }

  private summary(row: CaseRow, handles: Map<string, string>) {
    return {
      id: row.id,
      status: row.status,
      outcome: row.outcome,
      muted: !!row.muted,
      subject: subjectOf(row),
      assignee: row.assigneeId === null ? null : (handles.get(row.assigneeId) ?? row.assigneeId),
      entry_id: row.entryId,
      created_at: iso(row.createdAt),
      closed_at: iso(row.closedAt),
    };
  }

  /** One page of the queue: cases of one status (and assignee), oldest first. */
  async queue(query: typeof CaseQuery.static): Promise<typeof CasePage.static> {
    const status = query.status ?? "open";
    const limit = query.limit ?? 50;
    let assigneeId: string | null = null;
    if (query.assignee !== undefined) {
      const creator = await this.creators.find(query.assignee);
      // Nobody by that handle has cases.
      if (!creator) return { data: [], next_cursor: null, has_more: false };
      assigneeId = creator.id;
    }
    let after = null;
    if (query.cursor !== undefined) {
      const position = this.cursors.decode(query.cursor);
      if (!position || position.k !== "cases" || position.s !== status || (position.a ?? null) !== assigneeId || typeof position.t !== "number" || typeof position.i !== "string") {
        throw new ServiceError("invalid_cursor", "The cursor is malformed, was not issued by this server, or belongs to another status or assignee.");
      }
      after = { createdAt: position.t, id: position.i };
    }
    const rows: QueuedCase[] = await this.store.queue(status, assigneeId, after, limit + 1);
    const hasMore = rows.length > limit;
    const page = hasMore ? rows.slice(0, limit) : rows;
    const handles = await this.handles(page.map((r) => r.assigneeId));
    const last = page[page.length - 1];
    return {
      data: page.map((row) => ({ ...this.summary(row, handles), report_count: Number(row.reportCount) })),
      next_cursor:
        hasMore && last ? this.cursors.encode({ k: "cases", s: status, ...(assigneeId === null ? {} : { a: assigneeId }), t: last.createdAt, i: last.id }) : null,
      has_more: hasMore,
    };
  }

  private async caseOr404(id: string): Promise<CaseRow> {
    const row = await this.store.caseById(id);
    if (!row) throw notFound(`No case ${id.slice(0, 64)}.`);
    return row;
  }

  /** A case whole, as staff read it. */
  async view(id: string): Promise<typeof CaseView.static> {
    const row = await this.caseOr404(id);
    const [reports, evidence, comments, history] = await Promise.all([
      this.store.reportsOfCase(id),
      this.store.evidenceOfCase(id),
      this.store.commentsOf(id),
      this.audit.ofCase(id),
    ]);
    const entries =
      row.creatorHandle !== null
        ? await this.blacklist.entriesOf({ creatorHandle: row.creatorHandle })
        : await this.blacklist.entriesOf({ provider: row.provider as Provider, providerUserId: row.providerUserId! });
    const standing = await this.store.standing([...new Set(reports.map((r) => r.reporterId))]);
    const handles = await this.handles([row.assigneeId, ...reports.filter((r) => r.reporterKind === "creator").map((r) => r.reporterId)]);
    return {
      ...this.summary(row, handles),
      reports: reports.map((report) => ({
        id: report.id,
        reporter: {
          kind: report.reporterKind,
          id: report.reporterId,
          ...(report.reporterKind === "creator" ? { handle: handles.get(report.reporterId) ?? report.reporterId } : {}),
        },
        standing: standing.get(report.reporterId) ?? { filed: 0, upheld: 0, dismissed: 0 },
        reason_code: report.reasonCode,
        description: report.description,
        evidence_urls: JSON.parse(report.evidenceUrls) as string[],
        evidence: evidence.filter((e) => e.reportId === report.id).map((e) => ({ ...toEvidence(e), public: !!e.public })),
        status: report.status,
        outcome: report.outcome,
        created_at: iso(report.createdAt),
      })),
      comments: comments.map((c) => ({ id: c.id, author: `${c.authorKind}:${c.authorId}`, body: c.body, created_at: iso(c.createdAt) })),
      entries: entries.map(toStaffEntry),
      history,
    };
  }

  /**
   * Runs `change` on the open case `id` inside one transaction (the blacklist's, so a decision's
   * entry joins it), then saves the case: 404 for no case, 409 for a closed one.
   */
  private async act(id: string, change: (row: CaseRow, now: number) => Promise<void>): Promise<ActionResult> {
    const now = this.clock.now();
    const row = await this.blacklist.transaction(async () => {
      const row = await this.store.lockCase(id);
      if (!row) throw notFound(`No case ${id.slice(0, 64)}.`);
      if (row.status === "closed") throw conflict(`Case ${row.id} is closed (${row.outcome}).`);
      await change(row, now);
      row.updatedAt = now;
      await this.store.saveCase(row);
      return row;
    });
    const handles = await this.handles([row.assigneeId]);
    return { id: row.id, status: row.status, outcome: row.outcome, assignee: row.assigneeId === null ? null : (handles.get(row.assigneeId) ?? null), entry_id: row.entryId };
  }

  private refs(row: CaseRow) {
    return { caseId: row.id, subject: row.subjectKey };
  }

  async comment(id: string, text: string, actor: Actor): Promise<typeof CommentResult.static> {
    const body = cleanLines(text, "comment");
    const commentId = newId("cmt", this.clock.now());
    let at = 0;
    await this.act(id, async (row, now) => {
      at = now;
      await this.store.insertComment({ id: commentId, caseId: row.id, authorKind: actor.kind, authorId: actor.id, body, createdAt: now });
      await this.audit.record(actor, "case.commented", this.refs(row), { comment_id: commentId }, now);
    });
    return { id: commentId, case_id: id, created_at: iso(at) };
  }

  /** Assigns the case to a staff member by handle (422 for a creator without a role), or unassigns it. */
  async assign(id: string, body: typeof AssignBody.static, actor: Actor): Promise<ActionResult> {
    let assigneeId: string | null = null;
    if (body.handle !== null) {
      const creator = await this.creators.find(body.handle);
      if (!creator || (await this.staff.roleOf(creator.id)) === null) throw unprocessable(`@${body.handle.slice(0, 40)} is not staff: cases go to staff members.`);
      assigneeId = creator.id;
    }
    return this.act(id, async (row, now) => {
      const previous = row.assigneeId;
      row.assigneeId = assigneeId;
      const handles = await this.handles([previous]);
      await this.audit.record(actor, "case.assigned", this.refs(row), { assignee: body.handle === null ? null : body.handle, previous: previous === null ? null : handles.get(previous) }, now);
    });
  }

  async escalate(id: string, actor: Actor): Promise<ActionResult> {
    return this.act(id, async (row, now) => {
      if (row.status === "escalated") throw conflict(`Case ${row.id} is already escalated.`);
      row.status = "escalated";
      await this.audit.record(actor, "case.escalated", this.refs(row), {}, now);
    });
  }

  /** Closes the case and its open reports with `outcome`. */
  private async close(row: CaseRow, outcome: "dismissed" | "decided" | "watchlisted", reports: ReportOutcome, now: number): Promise<number> {
    row.status = "closed";
    row.outcome = outcome;
    row.closedAt = now;
    return this.store.closeOpenReports(row.id, reports, now);
  }

  async dismiss(id: string, reason: string, actor: Actor): Promise<ActionResult> {
    const why = cleanLines(reason, "reason");
    return this.act(id, async (row, now) => {
      const reports = await this.close(row, "dismissed", "dismissed", now);
      await this.audit.record(actor, "case.dismissed", this.refs(row), { reason: why, reports }, now);
    });
  }

  /**
   * The platform account an entry about the case's subject names: the subject's own, or for a
   * creator one of their linked accounts (`account`, or their oldest public link, else their oldest); 422 when a creator has
   * none, or `account` is not theirs.
   */
  private async accountFor(row: CaseRow, account?: { provider: Provider; id: string }): Promise<{ provider: Provider; id: string; username: string | null }> {
    if (row.creatorHandle === null) {
      if (account) throw unprocessable("`account` is for cases about a creator; this case names an account already.");
      return { provider: row.provider as Provider, id: row.providerUserId!, username: row.username };
    }
    const creator = await this.creators.find(row.creatorHandle);
    // Public links first: an entry on a privately linked account ties that account to the creator for anyone who checks it.
    const links = creator ? [...(await this.creators.store.connectionsOf(creator.id))].sort((a, b) => Number(b.public) - Number(a.public) || a.createdAt - b.createdAt) : [];
    if (links.length === 0) throw unprocessable(`@${row.creatorHandle} has no linked account: an entry names a platform account, so link one first or dismiss the case.`);
    if (!account) return { provider: links[0]!.provider as Provider, id: links[0]!.providerUserId, username: links[0]!.providerUsername };
    const wanted = normalizeAccountId(account.provider, account.id);
    const match = links.find((l) => l.provider === account.provider && l.providerUserId === wanted);
    if (!match) throw unprocessable(`${account.provider}:${account.id.slice(0, 64)} is not one of @${row.creatorHandle}'s linked accounts.`);
    return { provider: match.provider as Provider, id: match.providerUserId, username: match.providerUsername };
  }

  /** A moderator's decision: an entry through the blacklist's path, the reports upheld, chosen evidence public, the case closed. */
  async decide(id: string, body: typeof DecideBody.static, actor: Actor): Promise<ActionResult> {
    const row = await this.caseOr404(id);
    const account = await this.accountFor(row, body.account);
    const chosen = [...new Set(body.public_evidence ?? [])];
    if (chosen.length > 0) {
      const ofCase = new Set((await this.store.evidenceOfCase(id)).map((e) => e.id));
      const stranger = chosen.find((e) => !ofCase.has(e));
      if (stranger) throw unprocessable(`Evidence ${stranger.slice(0, 64)} is not a file of this case's reports.`);
    }
    const input: NewEntry = {
      provider: account.provider,
      provider_user_id: account.id,
      username: account.username,
      severity: body.severity,
      scope: body.scope,
      vertical: body.vertical,
      reason_code: body.reason_code,
      summary: cleanLines(body.summary, "summary"),
      expires_at: body.expires_at ?? null,
      appealable: body.appealable,
      creator: row.creatorHandle,
      evidence: body.private_note?.trim() ? body.private_note.trim() : null,
    };
    return this.act(id, async (locked, now) => {
      const entry = await this.blacklist.add(input, actor, { caseId: locked.id });
      locked.entryId = entry.id;
      const reports = await this.close(locked, "decided", "upheld", now);
      const published = await this.store.publishEvidence(chosen, locked.id, entry.id);
      await this.audit.record(actor, "case.decided", this.refs(locked), { entry_id: entry.id, severity: entry.severity, reports, public_evidence: chosen, published }, now);
    });
  }

  /** Records the reports as unconfirmed: a watchlist row (a hit that is never `banned`), the case closed. */
  async watchlist(id: string, summary: string, actor: Actor): Promise<ActionResult> {
    const row = await this.caseOr404(id);
    const account = await this.accountFor(row);
    const reports = await this.store.reportsOfCase(id);
    const input: NewEntry = {
      provider: account.provider,
      provider_user_id: account.id,
      username: account.username,
      severity: "warn",
      reason_code: reports[0]?.reasonCode ?? "watchlist",
      summary: cleanLines(summary, "summary"),
      appealable: false,
      watchlist: true,
      creator: row.creatorHandle,
    };
    return this.act(id, async (locked, now) => {
      const entry = await this.blacklist.add(input, actor, { caseId: locked.id });
      locked.entryId = entry.id;
      const closed = await this.close(locked, "watchlisted", "watchlisted", now);
      await this.audit.record(actor, "case.watchlisted", this.refs(locked), { entry_id: entry.id, reports: closed }, now);
    });
  }

  /** Mutes a reporter by the id a case shows: their later reports are closed at once. 404 for an id no report names. */
  async mute(reporterId: string, actor: Actor): Promise<typeof MuteResult.static> {
    const now = this.clock.now();
    return this.store.transaction(async () => {
      const filed = (await this.store.standing([reporterId])).get(reporterId)?.filed ?? 0;
      if (filed === 0) throw notFound(`No report names reporter ${reporterId.slice(0, 64)}.`);
      if (await this.store.insertMute({ reporterId, mutedAt: now, mutedBy: actorText(actor) })) {
        await this.audit.record(actor, "reporter.muted", {}, { reporter: reporterId }, now);
        return { reporter: reporterId, muted: true as const, muted_at: iso(now) };
      }
      const mute = await this.store.muteOf(reporterId);
      return { reporter: reporterId, muted: true as const, muted_at: iso(mute?.mutedAt ?? now) };
    });
  }
}
