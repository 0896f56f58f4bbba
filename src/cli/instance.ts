// `trustlist instance show|rotate-key`: this instance's federation identity (docs/federation.md).
// Fingerprints only: the private keys stay in the database and are never printed.
import type { InstanceSummary } from "../modules/federation/service";
import { cliActor, type Command, print, withDatabase } from "./args";

const describe = (s: InstanceSummary) =>
  [
    `instance ${s.id}  ${s.name}  ${s.base_url}`,
    ...s.keys.map((k) => `  key ${k.kid}  sha256:${k.fingerprint}  ${k.current ? "current" : k.retired_at ? `retired ${k.retired_at}` : ""}${k.endorsed_by ? `  endorsed by ${k.endorsed_by}` : ""}`),
  ].join("\n");

export const instanceCommands: Command[] = [
  {
    name: "instance show",
    summary: "print this instance's id and its signing keys' fingerprints",
    flags: [],
    examples: ["trustlist instance show", "trustlist instance show --json"],
    async run({ values }) {
      const summary = await withDatabase(values, ({ services }) => services.federation.identity.summary());
      print(values.json, summary, describe(summary));
    },
  },
  {
    name: "instance rotate-key",
    summary: "add a signing key endorsed by the current one, and retire the current one",
    flags: [],
    examples: ["trustlist instance rotate-key"],
    async run({ values }) {
      const summary = await withDatabase(values, ({ services }) => services.federation.identity.rotate(cliActor()));
      print(values.json, summary, `rotated: the new key is endorsed by the one it replaces\n${describe(summary)}`);
    },
  },
];
