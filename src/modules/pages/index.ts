// The instance's public pages, rendered on the server: `/` (check an account, browse the directory)
// and `/u/{handle}` (the profile page `profile_url` points to), plus their stylesheet, script and
// icon, embedded in the binary under content-hashed names. Pages are HTML, not API: they are left out
// of /openapi.json, answer their own 404 and 429 as pages, and are sent with a strict
// Content-Security-Policy: only this origin's own files, no inline script or style, nothing from
// another host.
//
// Pages share the keyless routes' per-IP bucket ("public"): each page does the work of one or two
// /v1/public/* calls and shows the same data, so a separate bucket would only be a way around the
// limit (a visitor reading pages needs far less than 10/s). Assets are not charged: they are static
// and cached for a year. Measured on the bench data set (100k creators, 1M entries, 2 shared cores),
// one at a time: a profile page 0.3 ms median, 4.5 ms p99; `/` 0.5 ms median. Under wrk at 16
// connections the profile page served 4,800 requests/s with a p99 of 14 ms.
import { Elysia, t } from "elysia";
import { PROVIDERS } from "../../domain";
import { ServiceError } from "../../errors";
import { ApiError } from "../../http/errors";
import { chargeIp } from "../../http/guards";
import { PUBLIC_IP_RULE } from "../../http/limits";
import type { Runtime } from "../../runtime";
import type { Services } from "../../services";
import { normalizeHandle } from "../../values";
import { TIER_COLORS, TRUST_BANDS } from "../creators/trust";
import { DIRECTORY_SORTS, type DirectorySort, MAX_DIRECTORY_ROWS, MAX_QUERY_LENGTH } from "../public/service";
import { matchesEtag } from "../widgets";
import siteCss from "./assets/site.css" with { type: "text" };
import siteJs from "./assets/site.js" with { type: "text" };
import { homePage } from "./home";
import type { Html } from "./html";
import type { AssetPaths } from "./layout";
import { notFoundPage, profilePage, tooManyPage } from "./profile";

const DIRECTORY_PAGE_SIZE = 24;
export const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path d="M16 2 4 7v8c0 7.5 5.1 13.4 12 15 6.9-1.6 12-7.5 12-15V7z" fill="#0b5cad"/><path d="m10 16 4 4 8-9" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/></svg>';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** How long each kind of answer may be kept. */
const CACHE = {
  /** A search answer must be current: a ban added a minute ago has to show. */
  search: "no-store",
  /** The directory, a profile, an unknown handle: a minute is fresh enough, and absorbs bursts. */
  page: "public, max-age=60",
  /** Content-hashed names never change. */
  asset: "public, max-age=31536000, immutable",
};

export interface Asset {
  path: string;
  body: string;
  type: string;
  etag: string;
}

export function asset(name: string, ext: string, type: string, body: string): Asset {
  const hash = new Bun.CryptoHasher("sha256").update(body).digest("hex");
  return { path: `/assets/${name}.${hash.slice(0, 12)}.${ext}`, body, type, etag: `"${hash.slice(0, 27)}"` };
}

function buildAssets() {
  // One rule per band, from the table the badge and the API use.
  const bandRules = TRUST_BANDS.map((band) => `.band-${band}{--band:${TIER_COLORS[band]}}`).join("\n");
  const assets = [
    asset("site", "css", "text/css; charset=utf-8", `${siteCss}\n${bandRules}\n`),
    asset("site", "js", "text/javascript; charset=utf-8", siteJs),
    asset("icon", "svg", "image/svg+xml", ICON),
  ];
  const paths: AssetPaths = { css: assets[0]!.path, js: assets[1]!.path, icon: assets[2]!.path };
  return { byPath: new Map(assets.map((a) => [a.path, a])), paths };
}

type ResponseSet = { headers: Record<string, string | number>; status?: number | string };

function htmlResponse(set: ResponseSet, body: Html, status: number, cacheControl: string): Response {
  return new Response(body.text, {
    status,
    headers: {
      ...(set.headers as Record<string, string>),
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": CONTENT_SECURITY_POLICY,
      "x-content-type-options": "nosniff",
      "referrer-policy": "same-origin",
      "cache-control": cacheControl,
    },
  });
}

const HomeQuery = t.Object({
  q: t.Optional(t.String()),
  filter: t.Optional(t.String()),
  sort: t.Optional(t.String()),
  platform: t.Optional(t.String()),
  page: t.Optional(t.String()),
});

