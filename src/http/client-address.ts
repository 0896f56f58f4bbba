// Which client a keyless request comes from, for the per-IP buckets (http/limits.ts). The answer is
// a bucket key, not an address to show anyone: an IPv4 address as written, or an IPv6 client's /64
// (one subscriber usually holds a whole /64, so per-address buckets would give it 2^64 of them).
//
// Behind `--trust-proxy N` the client is the X-Forwarded-For entry N hops from the right: each
// trusted proxy appends the address it saw, so the last N entries are theirs and everything to the
// left is whatever the client sent. The header is read from the right and only as far as that
// entry, so its length costs nothing. When that entry is missing or is not an IP address the
// request did not come through the proxies as configured (a direct connection, a proxy that does
// not append), and the socket address is used: it is the one value a client cannot write, so the
// worst a misconfiguration does is put many clients in the proxy's bucket, never let one client
// pick a fresh bucket per request.

/**
 * Longest X-Forwarded-For a keyless route accepts with `--trust-proxy` (400 beyond): about 20 IPv6
 * hops. A longer one was padded by its sender; only its last entries would be read anyway.
 */
export const MAX_FORWARDED_FOR = 1024;
/** Longest entry read: "[" + IPv6 with an embedded IPv4 (45) + "]:65535" is 53, plus spaces. */
const MAX_ENTRY = 64;
const COMMA = 44;

/**
 * The bucket key of one address as a proxy or the socket writes it: `a.b.c.d`, `a.b.c.d:port`, an
 * IPv6 address, `[v6]` or `[v6]:port`. Strict: anything else (a host name, "unknown", a zone id,
 * leading zeros in IPv4) is null. IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is the IPv4 client it maps.
 */
export function clientKey(text: string): string | null {
  if (text.length === 0 || text.length > MAX_ENTRY) return null;
  if (text.charCodeAt(0) === 91 /* [ */) {
    const close = text.indexOf("]");
    if (close < 0) return null;
    const rest = text.slice(close + 1);
    if (rest !== "" && !isPort(rest)) return null;
    return ipv6Key(text.slice(1, close));
  }
  const colon = text.indexOf(":");
  if (colon < 0) return ipv4(text);
  // One colon: IPv4 with a port. More: IPv6, which has at least two.
  if (text.indexOf(":", colon + 1) < 0) return isPort(text.slice(colon)) ? ipv4(text.slice(0, colon)) : null;
  return ipv6Key(text);
}

/**
 * The bucket key of the entry `hops` from the right of an X-Forwarded-For value (1 = the last), or
 * null when there are fewer entries or that one is not an address. Reads at most `hops` entries of
 * MAX_ENTRY characters from the end, whatever the header's length.
 */
export function forwardedClient(header: string, hops: number): string | null {
  let end = header.length;
  for (let hop = 1; ; hop++) {
    let start = end;
    while (start > 0 && header.charCodeAt(start - 1) !== COMMA) {
      if (end - --start > MAX_ENTRY) return null;
    }
    if (hop === hops) return clientKey(header.slice(start, end).trim());
    if (start === 0) return null;
    end = start - 1;
  }
}

interface RequestIpSource {
  requestIP(request: Request): { address: string } | null;
}

/** The bucket key of a request's client: see the file comment. */
export function clientBucketKey(request: Request, server: RequestIpSource | null, trustedHops: number): string {
  if (trustedHops > 0) {
    const forwarded = request.headers.get("x-forwarded-for");
    if (forwarded !== null) {
      const client = forwardedClient(forwarded, trustedHops);
      if (client !== null) return client;
    }
  }
  const socket = server?.requestIP(request)?.address;
  if (!socket) return "local";
  return clientKey(socket) ?? socket;
}

function isPort(text: string): boolean {
  // ":" then 1-5 digits up to 65535.
  if (text.length < 2 || text.length > 6 || text.charCodeAt(0) !== 58) return false;
  let value = 0;
  for (let i = 1; i < text.length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return false;
    value = value * 10 + digit;
  }
  return value <= 65535;
}

/** The four octets of a dotted-quad IPv4 address, or null. */
function ipv4Octets(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const octets: number[] = [];
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    octets.push(n);
  }
  return octets;
}

function ipv4(text: string): string | null {
  return ipv4Octets(text) === null ? null : text;
}

/** The eight 16-bit groups of an IPv6 address (RFC 4291 text forms, no zone id), or null. */
function ipv6Groups(text: string): number[] | null {
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (half: string): number[] | null => {
    if (half === "") return [];
    const groups: number[] = [];
    const parts = half.split(":");
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (i === parts.length - 1 && part.includes(".")) {
        const octets = ipv4Octets(part);
        if (octets === null) return null;
        groups.push((octets[0]! << 8) | octets[1]!, (octets[2]! << 8) | octets[3]!);
      } else if (/^[0-9A-Fa-f]{1,4}$/.test(part)) {
        groups.push(parseInt(part, 16));
      } else {
        return null;
      }
    }
    return groups;
  };
  const head = parse(halves[0]!);
  if (head === null) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const tail = parse(halves[1]!);
  if (tail === null || head.length + tail.length > 7) return null;
  return [...head, ...Array(8 - head.length - tail.length).fill(0), ...tail];
}

function ipv6Key(text: string): string | null {
  const g = ipv6Groups(text);
  if (g === null) return null;
  // ::ffff:a.b.c.d is an IPv4 client on a dual-stack socket or proxy.
  if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff) {
    return `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
  }
  return `${g[0]!.toString(16)}:${g[1]!.toString(16)}:${g[2]!.toString(16)}:${g[3]!.toString(16)}::/64`;
}
