// `trustlist accounts create|update|list`: the accounts bots and partners call with, and
// `accounts add-member|remove-member|members`: the creators who manage one in the console.
import { integer } from "../config";
import { ACCOUNT_MEMBER_ROLES, API_TIERS, type AccountMemberRole } from "../domain";
import type { AccountView } from "../modules/accounts/service";
import { cliActor, type Command, print, text, UsageError, withDatabase } from "./args";

export const describeAccount = (a: AccountView) =>
  `${a.id}  ${a.name}  tier=${a.tier}  daily_quota=${a.daily_quota}${a.daily_quota_override !== null ? " (override)" : ""}  ${a.status}${a.federation ? "  federation=on" : ""}`;

const dailyQuota = (value: string | boolean | undefined) => (value !== undefined ? integer("--daily-quota", value, 0, 1_000_000_000) : undefined);
const QUOTA_HELP = "calls a day for all the account's keys, replacing the plan's (free 100, pro 1000, max 5000, enterprise 100000)";

export const accountCommands: Command[] = [
  {
    name: "accounts create",
    summary: "create an account (a community, a bot owner or a partner)",
    flags: [
      { name: "name", kind: "string", value: "N", help: "unique account name", required: true },
      { name: "tier", kind: "string", value: "T", help: "plan", required: true, choices: API_TIERS },
      { name: "daily-quota", kind: "string", value: "N", help: QUOTA_HELP },
    ],
    examples: ["trustlist accounts create --name my-guild --tier pro"],
    async run({ values }) {
      const input = { name: values.name as string, tier: values.tier as (typeof API_TIERS)[number], daily_quota: dailyQuota(values["daily-quota"]) };
      const account = await withDatabase(values, ({ services }) => services.accounts.createAccount(input));
      print(values.json, account, `created ${describeAccount(account)}`);
    },
  },
  {
    name: "accounts update",
    summary: "change an account's plan or quota, or suspend or resume it",
    args: ["ID|NAME"],
    flags: [
      { name: "tier", kind: "string", value: "T", help: "new plan", choices: API_TIERS },
      { name: "daily-quota", kind: "string", value: "N", help: QUOTA_HELP },
      { name: "suspend", kind: "boolean", help: "its keys answer 402 until resumed" },
      { name: "resume", kind: "boolean", help: "undo --suspend" },
      { name: "federation", kind: "string", value: "on|off", help: "open or close this instance's signed feed to the account's read keys", choices: ["on", "off"] },
    ],
    examples: ["trustlist accounts update my-guild --tier max", "trustlist accounts update my-guild --suspend", "trustlist accounts update next-door --federation on"],
    async run({ values, positionals }) {
      if (values.suspend && values.resume) throw new UsageError("--suspend and --resume exclude each other");
      const changes = {
        tier: text(values.tier) as (typeof API_TIERS)[number] | undefined,
        daily_quota: dailyQuota(values["daily-quota"]),
        status: values.suspend ? ("suspended" as const) : values.resume ? ("active" as const) : undefined,
        federation: values.federation === undefined ? undefined : values.federation === "on",
      };
      if (Object.values(changes).every((v) => v === undefined)) throw new UsageError("nothing to change: give --tier, --daily-quota, --suspend, --resume or --federation");
      const account = await withDatabase(values, ({ services }) => services.accounts.updateAccount(positionals[0]!, changes));
      print(values.json, account, `updated ${describeAccount(account)}`);
    },
  },
  {
    name: "accounts list",
    summary: "list every account",
    flags: [],
    examples: ["trustlist accounts list --json"],
    async run({ values }) {
      const list = await withDatabase(values, ({ services }) => services.accounts.listAccounts());
      print(values.json, { data: list }, list.map(describeAccount).join("\n") || "no accounts");
    },
  },
  {
    name: "accounts add-member",
    summary: "let a creator manage the account's keys, usage and webhooks in the console",
    args: ["ID|NAME", "HANDLE"],
    flags: [{ name: "role", kind: "string", value: "R", help: "owner or developer (both manage keys and webhooks)", default: "developer", choices: ACCOUNT_MEMBER_ROLES }],
    examples: ["trustlist accounts add-member my-guild alice", "trustlist accounts add-member my-guild bob --role owner"],
    async run({ values, positionals }) {
      const role = (text(values.role) ?? "developer") as AccountMemberRole;
      const member = await withDatabase(values, ({ services }) => services.members.add(positionals[0]!, positionals[1]!, role, cliActor()));
      print(values.json, member, `@${member.handle} is ${role} of ${positionals[0]}`);
    },
  },
  {
    name: "accounts remove-member",
    summary: "end a creator's membership of the account",
    args: ["ID|NAME", "HANDLE"],
    flags: [],
    examples: ["trustlist accounts remove-member my-guild alice"],
    async run({ values, positionals }) {
      const result = await withDatabase(values, ({ services }) => services.members.remove(positionals[0]!, positionals[1]!, cliActor()));
      print(values.json, result, result.removed ? `@${result.handle} is no longer a member of ${positionals[0]}` : `@${result.handle} was not a member of ${positionals[0]}`);
    },
  },
  {
    name: "accounts members",
    summary: "list who manages the account in the console",
    args: ["ID|NAME"],
    flags: [],
    examples: ["trustlist accounts members guild --json"],
    async run({ values, positionals }) {
      const list = await withDatabase(values, ({ services }) => services.members.list(positionals[0]!));
      print(values.json, { data: list }, list.map((m) => `@${m.handle}  ${m.role}  since ${m.added_at}`).join("\n") || "no members");
    },
  },
];
