#!/usr/bin/env bun
// The trustlist command line: `serve` and the operator's tools. Every command takes --db FILE
// (env TRUSTLIST_DB, default ./data/trustlist.db). Bad flags and values exit 2 with one line.
import { existsSync } from "node:fs";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { buildApp } from "./app";
import { ConfigError, integer, loadConfig, resolveDbPath } from "./config";
import { openStore } from "./db/client";
import { API_TIERS, ENTRY_SCOPES, KEY_SCOPES, PROVIDERS, RATE_TIERS, SEVERITIES, VERTICALS } from "./db/schema";
import { ServiceError } from "./errors";
import type { AccountView, IssuedKey, KeyView } from "./modules/accounts/service";
import { toPublicEntry } from "./modules/blacklist/service";
import { TransferService } from "./modules/transfer/service";
import { createRuntime } from "./runtime";
import { createServices } from "./services";

const USAGE = `trustlist: Creator Trust and Blacklist API

Usage: trustlist <command> [options]          (every command accepts --db FILE)

  serve [--port 8080] [--host 127.0.0.1] [--base-url URL] [--trust-proxy] [--access-log on|off]
  migrate
  accounts create --name N --tier free|pro|max|enterprise [--daily-quota N] [--json]
  accounts update ID|NAME [--tier T] [--daily-quota N] [--suspend|--resume] [--json]
  accounts list [--json]
  keys create --account ID|NAME [--rate-tier free|verified|partner] [--burst R] [--scope read|write|admin] [--name N] [--json]
  keys list [--account ID|NAME] [--json]
  keys revoke ID [--json]
  keys rotate ID [--json]
  blacklist add --provider P --id ID --severity warn|restrict|ban [--scope global|vertical] [--vertical V]
                --reason-code C [--summary T] [--expires-at ISO] [--appealable] [--username U] [--json]
  blacklist overturn ENTRY_ID [--reason T] [--json]
  import FILE                                  JSON Lines; all or nothing
  export [--out FILE]                          JSON Lines to FILE or stdout
  backup OUT.db                                consistent copy while the server runs
`;

class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig["options"]>;
const common: Options = { db: { type: "string" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } };

function parse(args: string[], options: Options, positionals = 0) {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...common, ...options }, allowPositionals: positionals > 0, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message.split("\n")[0]!.replace(/^TypeError \[\w+\]: /, ""));
  }
  if (parsed.positionals.length > positionals) throw new UsageError(`unexpected argument '${parsed.positionals[positionals]}'`);
  return { values: parsed.values as Record<string, string | boolean | undefined>, positionals: parsed.positionals };
}

function oneOf<T extends string>(name: string, value: string | boolean | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !allowed.includes(value as T)) {
    throw new UsageError(`${name}: '${String(value)}' is not one of ${allowed.join(", ")}`);
  }
  return value as T;
}

function required(name: string, value: string | boolean | undefined): string {
  if (typeof value !== "string" || value.trim() === "") throw new UsageError(`${name} is required`);
  return value;
}

function print(json: boolean | string | undefined, value: unknown, human: string) {
  console.log(json ? JSON.stringify(value) : human);
}

function openServices(dbPath: string) {
  const store = openStore(dbPath);
  const runtime = createRuntime({ store, config: { dbPath, accessLog: false } });
  return { store, runtime, services: createServices(runtime) };
}

const describeAccount = (a: AccountView) =>
  `${a.id}  ${a.name}  tier=${a.tier}  daily_quota=${a.daily_quota}${a.daily_quota_override !== null ? " (override)" : ""}  ${a.status}`;
const describeKey = (k: KeyView) =>
  `${k.id}  ${k.prefix}…  account=${k.account_id}  scope=${k.scope}  rate_tier=${k.rate_tier}${k.burst ? `  burst=${k.burst}/s` : ""}${k.revoked_at ? `  revoked ${k.revoked_at}` : ""}`;
const describeIssued = (k: IssuedKey) => `${describeKey(k)}\n${k.key}\nStore this key now: it is not shown again.`;

