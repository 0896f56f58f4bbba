// GET /badge/{handle}.json: the same badge as the SVG route, in shields.io's endpoint format, for
// pages that prefer shields' own styles: https://img.shields.io/endpoint?url=BASE/badge/name.json
// Shields rejects unknown keys, so the answer holds only fields of its schema (version 1).
import type { ShieldsEndpoint } from "./model";
import { badgeText } from "./render";

export function shieldsEndpoint(content: { label: string; message: string; color: string }): typeof ShieldsEndpoint.static {
  return { schemaVersion: 1, label: badgeText(content.label), message: badgeText(content.message), color: content.color, cacheSeconds: 3600 };
}
