// Schemas of the badge route: the SVG it answers by default and the shields.io endpoint JSON it
// answers for a `.json` handle (https://shields.io/badges/endpoint-badge, schema version 1).
import { t } from "elysia";
import { JsonInteger } from "../../http/model";

export const BadgeParams = t.Object({
  handle: t.String({
    description: "Creator handle; a leading @ and a trailing .svg are ignored; a trailing .json asks for shields.io's endpoint format.",
    examples: ["shadowbuilds.svg"],
  }),
});

export const BadgeQuery = t.Object({ theme: t.Optional(t.String({ description: "`dark` (default) or `light`.", examples: ["light"] })) });

export const BadgeSvg = t.String({ contentMediaType: "image/svg+xml", description: "The badge as an SVG image." });

/** Shields rejects unknown keys, so the answer holds only fields of its schema. */
export const ShieldsEndpoint = t.Object(
  {
    schemaVersion: t.Literal(1),
    label: t.String({ examples: ["Shadow Builds"] }),
    message: t.String({ examples: ["Trusted"] }),
    color: t.String({ description: "Hex colour of the trust band.", examples: ["#4c1"] }),
    cacheSeconds: JsonInteger({ description: "How long shields may keep it: the SVG badge's own hour.", examples: [3600] }),
  },
  { $id: "ShieldsEndpoint", description: "The badge in shields.io's endpoint format, for a `.json` handle." },
);
