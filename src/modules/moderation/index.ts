// Moderation controllers: reports and their evidence (a bot's key or a signed-in creator), the
// staff queue and case actions (triage and up; deciding, dismissing, watchlisting and muting need a
// moderator), and the public evidence of an entry (keyed reads). Files are answered as attachments
// that a browser neither sniffs nor runs.
import { Elysia } from "elysia";
import { rawBodyRoute } from "../../http/body";
import { keyOrSession, requireKey, requireStaff, type StaffRoles } from "../../http/guards";
import { PUBLIC_IP_RULE } from "../../http/limits";
import { errors, KEY_OR_SESSION, KEYED_ERRORS } from "../../http/model";
import type { Caller } from "../../http/auth";
import type { SessionLookup } from "../../http/session-cookie";
import { EVIDENCE_TYPES, type EvidenceType } from "../../domain";
import type { Runtime } from "../../runtime";
import type { Viewer } from "../sessions/service";
import {
  AssignBody,
  CaseActionResult,
  CasePage,
  CaseParams,
  CaseQuery,
  CaseView,
  CommentBody,
  CommentResult,
  DecideBody,
  DismissBody,
  EntryEvidenceFileParams,
  EntryEvidenceParams,
  EvidenceFile,
  EvidenceParams,
  EvidenceReceipt,
  MAX_EVIDENCE_BYTES,
  MuteResult,
  PublicEvidenceList,
  ReportBody,
  ReporterParams,
  ReportParams,
  ReportReceipt,
  ReportView,
  WatchlistBody,
} from "./model";
import type { EvidenceRow, Filer, ModerationService } from "./service";

/** The upload route, whose body is the file itself (read within its own bound, not as JSON). */
const EVIDENCE_UPLOAD = rawBodyRoute("POST", "/v1/reports/:id/evidence", MAX_EVIDENCE_BYTES);

const EXTENSIONS: Record<EvidenceType, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "image/gif": "gif",
  "application/pdf": "pdf",
  "text/plain": "txt",
};

/** A stored file as an answer: a download that is never sniffed, rendered as a page, or run. */
function fileAnswer(row: EvidenceRow): Response {
  // Both drivers hand the bytes back on a plain ArrayBuffer; the DOM's BodyInit (the SDK's type
  // check) names only that kind of view.
  return new Response(row.data as Uint8Array<ArrayBuffer>, {
    headers: {
      "content-type": row.contentType === "text/plain" ? "text/plain; charset=utf-8" : row.contentType,
      "content-disposition": `attachment; filename="${row.id}.${EXTENSIONS[row.contentType]}"`,
      "x-content-type-options": "nosniff",
      "content-security-policy": "sandbox; default-src 'none'",
      "cache-control": "private, no-store",
    },
  });
}

function filerOf(caller: Caller | null, viewer: Viewer | null): Filer {
  return caller ? { kind: "key", keyId: caller.keyId, accountId: caller.accountId } : { kind: "creator", creatorId: viewer!.creatorId, handle: viewer!.handle };
}

const FILE_HEADERS_NOTE = "Served with `Content-Disposition: attachment`, `X-Content-Type-Options: nosniff` and `Content-Security-Policy: sandbox; default-src 'none'`.";

