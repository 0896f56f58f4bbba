// Configuration of `serve` and the other commands: flag > environment > default, validated once.
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { isPostgresUrl } from "./db/location";
import { MIN_POOL_SIZE, POOL_SIZE } from "./db/postgres";
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

export interface Config {
  dbPath: string;
  port: number;
  host: string;
  /** Public base address, used in links the service prints or returns. */
  baseUrl: string;
  /**
   * True when `--base-url` (or its variable) was given: then a browser's same-origin write must
   * come from that origin; otherwise from the origin the request itself was addressed to.
   */
  baseUrlConfigured?: boolean;
  /**
   * `--trust-proxy [N]`: how many proxies of yours append to X-Forwarded-For; the client is the
   * entry this many hops from the right. 0 ignores the header (the socket address is the client).
   */
  trustProxy: number;
  /** One JSON line per request on stdout. */
  accessLog: boolean;
  /** Largest accepted request body in bytes. */
  maxBodyBytes: number;
  /** `serve --workers N|auto`: processes serving the one port and database (1: no supervisor). */
  workers: number;
  /** `--course-submissions`: grade quizzes (off: submissions answer 410, docs/api.md, "Sign-in, courses and tripwires"). */
  courseSubmissions: boolean;
  /**
   * `--allow-private-webhooks`: webhooks may go to private, loopback and link-local addresses,
   * and over plain http (tests, a lab). Off in production: a paying caller could otherwise make
   * the server call into the operator's own network.
   */
  allowPrivateWebhooks: boolean;
  /** Pauses before the 2nd..8th delivery attempt, in ms (docs/webhooks.md); tests shorten them. */
  webhookRetryDelaysMs: number[];
  /**
   * How long a claim holds its webhook deliveries, in ms: an instance that dies mid-delivery lets
   * its rows go after this (on PostgreSQL; a SQLite file's one server lets go at its start). Tests
   * shorten it.
   */
  webhookLeaseMs: number;
  /**
   * `serve --admin-key-file PATH`: where a first start writes the operator's admin key (a new
   * file, mode 0600) instead of printing it, so it never reaches a log or the journal. Absolute.
   */
  adminKeyFile: string | null;
  /**
   * `--postgres-connections N`: each process's PostgreSQL pool (a server, or each worker and the
   * supervisor of `serve --workers N`). Ignored on a SQLite file.
   */
  postgresConnections: number;
  /** True when `--postgres-connections` (or its variable) was given: on a SQLite file, serve warns that it does nothing. */
  postgresConnectionsConfigured?: boolean;
}

/** docs/webhooks.md: retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; then the delivery failed. */
export const WEBHOOK_RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

/** A claim's lease: six attempt time limits, room for a row to wait in its endpoint's queue. */
export const WEBHOOK_LEASE_MS = 60_000;
/**
 * The shortest lease: an attempt starts only while its lease outlasts the 10 s time limit and a
 * 5 s margin, so a shorter one would never send anything; a second more lets a claimed row start.
 */
export const MIN_WEBHOOK_LEASE_MS = 16_000;

/** Each setting's flag, environment variable and default: `loadConfig` reads them, `help` prints them. */
export const SETTINGS = {
  db: { flag: "db", env: "TRUSTLIST_DB", default: "./data/trustlist.db" },
  port: { flag: "port", env: "TRUSTLIST_PORT", default: "8080" },
  host: { flag: "host", env: "TRUSTLIST_HOST", default: "127.0.0.1" },
  baseUrl: { flag: "base-url", env: "TRUSTLIST_BASE_URL", default: "http://HOST:PORT" },
  trustProxy: { flag: "trust-proxy", env: "TRUSTLIST_TRUST_PROXY", default: "off" },
  accessLog: { flag: "access-log", env: "TRUSTLIST_ACCESS_LOG", default: "on" },
  workers: { flag: "workers", env: "TRUSTLIST_WORKERS", default: "1" },
  courseSubmissions: { flag: "course-submissions", env: "TRUSTLIST_COURSE_SUBMISSIONS", default: "off" },
  allowPrivateWebhooks: { flag: "allow-private-webhooks", env: "TRUSTLIST_ALLOW_PRIVATE_WEBHOOKS", default: "off" },
  webhookRetryDelays: { flag: "webhook-retry-delays", env: "TRUSTLIST_WEBHOOK_RETRY_DELAYS_MS", default: WEBHOOK_RETRY_DELAYS_MS.join(",") },
  webhookLease: { flag: "webhook-lease", env: "TRUSTLIST_WEBHOOK_LEASE_MS", default: String(WEBHOOK_LEASE_MS) },
  adminKeyFile: { flag: "admin-key-file", env: "TRUSTLIST_ADMIN_KEY_FILE", default: "none (printed on stderr)" },
  postgresConnections: { flag: "postgres-connections", env: "TRUSTLIST_POSTGRES_CONNECTIONS", default: String(POOL_SIZE) },
} as const;

