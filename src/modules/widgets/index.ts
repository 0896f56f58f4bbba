// The two embed scripts: GET /widget/trust.js (a trust card for one handle) and GET /widget.js (a
// trust-check card with its own input). Their sources live in src/widgets/ and are embedded in the
// binary; each is served as one strict-mode function (the shared helpers, then the script), with
// comments and whitespace stripped once at startup, a strong ETag, and CORS for any origin (the
// conventions plugin adds it to every /widget* path).
import { Elysia } from "elysia";
import { VERIFICATION_LABELS } from "../creators/trust";
import commonSource from "../../widgets/common.js" with { type: "text" };
import trustSource from "../../widgets/trust.js" with { type: "text" };
import checkSource from "../../widgets/check.js" with { type: "text" };

export interface WidgetScript {
  body: string;
  etag: string;
}

/** Pages fetch the scripts on every view; an hour of caching, then a cheap 304 revalidation. */
const CACHE_CONTROL = "public, max-age=3600";

/** One served script: the shared helpers and the script's own code in a function of their own. */
export function buildScript(...sources: string[]): WidgetScript {
  const transpiler = new Bun.Transpiler({ loader: "js", minifyWhitespace: true });
  // The transpiler drops a "use strict" directive, so it goes on after minifying.
  const body = `(function(){"use strict";${transpiler.transformSync(sources.join("\n"))}})();\n`;
  const hash = new Bun.CryptoHasher("sha256").update(body).digest("base64url").slice(0, 27);
  return { body, etag: `"${hash}"` };
}

/** Whether an If-None-Match header names this ETag (weak comparison, as RFC 9110 asks for GET). */
export function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  if (ifNoneMatch.trim() === "*") return true;
  return ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

function serve(script: WidgetScript, request: Request): Response {
  const headers = { etag: script.etag, "cache-control": CACHE_CONTROL, "content-type": "text/javascript; charset=utf-8" };
  if (matchesEtag(request.headers.get("if-none-match"), script.etag)) return new Response(null, { status: 304, headers });
  return new Response(script.body, { headers });
}

export function widgetRoutes() {
  const labels = `var VERIFICATION=${JSON.stringify(VERIFICATION_LABELS)};`;
  const trust = buildScript(labels, commonSource, trustSource);
  const check = buildScript(commonSource, checkSource);
  return new Elysia({ tags: ["Public"] })
    // Scripts, not API: the README's "Embeds" section describes them. The OpenAPI plugin leaves
    // paths with a file extension out of /openapi.json anyway.
    .get("/widget/trust.js", ({ request }) => serve(trust, request), { detail: { hide: true } })
    .get("/widget.js", ({ request }) => serve(check, request), { detail: { hide: true } });
}
