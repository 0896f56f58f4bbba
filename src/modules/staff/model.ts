// Schemas of staff roles (docs/moderation.md, "Staff"): a member as the staff routes list it, and a grant.
import { t } from "elysia";
import { STAFF_ROLES } from "../../domain";
import { DateTime, literals } from "../../http/model";

export const StaffRoleSchema = literals(STAFF_ROLES, {
  description: "`triage` reads the queue, comments, assigns and escalates; `moderator` also decides reports and appeals; `admin` also manages staff.",
});

export const StaffMember = t.Object(
  {
    handle: t.String({ description: "The creator's handle.", examples: ["alicemod"] }),
    role: StaffRoleSchema,
    granted_at: DateTime("When the role was granted."),
    granted_by: t.String({ description: "Who granted it, `kind:id`.", examples: ["cli:root"] }),
  },
  { $id: "StaffMember", description: "A creator with a staff role." },
);

export const StaffList = t.Object({ data: t.Array(StaffMember) }, { $id: "StaffList", description: "Every staff member, by handle." });

export const StaffGrantBody = t.Object({ role: StaffRoleSchema }, { $id: "StaffGrantBody", additionalProperties: t.Never() });

export const StaffParams = t.Object({ handle: t.String({ minLength: 1, maxLength: 33, description: "A creator's handle." }) });

export const StaffRevoked = t.Object(
  { handle: t.String({ examples: ["alicemod"] }), revoked: t.Boolean({ description: "True when the creator held a role until now." }) },
  { $id: "StaffRevoked" },
);
