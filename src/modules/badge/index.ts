// GET /badge/{handle}: the embeddable trust badge. Always an SVG with status 200 (an image tag
// shows no error page): an unknown handle gets a neutral "Not Verified" badge. CDN-cached for an hour.
// `/badge/{handle}.json` answers the same badge in shields.io's endpoint format (endpoint.ts).
import { Elysia, t } from "elysia";
import { pathOf } from "../../http/conventions";
import { BadgeParams, BadgeQuery, BadgeSvg, ShieldsEndpoint } from "./model";
import type { BadgeTheme } from "./render";
import type { BadgeService } from "./service";

const SVG_HEADERS = { "content-type": "image/svg+xml; charset=utf-8", "cache-control": "public, max-age=3600" };
const JSON_HEADERS = { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=3600" };

/** A badge answer: its body and the headers naming its media type and cache lifetime. */
export interface BadgeAnswer {
  headers: typeof SVG_HEADERS;
  body: string | typeof ShieldsEndpoint.static;
}

/**
 * The badge a requested handle and theme ask for, whichever path serves it (this route, or Bun's
 * router: fast-path.ts): shields.io endpoint JSON for a `.json` handle, else the SVG. Any theme
 * value other than `light` gets the default, dark, badge.
 */
export async function badgeAnswer(badges: BadgeService, handle: string, theme: string | undefined): Promise<BadgeAnswer> {
  if (/\.json$/i.test(handle)) return { headers: JSON_HEADERS, body: await badges.endpointFor(handle) };
  const drawn: BadgeTheme = theme === "light" ? "light" : "dark";
  return { headers: SVG_HEADERS, body: await badges.svgFor(handle, drawn) };
}

export function badgeRoutes(badges: BadgeService) {
  return new Elysia({ tags: ["Public"] }).get(
    "/badge/:handle",
    // The body is returned and the headers set on `set`, never a Response: Elysia copies a returned
    // Response into a new one through its body stream to add the shared headers (request id, CORS,
    // rate limit), which cost more than the rest of the route (70 against 40 µs a badge).
    async ({ params, query, set }) => {
      const answer = await badgeAnswer(badges, params.handle, query.theme);
      Object.assign(set.headers, answer.headers);
      return answer.body;
    },
    {
      // A malformed percent-escape leaves the router without a decoded handle, which would fail the
      // params schema with a 422: the badge is always an image, so the raw segment stands in (it
      // cannot be a handle, so it gets the neutral badge).
      transform({ params, request }) {
        const holder = params as { handle?: unknown };
        if (typeof holder.handle !== "string") holder.handle = rawHandleSegment(request.url);
      },
      params: BadgeParams,
      query: BadgeQuery,
      // Each branch names its media type.
      response: { 200: t.Union([BadgeSvg, ShieldsEndpoint], { description: "The badge: SVG, or shields.io endpoint JSON for a `.json` handle." }) },
      detail: {
        operationId: "getBadge",
        security: [],
        summary: "Trust badge",
        description:
          "Shields-style SVG with the creator's trust band, or a neutral `Not Verified` badge for an unknown handle or text that cannot be a handle. With a `.json` suffix, the same badge as shields.io endpoint JSON (`{schemaVersion: 1, label, message, color, cacheSeconds}`), for `https://img.shields.io/endpoint?url=…`. Always 200; `Cache-Control: public, max-age=3600`.",
      },
    },
  );
}

/** The undecoded last path segment of a badge URL. */
function rawHandleSegment(url: string): string {
  const path = pathOf(url);
  return path.slice(path.lastIndexOf("/") + 1);
}
