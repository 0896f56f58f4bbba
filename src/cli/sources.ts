// `trustlist sources add|list|sync|update|remove`: the instances this one follows (docs/federation.md).
// The key a source was added with is never printed.
import { integer } from "../config";
import { SEVERITIES, type Severity, SOURCE_POLICIES, type SourcePolicy, VERTICALS, type Vertical } from "../domain";
import type { SourceView } from "../modules/federation/service";
import { cliActor, type Command, print, text, UsageError, withDatabase } from "./args";

const describe = (s: SourceView) =>
  `${s.name}  ${s.url}  policy=${s.policy}${s.max_severity ? ` max-severity=${s.max_severity}` : ""}${s.verticals ? ` verticals=${s.verticals.join(",")}` : ""}${
    s.reason_codes ? ` reason-codes=${s.reason_codes.join(",")}` : ""
  }  every ${s.interval_s}s  held=${s.entries_held}  last sync ${s.last_synced_at ?? "never"}${s.last_error ? `  ERROR: ${s.last_error}` : ""}`;

const list = (value: string | boolean | undefined) => {
  const raw = text(value);
  if (raw === undefined) return undefined;
  const items = raw.split(",").map((item) => item.trim()).filter(Boolean);
  return items.length === 0 ? null : items;
};

function verticals(value: string | boolean | undefined): Vertical[] | null | undefined {
  const items = list(value);
  for (const item of items ?? []) if (!(VERTICALS as readonly string[]).includes(item)) throw new UsageError(`--verticals: '${item}' is not one of ${VERTICALS.join(", ")}`);
  return items as Vertical[] | null | undefined;
}

const POLICY_FLAGS = [
  { name: "policy", kind: "string", value: "P", help: "apply (entries here), review (a moderation case each) or watch (watchlist hits)", choices: SOURCE_POLICIES },
  { name: "max-severity", kind: "string", value: "S", help: "cap on the severity of what is applied", choices: SEVERITIES },
  { name: "verticals", kind: "string", value: "a,b", help: "only entries of these verticals ('all' is global entries); empty for every one" },
  { name: "reason-codes", kind: "string", value: "a,b", help: "only entries with these reason codes; empty for every one" },
  { name: "interval", kind: "string", value: "SECONDS", help: "seconds between syncs, at least 5 (default 60)" },
] as const;

function policyValues(values: Record<string, string | boolean | undefined>) {
  return {
    policy: text(values.policy) as SourcePolicy | undefined,
    max_severity: text(values["max-severity"]) as Severity | undefined,
    verticals: verticals(values.verticals),
    reason_codes: list(values["reason-codes"]),
    interval_s: values.interval !== undefined ? integer("--interval", values.interval, 5, 86_400) : undefined,
  };
}

export const sourceCommands: Command[] = [
  {
    name: "sources add",
    summary: "follow another instance's signed list",
    args: ["NAME"],
    flags: [
      { name: "url", kind: "string", value: "BASE", help: "the source's base URL", required: true },
      { name: "key", kind: "string", value: "KEY", help: "a read key its operator opened for following", required: true },
      ...POLICY_FLAGS,
    ],
    examples: ["trustlist sources add next-door --url https://trust.next-door.example --key tl_live_… --policy apply --max-severity restrict"],
    async run({ values, positionals }) {
      const input = { name: positionals[0]!, url: values.url as string, key: values.key as string, ...policyValues(values) };
      const source = await withDatabase(values, ({ services }) => services.federation.addSource(input, cliActor()));
      print(values.json, source, `following ${describe(source)}\npinned instance ${source.instance_id}, keys:\n${source.fingerprints.map((f) => `  sha256:${f}`).join("\n")}`);
    },
  },
  {
    name: "sources list",
    summary: "list followed sources: policy, cursor, last sync, entries held, last error",
    flags: [],
    examples: ["trustlist sources list --json"],
    async run({ values }) {
      const sources = await withDatabase(values, ({ services }) => services.federation.listSources());
      print(values.json, sources, sources.map(describe).join("\n") || "no sources");
    },
  },
  {
    name: "sources sync",
    summary: "sync a source now, from its cursor to the end of its feed",
    args: ["NAME"],
    flags: [],
    examples: ["trustlist sources sync next-door"],
    async run({ values, positionals }) {
      const outcome = await withDatabase(values, ({ services }) => services.federation.syncSource(positionals[0]!));
      print(values.json, outcome, `${outcome.name}: ${outcome.applied} item(s) applied${outcome.error ? `; stopped: ${outcome.error}` : ""}`);
      if (outcome.error) process.exitCode = 1;
    },
  },
  {
    name: "sources update",
    summary: "change a source's policy, filters, key or interval (a policy change applies to what is held)",
    args: ["NAME"],
    flags: [{ name: "url", kind: "string", value: "BASE", help: "a new base URL" }, { name: "key", kind: "string", value: "KEY", help: "a new read key" }, ...POLICY_FLAGS],
    examples: ["trustlist sources update next-door --policy watch", "trustlist sources update next-door --verticals roblox,all"],
    async run({ values, positionals }) {
      const input = { url: text(values.url), key: text(values.key), ...policyValues(values) };
      if (Object.values(input).every((v) => v === undefined)) throw new UsageError("nothing to change: give --policy, --max-severity, --verticals, --reason-codes, --interval, --url or --key");
      const source = await withDatabase(values, ({ services }) => services.federation.updateSource(positionals[0]!, input, cliActor()));
      print(values.json, source, `updated ${describe(source)}`);
    },
  },
  {
    name: "sources remove",
    summary: "stop following a source; its entries are overturned (source_removed) unless --keep",
    args: ["NAME"],
    flags: [{ name: "keep", kind: "boolean", help: "keep the entries held from it" }],
    examples: ["trustlist sources remove next-door", "trustlist sources remove next-door --keep"],
    async run({ values, positionals }) {
      const result = await withDatabase(values, ({ services }) => services.federation.removeSource(positionals[0]!, values.keep === true, cliActor()));
      print(values.json, result, `removed ${result.name}; ${result.entries_overturned} entr${result.entries_overturned === 1 ? "y" : "ies"} overturned`);
    },
  },
];