export function reportRoutes(runtime: Runtime, sessions: SessionLookup, moderation: ModerationService) {
  const reports = moderation.reports;
  return new Elysia({ tags: ["Moderation"] })
    .use(keyOrSession(runtime, sessions, "read", PUBLIC_IP_RULE))
    .post(
      "/v1/reports",
      async ({ body, caller, viewer, set }) => {
        const receipt = await reports.file(filerOf(caller, viewer), body);
        set.status = 201;
        return receipt;
      },
      {
        body: ReportBody,
        parse: "json",
        response: { 201: ReportReceipt, ...errors(400, 401, 402, 403, 404, 422, 429) },
        detail: {
          ...KEY_OR_SESSION,
          operationId: "fileReport",
          summary: "Report an account or a creator",
          description:
            "A bot's key (read scope or higher), relaying a member's report (`reporter` names the member) or reporting for itself, or a signed-in creator. The report joins the subject's open case, or opens one. At most 20 reports an hour per key's account or per creator (429 `rate_limited` with `Retry-After`). 404 for a `handle` no creator has.",
        },
      },
    )
    .get("/v1/reports/:id", ({ params, caller, viewer }) => reports.view(filerOf(caller, viewer), params.id), {
      params: ReportParams,
      response: { 200: ReportView, ...errors(401, 402, 404, 429) },
      detail: {
        ...KEY_OR_SESSION,
        operationId: "getReport",
        summary: "Read a report you filed",
        description: "Its status and outcome. Only for whoever filed it (a key of the same account, or the same creator); 404 for anyone else's.",
      },
    })
    .post(
      EVIDENCE_UPLOAD,
      async ({ params, body, caller, viewer, request, set }) => {
        const receipt = await reports.addEvidence(filerOf(caller, viewer), params.id, request.headers.get("content-type"), body as unknown as Buffer);
        set.status = 201;
        return receipt;
      },
      {
        params: ReportParams,
        response: { 201: EvidenceReceipt, ...errors(401, 402, 404, 409, 413, 415, 422, 429) },
        detail: {
          ...KEY_OR_SESSION,
          operationId: "addReportEvidence",
          summary: "Upload a file as a report's evidence",
          description: `The file itself as the body, with its Content-Type: one of ${EVIDENCE_TYPES.join(", ")}. At most ${MAX_EVIDENCE_BYTES} bytes (413) and 10 files a report (409). The type is checked against the file's leading bytes: anything else, or HTML under any name, is 415. Only by whoever filed the report (404 for anyone else).`,
          requestBody: {
            required: true,
            content: Object.fromEntries(EVIDENCE_TYPES.map((type) => [type, { schema: { type: "string", format: "binary", contentMediaType: type } }])),
          },
        },
      },
    );
}

/** The queue, one case, staff evidence downloads, and the actions triage may take. */
export function moderationRoutes(runtime: Runtime, sessions: SessionLookup, roles: StaffRoles, moderation: ModerationService) {
  const cases = moderation.cases;
  return new Elysia({ prefix: "/v1/moderation", tags: ["Moderation"] })
    .use(requireStaff(runtime, sessions, roles, "triage", PUBLIC_IP_RULE))
    .get("/cases", ({ query }) => cases.queue(query), {
      query: CaseQuery,
      response: { 200: CasePage, ...errors(400, 401, 402, 403, 422, 429) },
      detail: {
        ...KEY_OR_SESSION,
        operationId: "listCases",
        summary: "The moderation queue",
        description: "Cases of one status (default `open`), oldest first, optionally of one assignee. Staff (triage and up) or an admin-scoped key.",
      },
    })
    .get("/cases/:id", ({ params }) => cases.view(params.id), {
      params: CaseParams,
      response: { 200: CaseView, ...errors(401, 402, 403, 404, 429) },
      detail: { ...KEY_OR_SESSION, operationId: "getCase", summary: "One case, whole", description: "Staff-only: reporters, descriptions, comments and private notes." },
    })
    .get("/evidence/:evd", async ({ params }) => fileAnswer(await moderation.reports.evidenceFile(params.evd)), {
      params: EvidenceParams,
      response: { 200: EvidenceFile, ...errors(401, 402, 403, 404, 429) },
      detail: { ...KEY_OR_SESSION, operationId: "getCaseEvidence", summary: "Download an evidence file", description: `Any evidence file, public or not, for staff. ${FILE_HEADERS_NOTE}` },
    })
    .post("/cases/:id/comment", ({ params, body, actor }) => cases.comment(params.id, body.body, actor), {
      params: CaseParams,
      body: CommentBody,
      parse: "json",
      response: { 200: CommentResult, ...errors(400, 401, 402, 403, 404, 409, 422, 429) },
      detail: { ...KEY_OR_SESSION, operationId: "commentOnCase", summary: "Comment on a case", description: "Staff-only. 409 on a closed case." },
    })
    .post("/cases/:id/assign", ({ params, body, actor }) => cases.assign(params.id, body, actor), {
      params: CaseParams,
      body: AssignBody,
      parse: "json",
      response: { 200: CaseActionResult, ...errors(400, 401, 402, 403, 404, 409, 422, 429) },
      detail: { ...KEY_OR_SESSION, operationId: "assignCase", summary: "Assign a case", description: "To a staff member by handle (422 for anyone else), or `null` to unassign." },
    })
    .post("/cases/:id/escalate", ({ params, actor }) => cases.escalate(params.id, actor), {
      params: CaseParams,
      response: { 200: CaseActionResult, ...errors(401, 402, 403, 404, 409, 429) },
      detail: { ...KEY_OR_SESSION, operationId: "escalateCase", summary: "Escalate a case", description: "Marks it for a moderator. 409 when it is escalated or closed already." },
    });
}