/** Most connections `--postgres-connections N` may ask for (PostgreSQL's own default limit is 100 in all). */
export const MAX_POSTGRES_CONNECTIONS = 100;

/** Most workers `--workers N` may ask for. */
export const MAX_WORKERS = 256;

export const DEFAULT_DB_PATH = SETTINGS.db.default;
/** Most proxies `--trust-proxy N` may name; real chains (CDN, load balancer, nginx) are 1-3. */
export const MAX_TRUSTED_HOPS = 10;

type Flags = Record<string, string | boolean | undefined>;
type Env = Record<string, string | undefined>;

/** A setting's value and where it came from, so a bad value blames the flag or variable that gave it. */
interface Picked {
  value: string | boolean | undefined;
  source: string;
}

function pick(flags: Flags, env: Env, setting: keyof typeof SETTINGS): Picked {
  const { flag, env: variable } = SETTINGS[setting];
  if (flags[flag] !== undefined) return { value: flags[flag], source: `--${flag}` };
  const fromEnv = env[variable];
  if (fromEnv !== undefined && fromEnv !== "") return { value: fromEnv, source: variable };
  return { value: undefined, source: `--${flag}` };
}

export function resolveDbPath(flags: Flags, env: Env = process.env): string {
  const { value = DEFAULT_DB_PATH, source } = pick(flags, env, "db");
  if (typeof value !== "string" || value.trim() === "") throw new ConfigError(`${source} must name a file`);
  if (isPostgresUrl(value)) return value;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) throw new ConfigError(`${source}: '${value.split("://")[0]}://' is not a database this build opens; give a SQLite file path or a postgres:// URL`);
  return value;
}

