// `trustlist staff grant|revoke|list`: the creators who moderate (docs/moderation.md, "Staff").
import { STAFF_ROLES, type StaffRole } from "../domain";
import { cliActor, type Command, print, withDatabase } from "./args";

export const staffCommands: Command[] = [
  {
    name: "staff grant",
    summary: "give a creator a staff role (triage, moderator or admin)",
    args: ["HANDLE"],
    flags: [{ name: "role", kind: "string", value: "R", help: "triage reads and sorts the queue; moderator also decides; admin also manages staff", required: true, choices: STAFF_ROLES }],
    examples: ["trustlist staff grant alicemod --role moderator"],
    async run({ values, positionals }) {
      const member = await withDatabase(values, ({ services }) => services.staff.grant(positionals[0]!, values.role as StaffRole, cliActor()));
      print(values.json, member, `@${member.handle} is now ${member.role}`);
    },
  },
  {
    name: "staff revoke",
    summary: "take a creator's staff role away",
    args: ["HANDLE"],
    flags: [],
    examples: ["trustlist staff revoke alicemod"],
    async run({ values, positionals }) {
      const result = await withDatabase(values, ({ services }) => services.staff.revoke(positionals[0]!, cliActor()));
      print(values.json, result, result.revoked ? `@${result.handle} is no longer staff` : `@${result.handle} held no staff role`);
    },
  },
  {
    name: "staff list",
    summary: "list staff and their roles",
    flags: [],
    examples: ["trustlist staff list --json"],
    async run({ values }) {
      const list = await withDatabase(values, ({ services }) => services.staff.list());
      print(values.json, list, list.data.map((m) => `@${m.handle}  ${m.role}  since ${m.granted_at}  by ${m.granted_by}`).join("\n") || "no staff");
    },
  },
];
