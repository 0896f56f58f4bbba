// Where the service may send a webhook: HTTPS URLs whose host resolves only to public addresses.
// A request to a private, loopback or link-local address would let any paying caller probe the
// operator's own network, so the check is made twice: when the URL is registered (a clear 422),
// and again on the address actually connected to at each delivery, so a name that resolves to a
// public address at registration and a private one later (DNS rebinding) is refused then.
// `--allow-private-webhooks` lifts both the address rule and the HTTPS rule (tests, labs).
// A refusal never says what a name resolved to, nor whether it resolved at all: the answer would
// otherwise map the operator's internal names and addresses for any caller (a DNS oracle). The
// caller learns only that the destination is refused.
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { unprocessable } from "../../errors";

/** A host name's addresses; throws when it has none. */
export type Resolver = (name: string) => Promise<string[]>;

export interface UrlPolicy {
  /** `--allow-private-webhooks`: any address, and plain http too. */
  allowPrivate: boolean;
  /** How names are resolved; the system resolver when absent (tests observe the look-ups). */
  resolve?: Resolver;
}

const systemResolver: Resolver = async (name) => (await lookup(name, { all: true, verbatim: true })).map((a) => a.address);

/** The one refusal for an address: the same whether the name resolved privately or not at all. */
const NOT_PUBLIC = "The host does not resolve to a public address (private, loopback, link-local and reserved addresses are refused).";

/** Longest URL accepted, in characters. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** A URL the service refuses to send to; `reason` says why, for the caller or the attempt's record. */
export class RefusedDestination extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "RefusedDestination";
  }
}

function parseBlocks(text: string): [number, number, number][] {
  return text.split(" ").map((cidr) => {
    const [address, bits] = cidr.split("/") as [string, string];
    const value = ipv4Number(address)!;
    const size = Number(bits);
    const mask = size === 0 ? 0 : (~0 << (32 - size)) >>> 0;
    return [(value & mask) >>> 0, mask, size];
  });
}

/** IPv4 ranges that are not the public internet (RFC 6890 special-purpose registry and friends). */
const IPV4_NON_PUBLIC = parseBlocks(
  "0.0.0.0/8 10.0.0.0/8 100.64.0.0/10 127.0.0.0/8 169.254.0.0/16 172.16.0.0/12 192.0.0.0/24 192.0.2.0/24 192.88.99.0/24 192.168.0.0/16 198.18.0.0/15 198.51.100.0/24 203.0.113.0/24 224.0.0.0/4 240.0.0.0/4",
);

function ipv4Number(address: string): number | null {
  const parts = address.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    value = value * 256 + Number(part);
  }
  return value >>> 0;
}

function isPublicIpv4(address: string): boolean {
  const value = ipv4Number(address);
  if (value === null) return false;
  return !IPV4_NON_PUBLIC.some(([network, mask]) => ((value & mask) >>> 0) === network);
}

/** The eight 16-bit groups of an IPv6 address, or null. */
function ipv6Groups(address: string): number[] | null {
  let text = address.toLowerCase();
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  // A dotted IPv4 tail becomes two groups.
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const v4 = ipv4Number(tail[1]!);
    if (v4 === null) return null;
    text = `${text.slice(0, tail.index)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...new Array(halves.length === 2 ? missing : 0).fill("0"), ...rest];
  const values = groups.map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN));
  return values.some(Number.isNaN) ? null : values;
}

function isPublicIpv6(address: string): boolean {
  const g = ipv6Groups(address);
  if (!g) return false;
  const embeddedV4 = () => `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
  // IPv4-mapped (::ffff:a.b.c.d) and the NAT64 prefix (64:ff9b::/96) reach an IPv4 address.
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return isPublicIpv4(embeddedV4());
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return isPublicIpv4(embeddedV4());
  // 6to4 (2002::/16) carries its IPv4 address in groups 1 and 2.
  if (g[0] === 0x2002) return isPublicIpv4(`${g[1]! >> 8}.${g[1]! & 255}.${g[2]! >> 8}.${g[2]! & 255}`);
  // Global unicast is 2000::/3; everything else (::, ::1, fc00::/7, fe80::/10, ff00::/8, …) is not public.
  if ((g[0]! & 0xe000) !== 0x2000) return false;
  // Teredo (2001::/32), ORCHID and benchmarking (2001:2::/48, 2001:10::/28, 2001:20::/28), documentation (2001:db8::/32).
  if (g[0] === 0x2001 && (g[1] === 0 || g[1] === 0xdb8 || (g[1]! >= 0x2 && g[1]! <= 0x2f))) return false;
  // Documentation (3fff::/20).
  if (g[0] === 0x3fff && g[1]! < 0x1000) return false;
  return true;
}

