// `trustlist keys create|list|revoke|rotate`: API keys; a secret is printed once, never again.
import { integer } from "../config";
import { KEY_SCOPES, RATE_TIERS } from "../domain";
import type { IssuedKey, KeyView } from "../modules/accounts/service";
import { type Command, print, text, withDatabase } from "./args";

const describeKey = (k: KeyView) =>
  `${k.id}  ${k.prefix}…  account=${k.account_id}  scope=${k.scope}  rate_tier=${k.rate_tier}${k.burst ? `  burst=${k.burst}/s` : ""}${k.revoked_at ? `  revoked ${k.revoked_at}` : ""}`;
const describeIssued = (k: IssuedKey) => `${describeKey(k)}\n${k.key}\nStore this key now: it is not shown again.`;

export const keyCommands: Command[] = [
  {
    name: "keys create",
    summary: "make a key for an account and print its secret once",
    flags: [
      { name: "account", kind: "string", value: "ID|NAME", help: "the account whose quota the key uses", required: true },
      { name: "scope", kind: "string", value: "S", help: "read: checks and reads; write: also the partner path; admin: also accounts, keys and /metrics", choices: KEY_SCOPES, default: "read" },
      { name: "rate-tier", kind: "string", value: "T", help: "burst bucket: free 5/s, verified 20/s, partner 100/s", choices: RATE_TIERS, default: "free" },
      { name: "burst", kind: "string", value: "R", help: "requests per second for this key (burst 4 x R), replacing the rate tier's" },
      { name: "name", kind: "string", value: "N", help: "a label, e.g. the bot it is for" },
    ],
    examples: [
      "trustlist keys create --account my-guild --name discord-bot",
      `BOT_KEY=$(trustlist keys create --account my-guild --json | sed -E 's/.*"key":"([^"]+)".*/\\1/')`,
    ],
    async run({ values }) {
      const input = {
        account: values.account as string,
        scope: text(values.scope) as (typeof KEY_SCOPES)[number] | undefined,
        rate_tier: text(values["rate-tier"]) as (typeof RATE_TIERS)[number] | undefined,
        burst: values.burst !== undefined ? integer("--burst", values.burst, 1, 1_000_000) : undefined,
        name: text(values.name),
      };
      const key = await withDatabase(values, ({ services }) => services.accounts.createKey(input));
      print(values.json, key, describeIssued(key));
    },
  },
  {
    name: "keys list",
    summary: "list keys (never their secrets)",
    flags: [{ name: "account", kind: "string", value: "ID|NAME", help: "only this account's keys" }],
    examples: ["trustlist keys list --account my-guild"],
    async run({ values }) {
      const list = await withDatabase(values, ({ services }) => services.accounts.listKeys(text(values.account)));
      print(values.json, { data: list }, list.map(describeKey).join("\n") || "no keys");
    },
  },
  {
    name: "keys revoke",
    summary: "revoke a key: it answers 401 from the server's next request on",
    args: ["ID"],
    flags: [],
    examples: ["trustlist keys revoke key_01kdvdna009aqnt2ae7ejrkvaj"],
    async run({ values, positionals }) {
      const key = await withDatabase(values, ({ services }) => services.accounts.revokeKey(positionals[0]!));
      print(values.json, key, `revoked ${describeKey(key)}`);
    },
  },
  {
    name: "keys rotate",
    summary: "replace a key's secret (the old one stops working) and print the new one once",
    args: ["ID"],
    flags: [],
    examples: ["trustlist keys rotate key_01kdvdna009aqnt2ae7ejrkvaj --json"],
    async run({ values, positionals }) {
      const key = await withDatabase(values, ({ services }) => services.accounts.rotateKey(positionals[0]!));
      print(values.json, key, describeIssued(key));
    },
  },
];
