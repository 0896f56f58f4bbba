// Admins: staff roles, and the accounts with their members (who manage them in the console).
import { ACCOUNT_MEMBER_ROLES, type AccountMemberRole } from "../../domain";
import { ApiError } from "../../http/errors";
import type { Services } from "../../services";
import { normalizeHandle } from "../../values";
import { StaffRoleSchema } from "../staff/model";
import { accountsBody, staffRolesBody } from "./admin";
import { checked, text } from "./form";
import { type ConsoleKit, doneNotice } from "./kit";

export function adminRoutes(kit: ConsoleKit, services: Services) {
  const { view, action, role, staffActor, members } = kit;
  return kit
    .controller()
      // Admins: staff roles, accounts and their members.
      .get(
        "/admin/staff",
        view(async (visitor, ctx) => {
          role("admin")(visitor);
          return { page: { title: "Staff roles", current: "/console/admin/staff", notice: doneNotice(ctx.query), body: staffRolesBody(visitor, await services.staff.list()) } };
        }),
      )
      .post(
        "/admin/staff",
        action(
          () => "/console/admin/staff",
          async (visitor, form) => {
            role("admin")(visitor);
            const handle = normalizeHandle(text(form, "handle") ?? "");
            if (!handle) throw new ApiError(422, "unprocessable", "handle: a handle is 2-32 letters, digits, '_' or '.'.");
            await services.staff.grant(handle, checked(StaffRoleSchema, text(form, "role") ?? ""), staffActor(visitor));
            return { redirect: "/console/admin/staff?done=staff-granted" };
          },
        ),
      )
      .post(
        "/admin/staff/:handle/revoke",
        action(
          () => "/console/admin/staff",
          async (visitor, _form, ctx) => {
            role("admin")(visitor);
            await services.staff.revoke(ctx.params.handle!, staffActor(visitor));
            return { redirect: "/console/admin/staff?done=staff-revoked" };
          },
        ),
      )
      .get(
        "/admin/accounts",
        view(async (visitor, ctx) => {
          role("admin")(visitor);
          const accounts = await services.accounts.listAccounts();
          const withMembers = await Promise.all(accounts.map(async (account) => ({ account, members: await members.list(account.id) })));
          return { page: { title: "Accounts", current: "/console/admin/accounts", notice: doneNotice(ctx.query), body: accountsBody(visitor, withMembers) } };
        }),
      )
      .post(
        "/admin/accounts/:account/members",
        action(
          () => "/console/admin/accounts",
          async (visitor, form, ctx) => {
            role("admin")(visitor);
            const memberRole = text(form, "role") ?? "developer";
            if (!(ACCOUNT_MEMBER_ROLES as readonly string[]).includes(memberRole)) throw new ApiError(422, "unprocessable", `role: one of ${ACCOUNT_MEMBER_ROLES.join(", ")}.`);
            const handle = normalizeHandle(text(form, "handle") ?? "");
            if (!handle) throw new ApiError(422, "unprocessable", "handle: a handle is 2-32 letters, digits, '_' or '.'.");
            await members.add(ctx.params.account!, handle, memberRole as AccountMemberRole, staffActor(visitor));
            return { redirect: "/console/admin/accounts?done=member-added" };
          },
        ),
      )
      .post(
        "/admin/accounts/:account/members/:handle/remove",
        action(
          () => "/console/admin/accounts",
          async (visitor, _form, ctx) => {
            role("admin")(visitor);
            await members.remove(ctx.params.account!, ctx.params.handle!, staffActor(visitor));
            return { redirect: "/console/admin/accounts?done=member-removed" };
          },
        ),
      );
}
