// The case queue and its actions, through the moderation service the staff API uses: triage reads,
// comments, assigns and escalates; moderators also decide, watchlist, dismiss and mute reporters.
// A role below an action's gets 403 and changes nothing, and its forms are not rendered (cases.ts).
import { CASE_STATUSES } from "../../domain";
import type { Services } from "../../services";
import { AssignBody, CommentBody, DecideBody, DismissBody, WatchlistBody } from "../moderation/model";
import { caseBody, casePath, queueBody } from "./cases";
import { all, checked, text } from "./form";
import { type ConsoleKit, doneNotice } from "./kit";

export function caseRoutes(kit: ConsoleKit, services: Services) {
  const { view, action, role, staffActor } = kit;
  const cases = services.moderation.cases;
  const back = (ctx: { params: Record<string, string> }) => casePath(ctx.params.id!);
  return kit
    .controller()
    .get(
      "/cases",
      view(async (visitor, ctx) => {
        role("triage")(visitor);
        const status = (CASE_STATUSES as readonly string[]).includes(ctx.query.status ?? "") ? (ctx.query.status as (typeof CASE_STATUSES)[number]) : "open";
        const assignee = (ctx.query.assignee ?? "").trim().slice(0, 64);
        const page = await cases.queue({ status, limit: 50, ...(assignee ? { assignee } : {}), ...(ctx.query.cursor ? { cursor: ctx.query.cursor.slice(0, 512) } : {}) });
        return { page: { title: "Cases", current: "/console/cases", body: queueBody(status, assignee, page) } };
      }),
    )
    .get(
      "/cases/:id",
      view(async (visitor, ctx) => {
        role("triage")(visitor);
        const found = await cases.view(ctx.params.id!);
        return { page: { title: `Case ${found.id}`, current: "/console/cases", notice: doneNotice(ctx.query), body: caseBody(visitor, found) } };
      }),
    )
    .post(
      "/cases/:id/comment",
      action(back, async (visitor, form, ctx) => {
        role("triage")(visitor);
        await cases.comment(ctx.params.id!, checked(CommentBody, { body: text(form, "body") ?? "" }).body, staffActor(visitor));
        return { redirect: `${casePath(ctx.params.id!)}?done=case-commented` };
      }),
    )
    .post(
      "/cases/:id/assign",
      action(back, async (visitor, form, ctx) => {
        role("triage")(visitor);
        await cases.assign(ctx.params.id!, checked(AssignBody, { handle: text(form, "handle")?.replace(/^@/, "") ?? null }), staffActor(visitor));
        return { redirect: `${casePath(ctx.params.id!)}?done=case-assigned` };
      }),
    )
    .post(
      "/cases/:id/escalate",
      action(back, async (visitor, _form, ctx) => {
        role("triage")(visitor);
        await cases.escalate(ctx.params.id!, staffActor(visitor));
        return { redirect: `${casePath(ctx.params.id!)}?done=case-escalated` };
      }),
    )
    .post(
      "/cases/:id/dismiss",
      action(back, async (visitor, form, ctx) => {
        role("moderator")(visitor);
        await cases.dismiss(ctx.params.id!, checked(DismissBody, { reason: text(form, "reason") ?? "" }).reason, staffActor(visitor));
        return { redirect: `${casePath(ctx.params.id!)}?done=case-dismissed` };
      }),
    )
    .post(
      "/cases/:id/watchlist",
      action(back, async (visitor, form, ctx) => {
        role("moderator")(visitor);
        await cases.watchlist(ctx.params.id!, checked(WatchlistBody, { summary: text(form, "summary") ?? "" }).summary, staffActor(visitor));
        return { redirect: `${casePath(ctx.params.id!)}?done=case-watchlisted` };
      }),
    )
    .post(
      "/cases/:id/decide",
      action(back, async (visitor, form, ctx) => {
        role("moderator")(visitor);
        const optional = (name: string) => {
          const value = text(form, name);
          return value === undefined ? {} : { [name]: value };
        };
        const evidence = all(form, "public_evidence");
        const body = checked(DecideBody, {
          severity: text(form, "severity") ?? "",
          scope: text(form, "scope") ?? "global",
          ...optional("vertical"),
          reason_code: text(form, "reason_code") ?? "",
          summary: text(form, "summary") ?? "",
          ...optional("private_note"),
          ...optional("expires_at"),
          appealable: form.get("appealable") === "true",
          ...(evidence.length > 0 ? { public_evidence: evidence } : {}),
        });
        await cases.decide(ctx.params.id!, body, staffActor(visitor));
        return { redirect: `${casePath(ctx.params.id!)}?done=case-decided` };
      }),
    )
    .post(
      "/reporters/:reporter/mute",
      action(
        (ctx) => (ctx.query.case ? casePath(ctx.query.case) : "/console/cases"),
        async (visitor, _form, ctx) => {
          role("moderator")(visitor);
          await cases.mute(ctx.params.reporter!.slice(0, 200), staffActor(visitor));
          return { redirect: ctx.query.case ? `${casePath(ctx.query.case.slice(0, 64))}?done=reporter-muted` : "/console/cases" };
        },
      ),
    );
}
