// `trustlist exemptions add|list|remove`: accounts no followed source's item applies to
// (docs/federation.md). Each acts at once, without a sync.
import { PROVIDERS, type Provider } from "../domain";
import type { ExemptionView } from "../modules/federation/service";
import { cliActor, type Command, print, text, withDatabase } from "./args";

const describe = (e: ExemptionView) => `${e.id}  ${e.provider}:${e.provider_user_id}  ${e.source ? `source ${e.source}` : "every source"}  "${e.reason}"  by ${e.created_by} ${e.created_at}`;

export const exemptionCommands: Command[] = [
  {
    name: "exemptions add",
    summary: "exempt an account from every followed source (or one); an entry already applied is overturned",
    flags: [
      { name: "provider", kind: "string", value: "P", help: "the account's platform", required: true, choices: PROVIDERS },
      { name: "id", kind: "string", value: "ID", help: "the account's id on that platform", required: true },
      { name: "source", kind: "string", value: "NAME", help: "only this source's items (default: every source's)" },
      { name: "reason", kind: "string", value: "T", help: "why, for the audit log", required: true },
    ],
    examples: ['trustlist exemptions add --provider discord --id 80351110224678912 --reason "cleared by our mods"'],
    async run({ values }) {
      const input = { provider: values.provider as Provider, provider_user_id: values.id as string, source: text(values.source) ?? null, reason: values.reason as string };
      const exemption = await withDatabase(values, ({ services }) => services.federation.exemptions.add(input, cliActor()));
      print(values.json, exemption, `exempted ${describe(exemption)}; ${exemption.entries_overturned} entr${exemption.entries_overturned === 1 ? "y" : "ies"} overturned`);
    },
  },
  {
    name: "exemptions list",
    summary: "list exemptions",
    flags: [],
    examples: ["trustlist exemptions list --json"],
    async run({ values }) {
      const list = await withDatabase(values, ({ services }) => services.federation.exemptions.list());
      print(values.json, { data: list }, list.map(describe).join("\n") || "no exemptions");
    },
  },
  {
    name: "exemptions remove",
    summary: "remove an exemption; the sources' items for the account apply again",
    args: ["ID"],
    flags: [],
    examples: ["trustlist exemptions remove exm_01jd5x8q3m7k2c9v4n6p8r0s1t"],
    async run({ values, positionals }) {
      const result = await withDatabase(values, ({ services }) => services.federation.exemptions.remove(positionals[0]!, cliActor()));
      print(values.json, result, `removed ${result.id}; ${result.entries_applied} entr${result.entries_applied === 1 ? "y" : "ies"} applied again`);
    },
  },
];