async function serve(args: string[]) {
  const { values } = parse(args, {
    port: { type: "string" },
    host: { type: "string" },
    "base-url": { type: "string" },
    "trust-proxy": { type: "boolean" },
    "access-log": { type: "string" },
  });
  const config = loadConfig(values);
  const started = performance.now();
  const store = openStore(config.dbPath);
  const runtime = createRuntime({ store, config });
  const services = createServices(runtime);

  // A first start on an empty database makes the operator account and its admin key.
  let firstKey: IssuedKey | null = null;
  if ((await services.accounts.countAccounts()) === 0) {
    await services.accounts.createAccount({ name: "operator", tier: "enterprise", daily_quota: 1_000_000_000 });
    firstKey = await services.accounts.createKey({ account: "operator", scope: "admin", rate_tier: "partner", burst: 1_000_000, name: "first admin key" });
  }

  const app = buildApp(runtime, { jobs: true, services });
  app.listen({ port: config.port, hostname: config.host, maxRequestBodySize: config.maxBodyBytes + 1024 });
  const server = app.server!;
  void services.blacklist.warm().then(() => {
    runtime.log.info("subject filter ready", { subjects: services.blacklist.subjects.size, ms: Math.round(performance.now() - started) });
    // So the first search that misses does not pay for reading the suggestion index's vocabulary,
    // nor the first directory query for building the directory index.
    return Promise.all([services.public.refreshGramCountsInSlices(), services.public.warmDirectory()]);
  });
  const address = `http://${server.hostname?.includes(":") ? `[${server.hostname}]` : server.hostname}:${server.port}`;
  runtime.log.info("listening", { address, base_url: config.baseUrl, db: config.dbPath, startup_ms: Math.round(performance.now() - started) });
  runtime.log.flush();
  console.error(`trustlist listening on ${address}  (docs: ${address}/docs, database: ${config.dbPath})`);
  if (firstKey) {
    console.error(`First start: created account 'operator' and this admin key (shown once, store it now):`);
    console.error(`  ${firstKey.key}`);
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    runtime.log.info("shutting down", { signal });
    // Stop taking connections, let in-flight requests finish, then persist what is buffered.
    await server.stop(false);
    const cronJobs = (app.store as { cron?: Record<string, { stop(): void }> }).cron ?? {};
    for (const job of Object.values(cronJobs)) job.stop();
    await runtime.meter.flush({ waitForLock: true });
    if (runtime.meter.pendingCount > 0) {
      runtime.log.error("usage counts lost: another process held the database lock through shutdown", { pending: runtime.meter.pendingCount });
    }
    runtime.log.info("stopped", { signal });
    runtime.log.flush();
    store.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

async function accounts(args: string[]) {
  const [sub, ...rest] = args;
  if (sub === "create") {
    const { values } = parse(rest, { name: { type: "string" }, tier: { type: "string" }, "daily-quota": { type: "string" } });
    const name = required("--name", values.name);
    const tier = oneOf("--tier", required("--tier", values.tier), API_TIERS)!;
    const dailyQuota = values["daily-quota"] !== undefined ? integer("--daily-quota", values["daily-quota"], 0, 1_000_000_000) : undefined;
    const { services, store } = openServices(resolveDbPath(values));
    const account = await services.accounts.createAccount({ name, tier, daily_quota: dailyQuota });
    store.close();
    return print(values.json, account, `created ${describeAccount(account)}`);
  }
  if (sub === "update") {
    const { values, positionals } = parse(
      rest,
      { tier: { type: "string" }, "daily-quota": { type: "string" }, suspend: { type: "boolean" }, resume: { type: "boolean" } },
      1,
    );
    const target = required("account ID or NAME", positionals[0]);
    if (values.suspend && values.resume) throw new UsageError("--suspend and --resume exclude each other");
    const changes = {
      tier: oneOf("--tier", values.tier, API_TIERS),
      daily_quota: values["daily-quota"] !== undefined ? integer("--daily-quota", values["daily-quota"], 0, 1_000_000_000) : undefined,
      status: values.suspend ? ("suspended" as const) : values.resume ? ("active" as const) : undefined,
    };
    if (Object.values(changes).every((v) => v === undefined)) throw new UsageError("nothing to change: give --tier, --daily-quota, --suspend or --resume");
    const { services, store } = openServices(resolveDbPath(values));
    const account = await services.accounts.updateAccount(target, changes);
    store.close();
    return print(values.json, account, `updated ${describeAccount(account)}`);
  }
  if (sub === "list") {
    const { values } = parse(rest, {});
    const { services, store } = openServices(resolveDbPath(values));
    const list = await services.accounts.listAccounts();
    store.close();
    return print(values.json, { data: list }, list.map(describeAccount).join("\n") || "no accounts");
  }
  throw new UsageError(`accounts: unknown sub-command '${sub ?? ""}' (create, update, list)`);
}

async function keys(args: string[]) {
  const [sub, ...rest] = args;
  if (sub === "create") {
    const { values } = parse(rest, {
      account: { type: "string" },
      "rate-tier": { type: "string" },
      burst: { type: "string" },
      scope: { type: "string" },
      name: { type: "string" },
    });
    const input = {
      account: required("--account", values.account),
      rate_tier: oneOf("--rate-tier", values["rate-tier"], RATE_TIERS),
      scope: oneOf("--scope", values.scope, KEY_SCOPES),
      burst: values.burst !== undefined ? integer("--burst", values.burst, 1, 1_000_000) : undefined,
      name: typeof values.name === "string" ? values.name : undefined,
    };
    const { services, store } = openServices(resolveDbPath(values));
    const key = await services.accounts.createKey(input);
    store.close();
    return print(values.json, key, describeIssued(key));
  }
  if (sub === "list") {
    const { values } = parse(rest, { account: { type: "string" } });
    const { services, store } = openServices(resolveDbPath(values));
    const list = await services.accounts.listKeys(typeof values.account === "string" ? values.account : undefined);
    store.close();
    return print(values.json, { data: list }, list.map(describeKey).join("\n") || "no keys");
  }
  if (sub === "revoke" || sub === "rotate") {
    const { values, positionals } = parse(rest, {}, 1);
    const id = required("key ID", positionals[0]);
    const { services, store } = openServices(resolveDbPath(values));
    if (sub === "revoke") {
      const key = await services.accounts.revokeKey(id);
      store.close();
      return print(values.json, key, `revoked ${describeKey(key)}`);
    }
    const key = await services.accounts.rotateKey(id);
    store.close();
    return print(values.json, key, describeIssued(key));
  }
  throw new UsageError(`keys: unknown sub-command '${sub ?? ""}' (create, list, revoke, rotate)`);
}

async function blacklist(args: string[]) {
  const [sub, ...rest] = args;
  if (sub === "add") {
    const { values } = parse(rest, {
      provider: { type: "string" },
      id: { type: "string" },
      severity: { type: "string" },
      scope: { type: "string" },
      vertical: { type: "string" },
      "reason-code": { type: "string" },
      summary: { type: "string" },
      "expires-at": { type: "string" },
      appealable: { type: "boolean" },
      username: { type: "string" },
    });
    const input = {
      provider: oneOf("--provider", required("--provider", values.provider), PROVIDERS)!,
      provider_user_id: required("--id", values.id),
      severity: oneOf("--severity", required("--severity", values.severity), SEVERITIES)!,
      scope: oneOf("--scope", values.scope, ENTRY_SCOPES),
      vertical: oneOf("--vertical", values.vertical, VERTICALS),
      reason_code: required("--reason-code", values["reason-code"]),
      summary: typeof values.summary === "string" ? values.summary : undefined,
      expires_at: typeof values["expires-at"] === "string" ? values["expires-at"] : undefined,
      appealable: values.appealable === true,
      username: typeof values.username === "string" ? values.username : undefined,
    };
    if (!/^[a-z0-9_.-]{1,64}$/.test(input.reason_code)) throw new UsageError("--reason-code: use 1-64 of a-z, 0-9, '_', '.', '-'");
    const { services, store } = openServices(resolveDbPath(values));
    const row = await services.blacklist.add(input, "cli");
    store.close();
    const view = { ...toPublicEntry(row), provider: row.provider, provider_user_id: row.provider_user_id, username: row.username };
    return print(values.json, view, `added ${row.id}  ${row.provider}:${row.provider_user_id}  ${row.severity}  ${row.reason_code}`);
  }
  if (sub === "overturn") {
    const { values, positionals } = parse(rest, { reason: { type: "string" } }, 1);
    const id = required("ENTRY_ID", positionals[0]);
    const { services, store } = openServices(resolveDbPath(values));
    const result = await services.blacklist.overturn(id, typeof values.reason === "string" ? values.reason : null);
    store.close();
    return print(values.json, result, `overturned ${id}`);
  }
  throw new UsageError(`blacklist: unknown sub-command '${sub ?? ""}' (add, overturn)`);
}

async function importCommand(args: string[]) {
  const { values, positionals } = parse(args, {}, 1);
  const file = required("FILE", positionals[0]);
  if (!existsSync(file)) throw new UsageError(`${file}: no such file`);
  const { services, store, runtime } = openServices(resolveDbPath(values));
  const transfer = new TransferService(store, services, runtime.clock);
  const started = performance.now();
  try {
    const summary = await transfer.importFile(file);
    const seconds = (performance.now() - started) / 1000;
    const counts = Object.entries(summary)
      .filter(([kind, n]) => kind !== "lines" && n > 0)
      .map(([kind, n]) => `${n} ${kind}`);
    print(values.json, { ...summary, seconds }, `imported ${counts.join(", ") || "nothing"} from ${summary.lines} lines in ${seconds.toFixed(1)} s`);
  } finally {
    store.close();
  }
}

async function exportCommand(args: string[]) {
  const { values } = parse(args, { out: { type: "string" } });
  const store = openStore(resolveDbPath(values));
  const runtime = createRuntime({ store, config: { accessLog: false } });
  const services = createServices(runtime);
  const transfer = new TransferService(store, services, runtime.clock);
  const out = typeof values.out === "string" ? Bun.file(values.out).writer() : Bun.stdout.writer();
  const count = await transfer.exportAll((line) => {
    out.write(line + "\n");
  });
  await out.end();
  store.close();
  if (typeof values.out === "string") print(values.json, { lines: count, out: values.out }, `exported ${count} lines to ${values.out}`);
}

async function backup(args: string[]) {
  const { values, positionals } = parse(args, {}, 1);
  const out = required("OUT.db", positionals[0]);
  if (existsSync(out)) throw new UsageError(`${out} already exists; choose a new file`);
  const dbPath = resolveDbPath(values);
  if (!existsSync(dbPath)) throw new UsageError(`${dbPath}: no such database`);
  const store = openStore(dbPath, { migrate: false });
  // VACUUM INTO reads one consistent snapshot (WAL keeps the server's writers going meanwhile).
  store.sqlite.run("VACUUM INTO ?", [out]);
  store.close();
  print(values.json, { out }, `backed up ${dbPath} to ${out}`);
}

async function migrateCommand(args: string[]) {
  const { values } = parse(args, {});
  const dbPath = resolveDbPath(values);
  const { migrate } = await import("./db/client");
  const store = openStore(dbPath, { migrate: false });
  const applied = migrate(store.db);
  store.close();
  print(values.json, { applied, db: dbPath }, applied ? `applied ${applied} migration(s) to ${dbPath}` : `${dbPath} is up to date`);
}

const COMMANDS: Record<string, (args: string[]) => Promise<void>> = {
  serve,
  migrate: migrateCommand,
  accounts,
  keys,
  blacklist,
  import: importCommand,
  export: exportCommand,
  backup,
};

export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (!command || command === "help" || command === "--help" || command === "-h") {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  if (command === "--version" || command === "version") {
    console.log("trustlist 1.0.0");
    return 0;
  }
  const run = COMMANDS[command];
  try {
    if (!run) throw new UsageError(`unknown command '${command}'; see 'trustlist help'`);
    if (args.includes("--help") || args.includes("-h")) {
      console.log(USAGE);
      return 0;
    }
    await run(args);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      console.error(`trustlist ${command}: ${error.message}`);
      return 2;
    }
    if (error instanceof ServiceError) {
      console.error(`trustlist ${command}: ${error.message}`);
      return 1;
    }
    console.error(`trustlist ${command}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

if (import.meta.main) {
  const code = await main(process.argv.slice(2));
  // `serve` keeps running; every other command ends here.
  if (process.argv[2] !== "serve" || code !== 0) process.exit(code);
}
