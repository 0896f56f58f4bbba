// GET /badge/{handle}: the embeddable trust badge. Always an SVG with status 200 (an image tag
// shows no error page): an unknown handle gets a neutral "Not Verified" badge. CDN-cached for an hour.
// `/badge/{handle}.json` answers the same badge in shields.io's endpoint format (endpoint.ts).
import { Elysia, t } from "elysia";
import { BadgeParams, BadgeQuery, BadgeSvg, ShieldsEndpoint } from "./model";
import type { CreatorsService } from "../creators/service";
import { TIER_COLORS, tierLabel } from "../creators/trust";
import { shieldsEndpoint } from "./endpoint";
import { type BadgeTheme, renderBadge } from "./render";

const NEUTRAL = "#9f9f9f";
const HEADERS = { "content-type": "image/svg+xml; charset=utf-8", "cache-control": "public, max-age=3600" };
const JSON_HEADERS = { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=3600" };
/** Rendered badges by content; a badge only changes when the creator's band or name does. */
const CACHE_LIMIT = 10_000;

export function badgeRoutes(creators: CreatorsService) {
  const cache = new Map<string, string>();
  const render = (theme: BadgeTheme, label: string, message: string, color: string) => {
    const key = `${theme}\u0000${label}\u0000${message}`;
    let svg = cache.get(key);
    if (svg === undefined) {
      svg = renderBadge({ label, message, color, theme, title: `${label}: ${message} on trustlist` });
      if (cache.size >= CACHE_LIMIT) cache.clear();
      cache.set(key, svg);
    }
    return svg;
  };
  return new Elysia({ tags: ["Public"] }).get(
    "/badge/:handle",
    ({ params, query }) => {
      const json = /\.json$/i.test(params.handle);
      const requested = params.handle.replace(/\.(?:svg|json)$/i, "").trim().replace(/^@/, "");
      const creator = creators.findNow(requested);
      const content = creator
        ? { label: creator.display_name ?? `@${creator.handle}`, message: tierLabel(creator.trust_band), color: TIER_COLORS[creator.trust_band] }
        : { label: `@${requested}`, message: "Not Verified", color: NEUTRAL };
      if (json) return Response.json(shieldsEndpoint(content), { headers: JSON_HEADERS });
      // Any other theme value still gets a badge: the default one.
      const theme: BadgeTheme = query.theme === "light" ? "light" : "dark";
      return new Response(render(theme, content.label, content.message, content.color), { headers: HEADERS });
    },
    {
      params: BadgeParams,
      query: BadgeQuery,
      // Documentation only: a Response is not validated. Each branch names its media type.
      response: { 200: t.Union([BadgeSvg, ShieldsEndpoint], { description: "The badge: SVG, or shields.io endpoint JSON for a `.json` handle." }) },
      detail: {
        operationId: "getBadge",
        security: [],
        summary: "Trust badge",
        description:
          "Shields-style SVG with the creator's trust band, or a neutral `Not Verified` badge for an unknown handle. With a `.json` suffix, the same badge as shields.io endpoint JSON (`{schemaVersion: 1, label, message, color, cacheSeconds}`), for `https://img.shields.io/endpoint?url=…`. Always 200; `Cache-Control: public, max-age=3600`.",
      },
    },
  );
}