/** True for an address on the public internet; false for private, loopback, link-local, reserved and the like. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return isPublicIpv4(address);
  if (family === 6) return isPublicIpv6(address);
  return false;
}

/**
 * The parsed URL when it may be registered as a destination by its form alone (scheme, length,
 * no credentials, no fragment); throws RefusedDestination otherwise. Addresses are checked by
 * `resolveDestination`.
 */
export function parseDestination(text: string, policy: UrlPolicy): URL {
  if (text.length > MAX_WEBHOOK_URL_LENGTH) throw new RefusedDestination(`The URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RefusedDestination("The URL is not a valid absolute URL.");
  }
  if (url.protocol !== "https:" && !(policy.allowPrivate && url.protocol === "http:")) {
    throw new RefusedDestination("The URL must use https://.");
  }
  if (url.username || url.password) throw new RefusedDestination("The URL must not carry a user name or password.");
  if (url.hash) throw new RefusedDestination("The URL must not carry a #fragment.");
  if (!url.hostname) throw new RefusedDestination("The URL has no host.");
  return url;
}

/** Where one delivery attempt connects: the checked address, and the name for Host and TLS. */
export interface Destination {
  /** The URL with its host replaced by the checked address: what the connection is made to. */
  connectUrl: string;
  /** The URL's own host (with port), sent as Host. */
  host: string;
  /** The name TLS verifies the certificate against (SNI). */
  serverName: string;
  address: string;
}

/** The host of a URL without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Resolves the URL's host and picks the address to connect to; throws RefusedDestination when the
 * name does not resolve or when any of its addresses is not public (unless the policy allows it),
 * with one reason for both that names neither the host's addresses nor which of the two it was.
 * Every address is checked, not only the first: a name answering both a public and a private
 * address would otherwise reach the private one on the next attempt.
 */
export async function resolveDestination(url: URL, policy: UrlPolicy): Promise<Destination> {
  const name = bareHost(url);
  let addresses: string[];
  if (isIP(name)) {
    addresses = [name];
  } else {
    try {
      addresses = await (policy.resolve ?? systemResolver)(name);
    } catch {
      throw new RefusedDestination(NOT_PUBLIC);
    }
    if (addresses.length === 0) throw new RefusedDestination(NOT_PUBLIC);
  }
  if (!policy.allowPrivate && !addresses.every(isPublicAddress)) throw new RefusedDestination(NOT_PUBLIC);
  const address = addresses[0]!;
  const target = new URL(url.href);
  target.hostname = isIP(address) === 6 ? `[${address}]` : address;
  return { connectUrl: target.href, host: url.host, serverName: name, address };
}

/**
 * The guard routes use to validate a destination URL (webhook endpoints, a tripwire's Discord
 * webhook): its form, then `rule` on the parsed URL (before any look-up), then the addresses its
 * host resolves to now. Returns the normalised URL; a refusal is a 422 `unprocessable` naming the reason.
 */
export async function checkDestinationUrl(text: string, policy: UrlPolicy, rule: (url: URL) => void = () => {}): Promise<string> {
  try {
    const url = parseDestination(text, policy);
    rule(url);
    await resolveDestination(url, policy);
    return url.href;
  } catch (error) {
    if (error instanceof RefusedDestination) throw unprocessable(`url: ${error.reason}`);
    throw error;
  }
}

/** Discord's webhook URLs: the host is discord.com (or its older names), the path /api/webhooks/{id}/{token}. */
const DISCORD_HOSTS = new Set(["discord.com", "discordapp.com", "canary.discord.com", "ptb.discord.com"]);

/**
 * Validates a Discord webhook URL for a tripwire's alerts: a Discord webhook address, checked
 * before anything is resolved (any signed-in creator may call this route: another host must not
 * cost a DNS look-up, or say anything about it), then the same destination guard as every webhook.
 * With `allowPrivate` any https/http URL passes the shape rule too (tests point it at a local
 * receiver). Returns the normalised URL; 422 otherwise.
 */
export function checkDiscordWebhookUrl(text: string, policy: UrlPolicy): Promise<string> {
  return checkDestinationUrl(text, policy, (url) => {
    if (!policy.allowPrivate && (!DISCORD_HOSTS.has(url.hostname) || !/^\/api\/webhooks\/\d+\/[\w-]+\/?$/.test(url.pathname))) {
      throw new RefusedDestination("not a Discord webhook URL (https://discord.com/api/webhooks/{id}/{token}).");
    }
  });
}
