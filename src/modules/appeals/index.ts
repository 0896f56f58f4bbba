// Appeal controllers (docs/moderation.md, "Appeals"): a bot files and reads for the account it
// talks to (a write key; the filing account's keys read), a signed-in creator files and reads their
// own, and staff read the queue (triage and up) and decide (moderators, admins, an admin key).
import { Elysia } from "elysia";
import { requireKey, requireSession, requireStaff } from "../../http/guards";
import { PUBLIC_IP_RULE } from "../../http/limits";
import { errors, KEY_OR_SESSION, KEYED_ERRORS } from "../../http/model";
import type { SessionLookup } from "../../http/session-cookie";
import type { Runtime } from "../../runtime";
import { SESSION_ONLY } from "../sessions";
import type { StaffService } from "../staff/service";
import { Appeal, AppealPage, AppealParams, AppealQueueQuery, DecideAppealBody, MeAppealBody, MyAppealsQuery, MyEntries, PartnerAppealBody, StaffAppeal, StaffAppealPage } from "./model";
import type { AppealsService } from "./service";

const REFUSALS =
  "Refused when the entry is not appealable (409 `not_appealable`), no longer active (409 `conflict`), already has an open appeal (409 `conflict`), or had an appeal decided less than 30 days ago (429 `rate_limited` with `Retry-After`).";

export function partnerAppealRoutes(runtime: Runtime, appeals: AppealsService) {
  const filing = new Elysia({ prefix: "/v1/partner/appeals", tags: ["Partner"] })
    .use(requireKey(runtime, "write"))
    .post(
      "",
      async ({ body, caller, set }) => {
        const appeal = await appeals.fileForAccount(caller, body);
        set.status = 201;
        return appeal;
      },
      {
        body: PartnerAppealBody,
        parse: "json",
        response: { 201: Appeal, ...errors(400, ...KEYED_ERRORS, 403, 404, 409, 422) },
        detail: {
          operationId: "fileAppeal",
          summary: "Appeal an entry for the account the bot talks to",
          description: `A write key. The entry must name that platform account; 404 otherwise (also for an unknown entry). ${REFUSALS} Recorded as \`appeal.filed\`.`,
        },
      },
    );
  // Reads take any key of the filing account, a read key included.
  const reading = new Elysia({ prefix: "/v1/partner/appeals", tags: ["Partner"] })
    .use(requireKey(runtime, "read"))
    .get("/:id", ({ params, caller }) => appeals.forAccount(caller.accountId, params.id), {
      params: AppealParams,
      response: { 200: Appeal, ...errors(...KEYED_ERRORS, 404) },
      detail: {
        operationId: "getFiledAppeal",
        summary: "An appeal this account filed",
        description: "Its status, outcome and the decision's public note. Any key of the account that filed it; 404 for every other.",
      },
    });
  return new Elysia().use(filing).use(reading);
}

export function meAppealRoutes(runtime: Runtime, sessions: SessionLookup, appeals: AppealsService) {
  const entries = new Elysia({ prefix: "/v1/me/entries", tags: ["Sign-in"] })
    .use(requireSession(runtime, sessions, PUBLIC_IP_RULE))
    .get("", ({ viewer }) => appeals.entriesNaming(viewer), {
      response: { 200: MyEntries, ...errors(401, 429) },
      detail: {
        ...SESSION_ONLY,
        operationId: "listMyEntries",
        summary: "Entries naming you",
        description:
          "Active, confirmed entries naming the signed-in creator or any of their linked accounts (public or private), newest first, each in its public view with its open appeal: the `entry.id` to pass to `POST /v1/me/appeals`.",
      },
    });
  const filing = new Elysia({ prefix: "/v1/me/appeals", tags: ["Sign-in"] })
    .use(requireSession(runtime, sessions, PUBLIC_IP_RULE))
    .post(
      "",
      async ({ body, viewer, set }) => {
        const appeal = await appeals.fileForCreator(viewer, body);
        set.status = 201;
        return appeal;
      },
      {
        body: MeAppealBody,
        parse: "json",
        response: { 201: Appeal, ...errors(400, 401, 403, 404, 409, 422, 429) },
        detail: {
          ...SESSION_ONLY,
          operationId: "fileMyAppeal",
          summary: "Appeal an entry naming you",
          description: `The entry must name the signed-in creator or one of their linked accounts (public or private); 404 otherwise. ${REFUSALS} Only from this service's own pages (same-origin \`Origin\`).`,
        },
      },
    )
    .get("", ({ viewer, query }) => appeals.mine(viewer, query), {
      query: MyAppealsQuery,
      response: { 200: AppealPage, ...errors(400, 401, 422, 429) },
      detail: { ...SESSION_ONLY, operationId: "listMyAppeals", summary: "Your appeals", description: "Newest first, with each decision's outcome and public note." },
    });
  return new Elysia().use(entries).use(filing);
}

export function moderationAppealRoutes(runtime: Runtime, sessions: SessionLookup, staff: StaffService, appeals: AppealsService) {
  const reading = new Elysia({ prefix: "/v1/moderation/appeals", tags: ["Moderation"] })
    .use(requireStaff(runtime, sessions, staff, "triage", PUBLIC_IP_RULE))
    .get("", ({ query }) => appeals.queue(query), {
      query: AppealQueueQuery,
      response: { 200: StaffAppealPage, ...errors(400, 401, 402, 403, 422, 429) },
      detail: {
        ...KEY_OR_SESSION,
        operationId: "listAppeals",
        summary: "The appeals queue",
        description: "Staff (triage and up) or an admin key. `open` appeals oldest first; `decided` newest first.",
      },
    })
    .get("/:id", ({ params }) => appeals.staffAppeal(params.id), {
      params: AppealParams,
      response: { 200: StaffAppeal, ...errors(401, 402, 403, 404, 429) },
      detail: { ...KEY_OR_SESSION, operationId: "getAppeal", summary: "One appeal, as staff see it", description: "The statement, who filed it and the entry with its private note." },
    });
  const deciding = new Elysia({ prefix: "/v1/moderation/appeals", tags: ["Moderation"] })
    .use(requireStaff(runtime, sessions, staff, "moderator", PUBLIC_IP_RULE))
    .post("/:id/decide", ({ params, body, actor }) => appeals.decide(params.id, body, actor), {
      params: AppealParams,
      body: DecideAppealBody,
      parse: "json",
      response: { 200: StaffAppeal, ...errors(400, 401, 402, 403, 404, 409, 422, 429) },
      detail: {
        ...KEY_OR_SESSION,
        operationId: "decideAppeal",
        summary: "Decide an appeal",
        description:
          "Moderators, admins or an admin key. `upheld` changes nothing; `removed` overturns the entry (`blacklist.overturned`, the change feed); `downgraded` overturns it and adds an entry of the lower `severity` (required, below the entry's) whose `supersedes` names it. One transaction, recorded as `appeal.decided`. 409 when the appeal was already decided.",
      },
    });
  return new Elysia().use(reading).use(deciding);
}
