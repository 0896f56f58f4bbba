// The staff routes: who holds a role, and granting and revoking them (an admin's session or an
// admin-scoped key).
import { Elysia } from "elysia";
import { requireStaff } from "../../http/guards";
import { PUBLIC_IP_RULE } from "../../http/limits";
import { errors, KEY_OR_SESSION } from "../../http/model";
import type { SessionLookup } from "../../http/session-cookie";
import type { Runtime } from "../../runtime";
import { StaffGrantBody, StaffList, StaffMember, StaffParams, StaffRevoked } from "./model";
import type { StaffService } from "./service";

export function staffRoutes(runtime: Runtime, sessions: SessionLookup, staff: StaffService) {
  return new Elysia({ prefix: "/v1/admin/staff", tags: ["Moderation"] })
    .use(requireStaff(runtime, sessions, staff, "admin", PUBLIC_IP_RULE))
    .get("", () => staff.list(), {
      response: { 200: StaffList, ...errors(401, 402, 403, 429) },
      detail: { ...KEY_OR_SESSION, operationId: "listStaff", summary: "List staff", description: "An admin-scoped key, or a signed-in staff admin." },
    })
    .put("/:handle", ({ params, body, actor }) => staff.grant(params.handle, body.role, actor), {
      params: StaffParams,
      body: StaffGrantBody,
      parse: "json",
      response: { 200: StaffMember, ...errors(400, 401, 402, 403, 404, 422, 429) },
      detail: {
        ...KEY_OR_SESSION,
        operationId: "grantStaffRole",
        summary: "Give a creator a staff role",
        description: "Replaces the role the creator had. Recorded in the audit log as `staff.granted`.",
      },
    })
    .delete("/:handle", ({ params, actor }) => staff.revoke(params.handle, actor), {
      params: StaffParams,
      response: { 200: StaffRevoked, ...errors(401, 402, 403, 404, 429) },
      detail: { ...KEY_OR_SESSION, operationId: "revokeStaffRole", summary: "Take a creator's staff role away", description: "Recorded as `staff.revoked`." },
    });
}
