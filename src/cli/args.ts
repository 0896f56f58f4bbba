// What every command shares: its description (flags with defaults and environment variables, an
// example), the parser that reads argv against it, the help printed from it, and the way a command
// opens the database. One description per command, so `--help` cannot drift from what is parsed.
import { type Config, resolveDbPath, SETTINGS } from "../config";
import { type Database, type OpenOptions, openDatabase } from "../db/database";
import { createRuntime, type Runtime } from "../runtime";
import { createServices, type Services } from "../services";
import { userInfo } from "node:os";
import type { Actor } from "../modules/audit/model";

/** Bad flags or values: the command exits 2 with one line. */
export class UsageError extends Error {}

export interface Flag {
  name: string;
  /** "optional": the value may be left out (`--trust-proxy` or `--trust-proxy 2`). */
  kind: "string" | "boolean" | "optional";
  /** Placeholder for the value in help, e.g. "N" or "FILE". */
  value?: string;
  help: string;
  required?: boolean;
  choices?: readonly string[];
  default?: string;
  env?: string;
  /** A boolean that also accepts `--no-NAME`. */
  negatable?: boolean;
}

export type Values = Record<string, string | boolean | undefined>;

export interface Parsed {
  values: Values;
  positionals: string[];
}

export interface Command {
  /** "serve" or "keys create". */
  name: string;
  summary: string;
  /** Positional arguments in the synopsis, e.g. "ID". Each one is required. */
  args?: string[];
  flags: Flag[];
  /** Whether `--json` applies (every command but `serve`). */
  json?: boolean;
  examples: string[];
  /** Resolves when the command is done; "running" when it keeps serving. */
  run(input: Parsed): Promise<void | "running">;
}

export const DB_FLAG: Flag = { name: "db", kind: "string", value: "FILE|URL", help: "the SQLite file, or a postgres:// URL", default: SETTINGS.db.default, env: SETTINGS.db.env };
const JSON_FLAG: Flag = { name: "json", kind: "boolean", help: "print one JSON object on stdout" };
const HELP_FLAG: Flag = { name: "help", kind: "boolean", help: "show this help" };

/** Flags every command takes, wherever they stand on the line. */
export function globalFlags(command: Pick<Command, "json">): Flag[] {
  return command.json === false ? [DB_FLAG, HELP_FLAG] : [DB_FLAG, JSON_FLAG, HELP_FLAG];
}

/** Whether `token` is a global flag, and how many tokens it takes (for finding the command words). */
export function globalFlagWidth(token: string, next: string | undefined): number {
  if (token === "-h" || token === "--help" || token === "--json" || token.startsWith("--db=")) return 1;
  if (token === "--db") return next === undefined ? 1 : 2;
  return 0;
}

export function parse(args: string[], command: Command): Parsed {
  const flags = [...command.flags, ...globalFlags(command)];
  const byName = new Map(flags.map((flag) => [flag.name, flag]));
  const values: Values = {};
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const token = args[i]!;
    if (token === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (token === "-h") {
      values.help = true;
      continue;
    }
    if (!token.startsWith("-") || token === "-" || /^-\d/.test(token)) {
      positionals.push(token);
      continue;
    }
    const eq = token.indexOf("=");
    const written = eq === -1 ? token : token.slice(0, eq);
    const inline = eq === -1 ? undefined : token.slice(eq + 1);
    const name = written.replace(/^--?/, "");
    const negated = name.startsWith("no-") ? byName.get(name.slice(3)) : undefined;
    if (negated?.negatable && inline === undefined) {
      values[negated.name] = false;
      continue;
    }
    const flag = token.startsWith("--") ? byName.get(name) : undefined;
    if (!flag) throw new UsageError(`unknown flag '${written}'${suggestion(name, flags)}`);
    if (flag.kind === "boolean") {
      if (inline !== undefined) throw new UsageError(`--${flag.name} takes no value`);
      values[flag.name] = true;
    } else if (flag.kind === "optional") {
      const next = args[i + 1];
      values[flag.name] = inline ?? (next !== undefined && !next.startsWith("-") ? (i++, next) : true);
    } else {
      const next = args[i + 1];
      if (inline === undefined && (next === undefined || next.startsWith("--"))) throw new UsageError(`--${flag.name} needs a value${flag.value ? ` (${flag.value})` : ""}`);
      values[flag.name] = inline ?? (i++, next!);
    }
  }
  if (values.help) return { values, positionals };
  const expected = command.args ?? [];
  if (positionals.length > expected.length) throw new UsageError(`unexpected argument '${positionals[expected.length]}'`);
  if (positionals.length < expected.length) throw new UsageError(`${expected[positionals.length]} is required`);
  for (const flag of command.flags) {
    const value = values[flag.name];
    if (flag.required && (typeof value !== "string" || value.trim() === "")) throw new UsageError(`--${flag.name} is required`);
    if (flag.choices && value !== undefined && !flag.choices.includes(String(value))) {
      throw new UsageError(`--${flag.name}: '${String(value)}' is not one of ${flag.choices.join(", ")}`);
    }
  }
  return { values, positionals };
}

