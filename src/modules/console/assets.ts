// The console's stylesheet (the public pages' own, plus the console's additions), its script and
// icon, embedded in the binary under content-hashed names below /console/assets/, served with an
// ETag and cached for a year (a new build gets new names).
import { ApiError } from "../../http/errors";
import { asset, type Asset, ICON } from "../pages";
import siteCss from "../pages/assets/site.css" with { type: "text" };
import { matchesEtag } from "../widgets";
import consoleCss from "./assets/console.css" with { type: "text" };
import consoleJs from "./assets/console.js" with { type: "text" };
import type { ConsoleAssets } from "./layout";

export interface ConsoleAssetSet {
  byPath: Map<string, Asset>;
  paths: ConsoleAssets;
}

export function buildConsoleAssets(): ConsoleAssetSet {
  const list = [
    asset("console", "css", "text/css; charset=utf-8", `${siteCss}\n${consoleCss}`),
    asset("console", "js", "text/javascript; charset=utf-8", consoleJs),
    asset("icon", "svg", "image/svg+xml", ICON),
  ].map((a) => ({ ...a, path: `/console${a.path}` }));
  return { byPath: new Map(list.map((a) => [a.path, a])), paths: { css: list[0]!.path, js: list[1]!.path, icon: list[2]!.path } };
}

export function serveAsset(assets: ConsoleAssetSet, file: string, request: Request, set: { headers: Record<string, string | number> }): Response {
  const found = assets.byPath.get(`/console/assets/${file}`);
  if (!found) throw new ApiError(404, "not_found", `No asset ${file.slice(0, 64)}.`);
  const headers = {
    ...(set.headers as Record<string, string>),
    "content-type": found.type,
    etag: found.etag,
    "cache-control": "public, max-age=31536000, immutable",
    "x-content-type-options": "nosniff",
  };
  if (matchesEtag(request.headers.get("if-none-match"), found.etag)) return new Response(null, { status: 304, headers });
  return new Response(found.body, { headers });
}