export function loadConfig(flags: Flags = {}, env: Env = process.env): Config {
  const portSetting = pick(flags, env, "port");
  const port = integer(portSetting.source, portSetting.value ?? SETTINGS.port.default, 0, 65535);
  const hostSetting = pick(flags, env, "host");
  const host = String(hostSetting.value ?? SETTINGS.host.default);
  if (!/^[A-Za-z0-9.:\-[\]]+$/.test(host)) throw new ConfigError(`${hostSetting.source}: '${host}' is not a host name or address`);
  const shownHost = host.includes(":") ? `[${host}]` : host;
  const baseUrlSetting = pick(flags, env, "baseUrl");
  const baseUrl = String(baseUrlSetting.value ?? `http://${shownHost}:${port}`).replace(/\/+$/, "");
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error();
  } catch {
    throw new ConfigError(`${baseUrlSetting.source}: '${baseUrl}' is not an http(s) URL`);
  }
  const trustProxy = pick(flags, env, "trustProxy");
  const accessLog = pick(flags, env, "accessLog");
  const courseSubmissions = pick(flags, env, "courseSubmissions");
  const allowPrivateWebhooks = pick(flags, env, "allowPrivateWebhooks");
  const retryDelays = pick(flags, env, "webhookRetryDelays");
  const lease = pick(flags, env, "webhookLease");
  const adminKeyFile = pick(flags, env, "adminKeyFile");
  const connections = pick(flags, env, "postgresConnections");
  if (adminKeyFile.value !== undefined && (typeof adminKeyFile.value !== "string" || adminKeyFile.value.trim() === "")) {
    throw new ConfigError(`${adminKeyFile.source} must name a file`);
  }
  return {
    dbPath: resolveDbPath(flags, env),
    port,
    host,
    baseUrl,
    baseUrlConfigured: baseUrlSetting.value !== undefined,
    trustProxy: trustedHops(trustProxy.source, trustProxy.value ?? false),
    accessLog: boolean(accessLog.source, accessLog.value ?? true),
    maxBodyBytes: 1024 * 1024,
    workers: workerCount(pick(flags, env, "workers")),
    courseSubmissions: boolean(courseSubmissions.source, courseSubmissions.value ?? false),
    allowPrivateWebhooks: boolean(allowPrivateWebhooks.source, allowPrivateWebhooks.value ?? false),
    webhookRetryDelaysMs: retryDelays.value === undefined ? WEBHOOK_RETRY_DELAYS_MS : retryDelayList(retryDelays.source, retryDelays.value),
    webhookLeaseMs: lease.value === undefined ? WEBHOOK_LEASE_MS : integer(lease.source, lease.value, MIN_WEBHOOK_LEASE_MS, 86_400_000),
    adminKeyFile: adminKeyFile.value === undefined ? null : resolve(String(adminKeyFile.value)),
    postgresConnections: connections.value === undefined ? POOL_SIZE : integer(connections.source, connections.value, MIN_POOL_SIZE, MAX_POSTGRES_CONNECTIONS),
    postgresConnectionsConfigured: connections.value !== undefined,
  };
}

/** `N` or `auto`: the cores this process may run on (its CPU affinity). */
function workerCount({ source, value = SETTINGS.workers.default }: Picked): number {
  if (typeof value === "string" && value.trim().toLowerCase() === "auto") return Math.min(availableParallelism(), MAX_WORKERS);
  if (typeof value === "boolean") throw new ConfigError(`${source} needs a number of workers or 'auto'`);
  return integer(source, value, 1, MAX_WORKERS);
}

/**
 * The retry pauses as a comma-separated list of milliseconds: exactly as many as the schedule has,
 * so a test may shorten the waits but never change how many attempts a delivery gets.
 */
function retryDelayList(name: string, value: string | boolean): number[] {
  const parts = String(value).split(",").map((part) => part.trim());
  if (parts.length !== WEBHOOK_RETRY_DELAYS_MS.length) {
    throw new ConfigError(`${name}: give ${WEBHOOK_RETRY_DELAYS_MS.length} pauses in milliseconds, comma-separated (the schedule's length)`);
  }
  return parts.map((part) => integer(name, part, 0, 7 * 86_400_000));
}

/** A count of proxy hops, 0-MAX_TRUSTED_HOPS; yes/no values (the flag's older form) are 1 and 0. */
function trustedHops(name: string, value: string | boolean): number {
  if (typeof value === "boolean") return value ? 1 : 0;
  const text = value.trim().toLowerCase();
  if (["true", "yes", "on"].includes(text)) return 1;
  if (["false", "no", "off"].includes(text)) return 0;
  if (!/^\d+$/.test(text)) {
    throw new ConfigError(`${name}: '${value}' is not a number of proxies (0-${MAX_TRUSTED_HOPS}) or yes/no`);
  }
  return integer(name, text, 0, MAX_TRUSTED_HOPS);
}

export function integer(name: string, value: string | boolean | number, min: number, max: number): number {
  const text = String(value).trim();
  if (!/^\d+$/.test(text)) throw new ConfigError(`${name}: '${text}' is not a whole number`);
  const n = Number(text);
  if (n < min || n > max) throw new ConfigError(`${name}: ${n} is outside ${min}..${max}`);
  return n;
}

function boolean(name: string, value: string | boolean): boolean {
  if (typeof value === "boolean") return value;
  const text = value.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(text)) return true;
  if (["0", "false", "no", "off"].includes(text)) return false;
  throw new ConfigError(`${name}: '${value}' is not a yes/no value`);
}