/** " (did you mean --db?)" for a flag within two edits of a known one (or a prefix of one). */
function suggestion(name: string, flags: Flag[]): string {
  let best: { flag: Flag; distance: number } | null = null;
  for (const flag of flags) {
    const distance = flag.name.startsWith(name) ? 1 : editDistance(name, flag.name);
    if (distance <= 2 && (!best || distance < best.distance)) best = { flag, distance };
  }
  return best ? `; did you mean --${best.flag.name}?` : `; see 'trustlist help'`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** A string flag's value, or undefined when it was not given. */
export function text(value: string | boolean | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** "keys create --account ID|NAME": the command, its arguments and its required flags. */
export function synopsisOf(command: Command): string {
  const required = command.flags.filter((f) => f.required).map((f) => `--${f.name} ${f.value ?? "VALUE"}`);
  return [command.name, ...(command.args ?? []), ...required].join(" ");
}

export function helpFor(command: Command): string {
  const synopsis = `trustlist ${synopsisOf(command)} [flags]`;
  const rows = [...command.flags, ...globalFlags(command)].map((flag) => {
    const negation = flag.negatable ? `, --no-${flag.name}` : "";
    const value = flag.kind === "string" ? ` ${flag.value ?? "VALUE"}` : flag.kind === "optional" ? ` [${flag.value ?? "VALUE"}]` : "";
    const left = `${flag.name === "help" ? "-h, " : ""}--${flag.name}${value}${negation}`;
    const notes = [
      flag.help + (flag.required ? " (required)" : ""),
      flag.choices ? `one of ${flag.choices.join(", ")}` : "",
      flag.default !== undefined ? `default: ${flag.default}` : "",
      flag.env ? `env: ${flag.env}` : "",
    ].filter(Boolean);
    return `  ${left.padEnd(28)} ${notes.join("; ")}`;
  });
  return [
    `trustlist ${command.name}: ${command.summary}`,
    "",
    `Usage: ${synopsis}`,
    "",
    "Flags:",
    ...rows,
    "",
    command.examples.length > 1 ? "Examples:" : "Example:",
    ...command.examples.map((e) => `  ${e}`),
    "",
  ].join("\n");
}

export function print(json: boolean | string | undefined, value: unknown, human: string) {
  console.log(json ? JSON.stringify(value) : human);
}

/**
 * The operator at the command line, as the audit log names who acted: the system user running it
 * (`cli:root`), or `cli:cli` where the system names none.
 */
export function cliActor(): Actor {
  let user = "";
  try {
    user = userInfo().username;
  } catch {}
  return { kind: "cli", id: user || "cli" };
}

export interface Opened {
  /** The SQLite file or the PostgreSQL URL. */
  dbPath: string;
  store: Database;
  runtime: Runtime;
  services: Services;
}

/** A command's PostgreSQL pool: its transaction, and a read beside it. */
const ONE_COMMAND_CONNECTIONS = 3;

/**
 * Opens the database for one command and closes it afterwards. By default the file must exist
 * and be at this build's schema: only `serve`, `migrate` and `import` pass other options.
 */
export async function withDatabase<T>(
  values: Values,
  use: (opened: Opened) => Promise<T>,
  options: OpenOptions = { create: false, migrations: "require", connections: ONE_COMMAND_CONNECTIONS },
  config: Partial<Config> = {},
): Promise<T> {
  const dbPath = resolveDbPath(values);
  const { database: store } = await openDatabase(dbPath, options);
  try {
    const runtime = await createRuntime({ store, config: { ...config, dbPath, accessLog: false } });
    return await use({ dbPath, store, runtime, services: createServices(runtime) });
  } finally {
    await store.close();
  }
}
