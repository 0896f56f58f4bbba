// Configuration of `serve` and the other commands: flag > environment > default, validated once.
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
   * `--trust-proxy [N]`: how many proxies of yours append to X-Forwarded-For; the client is the
   * entry this many hops from the right. 0 ignores the header (the socket address is the client).
   */
  trustProxy: number;
  /** One JSON line per request on stdout. */
  accessLog: boolean;
  /** Largest accepted request body in bytes. */
  maxBodyBytes: number;
}

export const DEFAULT_DB_PATH = "./data/trustlist.db";
/** Most proxies `--trust-proxy N` may name; real chains (CDN, load balancer, nginx) are 1-3. */
export const MAX_TRUSTED_HOPS = 10;

type Flags = Record<string, string | boolean | undefined>;
type Env = Record<string, string | undefined>;

export function resolveDbPath(flags: Flags, env: Env = process.env): string {
  const value = pick(flags.db, env.TRUSTLIST_DB) ?? DEFAULT_DB_PATH;
  if (typeof value !== "string" || value.trim() === "") throw new ConfigError("--db must name a file");
  return value;
}

export function loadConfig(flags: Flags = {}, env: Env = process.env): Config {
  const port = integer("--port", pick(flags.port, env.TRUSTLIST_PORT) ?? "8080", 0, 65535);
  const host = String(pick(flags.host, env.TRUSTLIST_HOST) ?? "127.0.0.1");
  if (!/^[A-Za-z0-9.:\-[\]]+$/.test(host)) throw new ConfigError(`--host: '${host}' is not a host name or address`);
  const shownHost = host.includes(":") ? `[${host}]` : host;
  const baseUrl = String(pick(flags["base-url"], env.TRUSTLIST_BASE_URL) ?? `http://${shownHost}:${port}`).replace(/\/+$/, "");
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error();
  } catch {
    throw new ConfigError(`--base-url: '${baseUrl}' is not an http(s) URL`);
  }
  return {
    dbPath: resolveDbPath(flags, env),
    port,
    host,
    baseUrl,
    trustProxy: trustedHops(pick(flags["trust-proxy"], env.TRUSTLIST_TRUST_PROXY) ?? false),
    accessLog: boolean("--access-log", pick(flags["access-log"], env.TRUSTLIST_ACCESS_LOG) ?? true),
    maxBodyBytes: 1024 * 1024,
  };
}

/**
 * `--trust-proxy` alone means one proxy, `--trust-proxy N` (or `=N`) N of them: the count is
 * optional, which parseArgs cannot express, so the bare flag is spelled out before parsing.
 */
export function expandTrustProxy(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== "--trust-proxy") out.push(args[i]!);
    else if (/^\d+$/.test(args[i + 1] ?? "")) out.push(`--trust-proxy=${args[++i]}`);
    else out.push("--trust-proxy=1");
  }
  return out;
}

/** A count of proxy hops, 0-MAX_TRUSTED_HOPS; yes/no values (the flag's older form) are 1 and 0. */
function trustedHops(value: string | boolean): number {
  if (typeof value === "boolean") return value ? 1 : 0;
  const text = value.trim().toLowerCase();
  if (["true", "yes", "on"].includes(text)) return 1;
  if (["false", "no", "off"].includes(text)) return 0;
  if (!/^\d+$/.test(text)) {
    throw new ConfigError(`--trust-proxy: '${value}' is not a number of proxies (0-${MAX_TRUSTED_HOPS}) or yes/no`);
  }
  return integer("--trust-proxy", text, 0, MAX_TRUSTED_HOPS);
}

function pick<T>(flag: T | undefined, env: T | undefined): T | undefined {
  return flag !== undefined ? flag : env !== undefined && env !== "" ? env : undefined;
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
