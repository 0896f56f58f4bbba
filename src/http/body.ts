// Request bodies: the one reader and JSON parser of every route that takes a body. The guards call
// it once the caller is admitted (guards.ts) and the conventions' parse hook calls it for routes
// without a guard, so Elysia's own parser, which reads any content type as JSON and has no depth
// limit, never sees a body. The depth is bounded before JSON.parse: schema validation and its error
// message walk the parsed value recursively, and a body of a few thousand nested brackets cost
// seconds of the one request thread (and 100,000 of them overflowed the stack).
import { ApiError } from "./errors";

/** Deepest nesting of arrays and objects a body may have; no body of this API needs more than a few levels. */
export const MAX_BODY_DEPTH = 32;

/** Parse hooks of the guards that read the body themselves; the conventions' hook leaves their routes to them. */
export const GUARD_PARSERS = new WeakSet<Function>();

/** Marks a guard's parse hook as the reader of its routes' bodies (see GUARD_PARSERS). */
export function guardParser<F extends Function>(hook: F): F {
  GUARD_PARSERS.add(hook);
  return hook;
}

/** True when the request carries no body at all, so there is nothing to read or refuse. */
function hasNoBody(request: Request): boolean {
  return !request.body || request.headers.get("content-length") === "0";
}

/**
 * Routes whose body is a file (evidence uploads), keyed `METHOD /path/:param` as the router names
 * them, with the most bytes each takes. Their guards read the body as bytes within that bound and
 * hand it to the handler unparsed; the handler checks the file's type itself.
 */
const RAW_BODY_ROUTES = new Map<string, number>();

/** Declares a route's body a file of at most `maxBytes` (see RAW_BODY_ROUTES); answers the path. */
export function rawBodyRoute(method: string, path: string, maxBytes: number): string {
  RAW_BODY_ROUTES.set(`${method} ${path}`, maxBytes);
  return path;
}

/**
 * The byte limit of the file route a request's concrete path names, or undefined: checked on a
 * request's declared length before any route is matched.
 */
export function rawBodyLimitOfPath(method: string, path: string): number | undefined {
  for (const [route, max] of RAW_BODY_ROUTES) {
    const space = route.indexOf(" ");
    if (route.slice(0, space) !== method) continue;
    const pattern = route.slice(space + 1).split("/");
    const parts = path.split("/");
    if (pattern.length === parts.length && pattern.every((p, i) => p.startsWith(":") ? parts[i] !== "" : p === parts[i])) return max;
  }
  return undefined;
}

/** The largest body any route takes: a server's own request bound must let it through. */
export function largestBody(maxJson: number): number {
  return Math.max(maxJson, ...RAW_BODY_ROUTES.values());
}

/** The byte limit of a file route, or undefined for a JSON route. */
export function rawBodyLimit(method: string, route: string | undefined): number | undefined {
  return route === undefined ? undefined : RAW_BODY_ROUTES.get(`${method} ${route}`);
}

/** The body's bytes, read within `max` whatever length it declared; 413 past it. */
export async function readBodyBytes(request: Request, max: number): Promise<Buffer> {
  if (hasNoBody(request)) return Buffer.alloc(0);
  const reader = request.body!.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      throw new ApiError(413, "payload_too_large", `Request body is larger than ${max} bytes.`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The body's text, read within `max` bytes whatever length it declared; 413 past it. */
export async function readBodyText(request: Request, max: number): Promise<string> {
  return (await readBodyBytes(request, max)).toString("utf8");
}

/**
 * What a guard hands on as the body of route `route`: a file route's bytes (RAW_BODY_ROUTES), or
 * the parsed JSON of any other within `maxJson` bytes. `fingerprint` is what an Idempotency-Key
 * compares: the JSON text, or the file's type and SHA-256.
 */
export async function readRouteBody(request: Request, route: string | undefined, maxJson: number): Promise<{ body: unknown; fingerprint: string }> {
  const rawMax = rawBodyLimit(request.method, route);
  if (rawMax !== undefined) {
    const bytes = await readBodyBytes(request, rawMax);
    const digest = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
    return { body: bytes, fingerprint: `${request.headers.get("content-type") ?? ""} ${digest}` };
  }
  const text = await readBodyText(request, maxJson);
  return { body: parseJsonText(text, request.headers.get("content-type")), fingerprint: text };
}

/** True for `application/json`, with or without parameters (`; charset=utf-8`). */
export function isJsonContentType(contentType: string | null): boolean {
  if (!contentType) return false;
  const semicolon = contentType.indexOf(";");
  return (semicolon < 0 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase() === "application/json";
}

/**
 * The JSON value of a body's text: undefined for an empty body; 415 when the request does not say
 * `Content-Type: application/json` (a `text/plain` body is what another origin's page can send
 * without a preflight); 400 when it nests deeper than MAX_BODY_DEPTH or is not JSON.
 */
export function parseJsonText(text: string, contentType: string | null): unknown {
  if (text === "") return undefined;
  if (!isJsonContentType(contentType)) {
    throw new ApiError(415, "unsupported_media_type", "Request body must be JSON sent with 'Content-Type: application/json'.");
  }
  const depth = nestingDepth(text, MAX_BODY_DEPTH);
  if (depth > MAX_BODY_DEPTH) {
    throw new ApiError(400, "invalid_request", `Request body nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels.`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, "invalid_request", "Request body is not valid JSON.");
  }
}

/** Reads and parses a request's JSON body within the size and depth bounds (see parseJsonText). */
export async function readJsonBody(request: Request, max: number): Promise<unknown> {
  if (hasNoBody(request)) return undefined;
  return parseJsonText(await readBodyText(request, max), request.headers.get("content-type"));
}

const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The deepest nesting of `[` and `{` outside strings, in one pass; stops counting at `limit + 1`.
 * It does not check the syntax (JSON.parse does): brackets of a malformed text only change which
 * of the two refuses it.
 */
export function nestingDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > deepest && (deepest = depth) > limit) return deepest;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) depth--;
  }
  return deepest;
}
