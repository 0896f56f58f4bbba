// The moderators' desk: entries by subject with overturn (moderator), the appeals queue and its
// decisions (moderator decides, triage reads), the audit log (moderator). A role below the one a
// page needs gets 403, and the page's controls are not rendered for it (staff.ts).
import { PROVIDERS } from "../../domain";
import { ApiError } from "../../http/errors";
import type { Services } from "../../services";
import { normalizeHandle } from "../../values";
import { DecideAppealBody } from "../appeals/model";
import { isProvider, normalizeAccountId } from "../blacklist/entry";
import type { EntryRow } from "../blacklist/store";
import { checked, text } from "./form";
import { type ConsoleKit, doneNotice } from "./kit";
import { appealQueueBody, auditBody, entriesBody } from "./staff";

export function staffRoutes(kit: ConsoleKit, services: Services) {
  const { view, action, role, staffActor } = kit;
  return kit
    .controller()
      // Staff: entries, the appeals queue, the audit log.
      .get(
        "/entries",
        view(async (visitor, ctx) => {
          role("triage")(visitor);
          const search = { provider: ctx.query.provider ?? "", id: (ctx.query.id ?? "").trim().slice(0, 128), handle: (ctx.query.handle ?? "").trim().slice(0, 33) };
          let found: EntryRow[] | null = null;
          if (search.handle !== "") {
            const handle = normalizeHandle(search.handle);
            if (!handle) throw new ApiError(422, "unprocessable", "A handle is 2-32 letters, digits, '_' or '.'.");
            found = await services.blacklist.entriesOf({ creatorHandle: handle });
          } else if (search.id !== "") {
            if (!isProvider(search.provider)) throw new ApiError(422, "unprocessable", `Choose the platform: ${PROVIDERS.join(", ")}.`);
            const id = normalizeAccountId(search.provider, search.id);
            if (id === null) throw new ApiError(422, "unprocessable", `'${search.id}' is not an account id of ${search.provider}.`);
            found = await services.blacklist.entriesOf({ provider: search.provider, providerUserId: id });
          }
          return { page: { title: "Entries", current: "/console/entries", notice: doneNotice(ctx.query), body: entriesBody(visitor, search, found) } };
        }),
      )
      .post(
        "/entries/:id/overturn",
        action(
          () => "/console/entries",
          async (visitor, form, ctx) => {
            role("moderator")(visitor);
            const entry = await services.blacklist.entryRow(ctx.params.id!);
            if (!entry) throw new ApiError(404, "not_found", `No entry ${ctx.params.id!.slice(0, 64)}.`);
            await services.blacklist.overturn(entry.id, (text(form, "reason") ?? "").slice(0, 500) || null, staffActor(visitor));
            const back = entry.creatorHandle ? `handle=${encodeURIComponent(entry.creatorHandle)}` : `provider=${entry.provider}&id=${encodeURIComponent(entry.providerUserId)}`;
            return { redirect: `/console/entries?${back}&done=entry-overturned` };
          },
        ),
      )
      .get(
        "/staff/appeals",
        view(async (visitor, ctx) => {
          role("triage")(visitor);
          const status = ctx.query.status === "decided" ? "decided" : "open";
          const page = await services.appeals.queue({ status, limit: 50, ...(ctx.query.cursor ? { cursor: ctx.query.cursor.slice(0, 512) } : {}) });
          return { page: { title: "Appeals queue", current: "/console/staff/appeals", notice: doneNotice(ctx.query), body: appealQueueBody(visitor, status, page) } };
        }),
      )
      .post(
        "/staff/appeals/:id/decide",
        action(
          () => "/console/staff/appeals",
          async (visitor, form, ctx) => {
            role("moderator")(visitor);
            const severity = text(form, "severity");
            const body = checked(DecideAppealBody, { outcome: text(form, "outcome") ?? "", note: text(form, "note") ?? "", ...(severity ? { severity } : {}) });
            await services.appeals.decide(ctx.params.id!, body, staffActor(visitor));
            return { redirect: "/console/staff/appeals?done=appeal-decided" };
          },
        ),
      )
      .get(
        "/audit",
        view(async (visitor, ctx) => {
          role("moderator")(visitor);
          const filters = {
            entry: (ctx.query.entry ?? "").trim().slice(0, 64),
            subject: (ctx.query.subject ?? "").trim().slice(0, 200),
            actor: (ctx.query.actor ?? "").trim().slice(0, 200),
            action: (ctx.query.action ?? "").trim().slice(0, 64),
          };
          const set = Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== ""));
          const page = await services.audit.list({ ...set, limit: 50, ...(ctx.query.cursor ? { cursor: ctx.query.cursor.slice(0, 512) } : {}) });
          return { page: { title: "Audit log", current: "/console/audit", body: auditBody(filters, page.data, page.next_cursor) } };
        }),
      );
}
