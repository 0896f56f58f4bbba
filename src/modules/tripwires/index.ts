// Tripwire controllers: a signed-in creator's own wires under /v1/me; the
// session guard makes another creator's wire invisible (404), and an API key never opens them.
import { Elysia } from "elysia";
import type { SessionLookup } from "../../http/session-cookie";
import { requireSession } from "../../http/guards";
import { PUBLIC_IP_RULE } from "../../http/limits";
import { errors } from "../../http/model";
import type { Runtime } from "../../runtime";
import { PreferencesBody, Tripwire, TripwireBody, TripwireList, TripwireParams, TripwirePreferences } from "./model";
import type { TripwiresService } from "./service";

const SESSION_ONLY = { security: [{ session: [] }] };

export function tripwireRoutes(runtime: Runtime, tripwires: TripwiresService, sessions: SessionLookup) {
  return new Elysia({ prefix: "/v1/me/tripwires", tags: ["Tripwires"] })
    .use(requireSession(runtime, sessions, PUBLIC_IP_RULE))
    .get("", ({ viewer }) => tripwires.list(viewer), {
      response: { 200: TripwireList, ...errors(401, 429) },
      detail: { ...SESSION_ONLY, operationId: "listTripwires", summary: "Your tripwires", description: "Armed wires with their trip counts, counters over them, and where alerts go." },
    })
    .post(
      "",
      async ({ viewer, body, set }) => {
        const wire = await tripwires.create(viewer, body);
        set.status = 201;
        return wire;
      },
      {
        body: TripwireBody,
        parse: "json",
        response: { 201: Tripwire, ...errors(400, 401, 409, 422, 429) },
        detail: {
          ...SESSION_ONLY,
          operationId: "createTripwire",
          summary: "Arm a tripwire",
          description:
            "Watches a handle (`@name`) or a Discord id. A wire on a Discord id trips on `blacklisted` when a ban names that account, and on `trust_drop` and `new_connection` through the creator it is publicly linked to. Each matching event adds one trip and, with a Discord webhook URL in your preferences, posts a short alert there (delivered with the webhooks' retries). 409 when you already watch it or have 100 wires.",
        },
      },
    )
    .put("/preferences", ({ viewer, body }) => tripwires.setPreferences(viewer, body), {
      body: PreferencesBody,
      parse: "json",
      response: { 200: TripwirePreferences, ...errors(400, 401, 422, 429) },
      detail: {
        ...SESSION_ONLY,
        operationId: "setTripwirePreferences",
        summary: "Where alerts go",
        description:
          "`discord_webhook_url` must be a Discord webhook URL that resolves to a public address (the webhooks' guard); 422 otherwise. `email` is kept; this server sends no e-mail alerts yet. Fields left out keep their value.",
      },
    })
    .delete("/:id", ({ viewer, params }) => tripwires.delete(viewer, params.id), {
      params: TripwireParams,
      response: { 200: Tripwire, ...errors(401, 404, 429) },
      detail: { ...SESSION_ONLY, operationId: "deleteTripwire", summary: "Disarm a tripwire", description: "Answers the deleted wire. Another creator's wire is 404." },
    });
}