export function pageRoutes(runtime: Runtime, services: Services) {
  const { byPath, paths } = buildAssets();
  const lastPage = Math.floor(MAX_DIRECTORY_ROWS / DIRECTORY_PAGE_SIZE);
  const { creators, public: publicService } = services;

  /** The HTML 429 page when the caller's bucket is spent, else null. */
  const refuse = (ctx: Parameters<typeof chargeIp>[3] & { set: ResponseSet }): Response | null => {
    const state = chargeIp(runtime, "public", PUBLIC_IP_RULE, ctx);
    if (state.allowed) return null;
    ctx.set.headers["retry-after"] = String(state.retryAfter);
    return htmlResponse(ctx.set, tooManyPage(paths, state.retryAfter), 429, "no-store");
  };

  return new Elysia({ detail: { hide: true } })
    .get(
      "/",
      // Each page's reads (a search, the counters, a directory page) share one read transaction.
      ({ request, server, query, set }) => runtime.store.readTogether(async () => {
        const refused = refuse({ request, server, set });
        if (refused) return refused;
        const q = (query.q ?? "").trim();
        let search = null;
        let searchError: string | null = null;
        let status = 200;
        if (q !== "") {
          try {
            search = await publicService.search(q);
          } catch (error) {
            if (!(error instanceof ServiceError)) throw error;
            searchError = error.message;
            status = 400;
          }
        }
        const sort: DirectorySort = (DIRECTORY_SORTS as readonly string[]).includes(query.sort ?? "") ? (query.sort as DirectorySort) : "newest";
        const platform = (PROVIDERS as readonly string[]).includes(query.platform ?? "") ? query.platform! : "";
        const filter = (query.filter ?? "").trim().slice(0, MAX_QUERY_LENGTH);
        const requestedPage = Number.parseInt(query.page ?? "1", 10);
        const pageNumber = Number.isFinite(requestedPage) ? Math.min(Math.max(requestedPage, 1), lastPage) : 1;
        const listing = (n: number) =>
          publicService.directory({ q: filter || undefined, sort, platform: platform || undefined, page: n, limit: DIRECTORY_PAGE_SIZE });
        let directory = await listing(pageNumber);
        // A page past the end (an old link, a hand-typed number) shows the last one instead.
        if (directory.items.length === 0 && directory.total_pages > 0) directory = await listing(Math.min(directory.total_pages, lastPage));
        const body = homePage(paths, {
          q,
          search,
          searchError,
          creatorHandle: search ? ((await creators.find(search.query))?.handle ?? null) : null,
          stats: await publicService.publicStats(),
          directory: { filter, sort, platform, page: directory, lastPage },
        });
        return htmlResponse(set, body, status, q === "" ? CACHE.page : CACHE.search);
      }),
      { query: HomeQuery },
    )
    .get("/u/:handle", ({ request, server, params, set }) => runtime.store.readTogether(async () => {
      const refused = refuse({ request, server, set });
      if (refused) return refused;
      const requested = safeDecode(params.handle);
      const row = await creators.find(requested);
      if (!row) {
        const shown = requested.trim().replace(/^@/, "").slice(0, 64);
        return htmlResponse(set, notFoundPage(paths, shown), 404, CACHE.page);
      }
      // One address per creator: /u/@Name and /u/NAME lead to /u/name.
      if (requested !== row.handle && normalizeHandle(requested) === row.handle) {
        return new Response(null, { status: 301, headers: { ...(set.headers as Record<string, string>), location: `/u/${row.handle}` } });
      }
      const body = profilePage(paths, {
        profile: creators.toProfile(row),
        trust: await creators.trust(row.handle),
        links: await publicService.linkedAccounts(row),
        vouches: await publicService.vouches(row.handle, { limit: 20, offset: 0 }),
        baseUrl: runtime.config.baseUrl,
        appealable: row.blacklisted ? await services.appeals.appealableBan(row) : false,
      });
      return htmlResponse(set, body, 200, CACHE.page);
    }))
    .get("/assets/:file", ({ params, request, set }) => {
      const found = byPath.get(`/assets/${params.file}`);
      if (!found) throw new ApiError(404, "not_found", `No asset ${params.file.slice(0, 64)}.`);
      const headers = { ...(set.headers as Record<string, string>), "content-type": found.type, etag: found.etag, "cache-control": CACHE.asset, "x-content-type-options": "nosniff" };
      if (matchesEtag(request.headers.get("if-none-match"), found.etag)) return new Response(null, { status: 304, headers });
      return new Response(found.body, { headers });
    });
}

/** A path segment as the visitor typed it; a malformed escape is kept as is. */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
