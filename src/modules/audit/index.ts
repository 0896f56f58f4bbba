// The audit log's route: staff moderators and admins, or an admin-scoped key, read every change.
import { Elysia } from "elysia";
import { requireStaff, type StaffRoles } from "../../http/guards";
import { PUBLIC_IP_RULE } from "../../http/limits";
import { errors, KEY_OR_SESSION } from "../../http/model";
import type { SessionLookup } from "../../http/session-cookie";
import type { Runtime } from "../../runtime";
import { AuditPage, AuditQuery } from "./model";
import type { AuditLog } from "./service";

export function auditRoutes(runtime: Runtime, sessions: SessionLookup, roles: StaffRoles, audit: AuditLog) {
  return new Elysia({ prefix: "/v1/admin/audit", tags: ["Moderation"] })
    .use(requireStaff(runtime, sessions, roles, "moderator", PUBLIC_IP_RULE))
    .get("", ({ query }) => audit.list(query), {
      query: AuditQuery,
      response: { 200: AuditPage, ...errors(400, 401, 402, 403, 422, 429) },
      detail: {
        ...KEY_OR_SESSION,
        operationId: "listAuditEvents",
        summary: "Read the audit log",
        description:
          "Every change to an entry, case, report, appeal or staff role, newest first, from every path (API, CLI, decisions, the expiry job). Filters combine. An admin-scoped key, or a signed-in moderator or admin. Staff-only: events may name reporters and private notes.",
      },
    });
}