/** The actions only a moderator (or an admin, or an admin-scoped key) may take. */
export function moderatorRoutes(runtime: Runtime, sessions: SessionLookup, roles: StaffRoles, moderation: ModerationService) {
  const cases = moderation.cases;
  return new Elysia({ prefix: "/v1/moderation", tags: ["Moderation"] })
    .use(requireStaff(runtime, sessions, roles, "moderator", PUBLIC_IP_RULE))
    .post("/cases/:id/dismiss", ({ params, body, actor }) => cases.dismiss(params.id, body.reason, actor), {
      params: CaseParams,
      body: DismissBody,
      parse: "json",
      response: { 200: CaseActionResult, ...errors(400, 401, 402, 403, 404, 409, 422, 429) },
      detail: { ...KEY_OR_SESSION, operationId: "dismissCase", summary: "Dismiss a case", description: "Closes it and its reports as `dismissed`. Moderators." },
    })
    .post("/cases/:id/decide", ({ params, body, actor }) => cases.decide(params.id, body, actor), {
      params: CaseParams,
      body: DecideBody,
      parse: "json",
      response: { 200: CaseActionResult, ...errors(400, 401, 402, 403, 404, 409, 422, 429) },
      detail: {
        ...KEY_OR_SESSION,
        operationId: "decideCase",
        summary: "Decide a case: blacklist its subject",
        description:
          "Adds an entry exactly as the partner path does (change-feed row, `blacklist.added` and `creator.blacklisted` events), upholds the reports, makes the chosen evidence public and closes the case, in one transaction. A creator subject's entry names the creator and one of their linked accounts (`account`, default their oldest; 422 when they have none). Moderators.",
      },
    })
    .post("/cases/:id/watchlist", ({ params, body, actor }) => cases.watchlist(params.id, body.summary, actor), {
      params: CaseParams,
      body: WatchlistBody,
      parse: "json",
      response: { 200: CaseActionResult, ...errors(400, 401, 402, 403, 404, 409, 422, 429) },
      detail: {
        ...KEY_OR_SESSION,
        operationId: "watchlistCase",
        summary: "Watchlist a case's subject",
        description: "Records the reports as unconfirmed: a watchlist row (a check shows `watchlist: true`, never `banned`), and closes the case. Moderators.",
      },
    })
    .post("/reporters/:reporter/mute", ({ params, actor }) => cases.mute(params.reporter, actor), {
      params: ReporterParams,
      response: { 200: MuteResult, ...errors(401, 402, 403, 404, 429) },
      detail: {
        ...KEY_OR_SESSION,
        operationId: "muteReporter",
        summary: "Mute a reporter",
        description: "By the reporter id a case shows. Their later reports are accepted and closed at once; nobody outside staff learns it. A second mute changes nothing. Moderators.",
      },
    });
}

/** The evidence a decision made public, beside its entry: keyed reads. */
export function publicEvidenceRoutes(runtime: Runtime, moderation: ModerationService) {
  const reports = moderation.reports;
  return new Elysia({ prefix: "/v1/blacklist/entries", tags: ["Blacklist"] })
    .use(requireKey(runtime, "read"))
    .get("/:id/evidence", ({ params }) => reports.publicEvidence(params.id), {
      params: EntryEvidenceParams,
      response: { 200: PublicEvidenceList, ...errors(...KEYED_ERRORS, 404) },
      detail: { operationId: "listEntryEvidence", summary: "An entry's public evidence", description: "The files its decision made public. 404 unless the entry is active." },
    })
    .get("/:id/evidence/:evd", async ({ params }) => fileAnswer(await reports.publicEvidenceFile(params.id, params.evd)), {
      params: EntryEvidenceFileParams,
      response: { 200: EvidenceFile, ...errors(...KEYED_ERRORS, 404) },
      detail: { operationId: "getEntryEvidence", summary: "Download one public evidence file", description: `404 for a file that is not public evidence of this entry. ${FILE_HEADERS_NOTE}` },
    });
}

/** Every moderation controller, mounted as one (each keeps its own guard on its own routes). */
export function moderationControllers(runtime: Runtime, sessions: SessionLookup, roles: StaffRoles, moderation: ModerationService) {
  return new Elysia()
    .use(reportRoutes(runtime, sessions, moderation))
    .use(moderationRoutes(runtime, sessions, roles, moderation))
    .use(moderatorRoutes(runtime, sessions, roles, moderation))
    .use(publicEvidenceRoutes(runtime, moderation));
}
