// Schemas of the tripwire routes: a signed-in creator's watches on a handle or a
// Discord account, their counters and where alerts go.
import { t } from "elysia";
import { DateTime, literals, JsonInteger } from "../../http/model";

export const TRIGGERS = ["blacklisted", "trust_drop", "new_connection"] as const;
export type Trigger = (typeof TRIGGERS)[number];

const TriggerName = literals(TRIGGERS, {
  description: "blacklisted: the watched creator or Discord account gets a ban; trust_drop: the creator's Trust Score falls; new_connection: the creator links a public account.",
  examples: ["blacklisted"],
});

export const Tripwire = t.Object(
  {
    id: t.String({ examples: ["tw_01kdvdna009aqnt2ae7ejrkvaj"] }),
    who: t.String({ description: "The watched handle (with @) or Discord id.", examples: ["@shadowbuilds"] }),
    triggers: t.Array(TriggerName, { examples: [["blacklisted", "trust_drop"]] }),
    created_at: DateTime("When the wire was armed."),
    trips: JsonInteger({ description: "Matching events so far.", examples: [2] }),
    last_tripped_at: t.Nullable(DateTime("When it last tripped; null if never.")),
  },
  { $id: "Tripwire", description: "An armed tripwire." },
);

export const TripwirePreferences = t.Object(
  {
    discord_webhook_url: t.Nullable(
      t.String({ description: "Where alerts are posted (a Discord webhook URL); null for none.", examples: ["https://discord.com/api/webhooks/123456789012345678/abcDEF"] }),
    ),
    email: t.Nullable(t.String({ description: "Kept for e-mail alerts; this server sends none yet.", examples: ["alice@example.org"] })),
  },
  { $id: "TripwirePreferences", description: "Where a creator's tripwire alerts go." },
);

export const TripwireList = t.Object(
  {
    tripwires: t.Array(Tripwire, { description: "Newest first." }),
    stats: t.Object(
      {
        armed: JsonInteger({ description: "Wires armed.", examples: [3] }),
        tripped_total: JsonInteger({ description: "Trips of all wires together.", examples: [5] }),
      },
      { description: "Counters over your wires." },
    ),
    preferences: TripwirePreferences,
  },
  { $id: "TripwireList", description: "Your tripwires, their counters and your alert preferences." },
);

export const TripwireBody = t.Object(
  {
    who: t.String({ minLength: 1, maxLength: 64, description: "A handle (a leading @ is fine) or a Discord id (17-20 digits).", examples: ["@shadowbuilds"] }),
    triggers: t.Optional(t.Array(TriggerName, { minItems: 1, maxItems: 3, description: "Default: all three." })),
  },
  { $id: "TripwireBody", additionalProperties: t.Never() },
);

export const TripwireParams = t.Object({ id: t.String({ maxLength: 64, description: "Tripwire id.", examples: ["tw_01kdvdna009aqnt2ae7ejrkvaj"] }) });

export const PreferencesBody = t.Object(
  {
    discord_webhook_url: t.Optional(t.Nullable(t.String({ maxLength: 2048, description: "A Discord webhook URL; null removes it." }))),
    email: t.Optional(t.Nullable(t.String({ maxLength: 254, description: "null removes it." }))),
  },
  { $id: "TripwirePreferencesBody", additionalProperties: t.Never(), description: "Fields left out keep their value." },
);
