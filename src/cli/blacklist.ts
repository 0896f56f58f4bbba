// `trustlist blacklist add|overturn`: the same rules and defaults as the partner API.
import { ENTRY_SCOPES, PROVIDERS, SEVERITIES, VERTICALS } from "../domain";
import { toPublicEntry } from "../modules/blacklist/service";
import { cliActor, type Command, print, text, UsageError, withDatabase } from "./args";

export const blacklistCommands: Command[] = [
  {
    name: "blacklist add",
    summary: "add an entry for a platform account",
    flags: [
      { name: "provider", kind: "string", value: "P", help: "platform of the account", required: true, choices: PROVIDERS },
      { name: "id", kind: "string", value: "ID", help: "the platform's user id", required: true },
      { name: "severity", kind: "string", value: "S", help: "only ban makes checks answer banned: true", required: true, choices: SEVERITIES },
      { name: "reason-code", kind: "string", value: "C", help: "short code, 1-64 of a-z 0-9 _ . -", required: true },
      { name: "scope", kind: "string", value: "S", help: "global, or one vertical", choices: ENTRY_SCOPES, default: "global (vertical when --vertical names one)" },
      { name: "vertical", kind: "string", value: "V", help: "the vertical a vertical-scoped entry applies to", choices: VERTICALS, default: "all" },
      { name: "summary", kind: "string", value: "T", help: "one line shown to callers" },
      { name: "expires-at", kind: "string", value: "ISO", help: "when the entry lapses", default: "never" },
      { name: "appealable", kind: "boolean", negatable: true, help: "whether the subject may appeal", default: "appealable" },
      { name: "username", kind: "string", value: "U", help: "the account's username, for search" },
    ],
    examples: [
      `trustlist blacklist add --provider discord --id 80351110224678912 --severity ban --reason-code scam_trade --summary "Took payment, never delivered"`,
      "trustlist blacklist add --provider roblox --id 1234567 --severity warn --vertical roblox --reason-code spam --no-appealable",
    ],
    async run({ values }) {
      const input = {
        provider: values.provider as (typeof PROVIDERS)[number],
        provider_user_id: values.id as string,
        severity: values.severity as (typeof SEVERITIES)[number],
        scope: text(values.scope) as (typeof ENTRY_SCOPES)[number] | undefined,
        vertical: text(values.vertical) as (typeof VERTICALS)[number] | undefined,
        reason_code: values["reason-code"] as string,
        summary: text(values.summary),
        expires_at: text(values["expires-at"]),
        // Left out, the service's default applies: the API and import use the same one.
        appealable: typeof values.appealable === "boolean" ? values.appealable : undefined,
        username: text(values.username),
      };
      if (!/^[a-z0-9_.-]{1,64}$/.test(input.reason_code)) throw new UsageError("--reason-code: use 1-64 of a-z, 0-9, '_', '.', '-'");
      const row = await withDatabase(values, ({ services }) => services.blacklist.add(input, cliActor()));
      const view = { ...toPublicEntry(row), provider: row.provider, provider_user_id: row.providerUserId, username: row.username };
      print(values.json, view, `added ${row.id}  ${row.provider}:${row.providerUserId}  ${row.severity}  ${row.reasonCode}${view.appealable ? "" : "  not appealable"}`);
    },
  },
  {
    name: "blacklist overturn",
    summary: "overturn an active entry (it stays in the change feed as overturned)",
    args: ["ENTRY_ID"],
    flags: [{ name: "reason", kind: "string", value: "T", help: "why, kept private" }],
    examples: [`trustlist blacklist overturn bl_01kdvdna009aqnt2ae7ejrkvaj --reason "appeal upheld"`],
    async run({ values, positionals }) {
      const id = positionals[0]!;
      const result = await withDatabase(values, ({ services }) => services.blacklist.overturn(id, text(values.reason) ?? null, cliActor()));
      print(values.json, result, `overturned ${id}`);
    },
  },
];
