#!/usr/bin/env bun
// The trustlist command line: finds the command in argv and runs it. Each command group lives in
// src/cli/ with its flags, defaults, environment variables and examples; `trustlist help CMD` and
// `trustlist CMD --help` print them. Bad flags and values exit 2 with one line; a command that
// fails (a missing or too new database, an unknown account) exits 1.
import packageJson from "../package.json" with { type: "json" };
import { accountCommands } from "./cli/accounts";
import { type Command, globalFlagWidth, helpFor, parse, synopsisOf, UsageError } from "./cli/args";
import { backup } from "./cli/backup";
import { blacklistCommands } from "./cli/blacklist";
import { keyCommands } from "./cli/keys";
import { staffCommands } from "./cli/staff";
import { auditCommands } from "./cli/audit";
import { loginLink } from "./cli/login-link";
import { migrate } from "./cli/migrate";
import { serve } from "./cli/serve";
import { transferCommands } from "./cli/transfer";
import { ConfigError } from "./config";
import { exemptionCommands } from "./cli/exemptions";
import { instanceCommands } from "./cli/instance";
import { sourceCommands } from "./cli/sources";
import { versionLine } from "./version";

const COMMANDS: Command[] = [serve, migrate, ...accountCommands, ...keyCommands, ...blacklistCommands, ...staffCommands, ...auditCommands, ...transferCommands, backup, loginLink, ...instanceCommands, ...sourceCommands, ...exemptionCommands];
const BY_NAME = new Map(COMMANDS.map((c) => [c.name, c]));
const GROUPS = new Set(COMMANDS.filter((c) => c.name.includes(" ")).map((c) => c.name.split(" ")[0]!));

function usage(commands = COMMANDS): string {
  const width = Math.min(Math.max(...commands.map((c) => synopsisOf(c).length)), 34) + 2;
  return [
    `trustlist ${packageJson.version}: Creator Trust and Blacklist API`,
    "",
    "Usage: trustlist <command> [flags]     (every command takes --db FILE, env TRUSTLIST_DB)",
    "",
    ...commands.map((c) => {
      const left = synopsisOf(c);
      return left.length < width ? `  ${left.padEnd(width)}${c.summary}` : `  ${left}\n  ${"".padEnd(width)}${c.summary}`;
    }),
    "",
    "'trustlist help CMD' or 'trustlist CMD --help' shows a command's flags, defaults and an example.",
    "",
  ].join("\n");
}

/** Splits argv into the command's words ("keys", "create") and the rest; global flags may come first. */
function locate(argv: string[]): { words: string[]; rest: string[] } {
  const words: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    const wanted = words.length === 0 || (words.length === 1 && GROUPS.has(words[0]!) && !BY_NAME.has(words[0]!));
    const width = globalFlagWidth(token, argv[i + 1]);
    if (wanted && width === 0 && !token.startsWith("-")) {
      words.push(token);
      continue;
    }
    if (wanted && width === 0) {
      // A command's own flag before the command is named: nothing left to find.
      rest.push(...argv.slice(i));
      break;
    }
    rest.push(...argv.slice(i, i + Math.max(width, 1)));
    i += Math.max(width, 1) - 1;
  }
  return { words, rest };
}

/** The command named by `words`, the group's usage for a bare group, or a UsageError. */
function find(words: string[]): Command | string {
  const [first, second] = words;
  if (first === undefined) return usage();
  const exact = BY_NAME.get(words.join(" ")) ?? BY_NAME.get(first);
  if (exact) return exact;
  if (GROUPS.has(first)) {
    const members = COMMANDS.filter((c) => c.name.startsWith(`${first} `));
    if (second === undefined) return usage(members);
    throw new UsageError(`${first}: unknown sub-command '${second}' (${members.map((c) => c.name.split(" ")[1]).join(", ")})`);
  }
  throw new UsageError(`unknown command '${first}'; see 'trustlist help'`);
}

export async function main(argv: string[]): Promise<number | "running"> {
  if (argv[0] === "--version" || argv[0] === "-v" || argv[0] === "version") {
    console.log(versionLine());
    return 0;
  }
  let name = argv[0] ?? "";
  try {
    if (argv.length === 0) {
      console.error(usage());
      return 2;
    }
    if (argv[0] === "help" || argv[0] === "--help" || argv[0] === "-h") {
      const found = find(argv.slice(1).filter((a) => !a.startsWith("-")));
      console.log(typeof found === "string" ? found : helpFor(found));
      return 0;
    }
    const { words, rest } = locate(argv);
    const found = find(words);
    if (typeof found === "string") {
      // A bare group ("trustlist keys"): its sub-commands; asked for with --help, that is success.
      const asked = rest.includes("--help") || rest.includes("-h");
      (asked ? console.log : console.error)(found);
      return asked ? 0 : 2;
    }
    name = found.name;
    const input = parse(rest, found);
    if (input.values.help) {
      console.log(helpFor(found));
      return 0;
    }
    return (await found.run(input)) === "running" ? "running" : 0;
  } catch (error) {
    console.error(`trustlist ${name}: ${error instanceof Error ? error.message : String(error)}`);
    return error instanceof UsageError || error instanceof ConfigError ? 2 : 1;
  }
}

if (import.meta.main) {
  const code = await main(process.argv.slice(2));
  // `serve` keeps running; every other command ends here.
  if (code !== "running") process.exit(code);
}
