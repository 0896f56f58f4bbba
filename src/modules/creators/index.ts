// Creator controllers: keyed profile and trust reads, and the partner path that writes creators
// and their linked accounts.
import { Elysia } from "elysia";
import { requireKey } from "../../http/guards";
import { errors, KEYED_ERRORS } from "../../http/model";
import type { Runtime } from "../../runtime";
import { iso } from "../../clock";
import { ConnectionBody, ConnectionList, ConnectionParams, CreatorBody, CreatorProfile, HandleParams, TrustBreakdown, WrittenConnection } from "./model";
import type { ConnectionRow, CreatorsService } from "./service";

export function userRoutes(runtime: Runtime, creators: CreatorsService) {
  return new Elysia({ prefix: "/v1/users", tags: ["Creators"] })
    .use(requireKey(runtime, "read"))
    .get("/:handle", ({ params }) => creators.profile(params.handle), {
      params: HandleParams,
      response: { 200: CreatorProfile, ...errors(...KEYED_ERRORS, 404) },
      detail: { operationId: "getCreator", summary: "Creator profile", description: "Public profile with the Trust Score and its band." },
    })
    .get("/:handle/trust", ({ params }) => creators.trust(params.handle), {
      params: HandleParams,
      response: { 200: TrustBreakdown, ...errors(...KEYED_ERRORS, 404) },
      detail: {
        operationId: "getCreatorTrust",
        summary: "Trust Score breakdown",
        description: "The score, band, 30-day trend and public basis. The basis is what the score was computed from; penalties are never shown.",
      },
    })
    .get("/:handle/connections", async ({ params }) => ({ connections: await creators.connections(params.handle) }), {
      params: HandleParams,
      response: { 200: ConnectionList, ...errors(...KEYED_ERRORS, 404) },
      detail: { operationId: "listCreatorConnections", summary: "Public linked accounts" },
    });
}

export function partnerCreatorRoutes(runtime: Runtime, creators: CreatorsService) {
  return new Elysia({ prefix: "/v1/partner/creators", tags: ["Partner"] })
    .use(requireKey(runtime, "write"))
    .put(
      "/:handle",
      async ({ params, body, set }) => {
        const { created, profile } = await creators.upsert(params.handle, body ?? {});
        set.status = created ? 201 : 200;
        return profile;
      },
      {
        params: HandleParams,
        body: CreatorBody,
        parse: "json",
        response: { 200: CreatorProfile, 201: CreatorProfile, ...errors(400, ...KEYED_ERRORS, 403, 422) },
        detail: {
          operationId: "upsertCreator",
          summary: "Create or update a creator",
          description: "201 when the handle is new, 200 when it existed. Fields left out keep their value. The Trust Score is recomputed in the same transaction.",
        },
      },
    )
    .post(
      "/:handle/connections",
      async ({ params, body, set }) => {
        const { created, connection } = await creators.link(params.handle, body);
        set.status = created ? 201 : 200;
        return writtenConnection(connection);
      },
      {
        params: HandleParams,
        body: ConnectionBody,
        parse: "json",
        response: { 200: WrittenConnection, 201: WrittenConnection, ...errors(400, ...KEYED_ERRORS, 403, 404, 409, 422) },
        detail: {
          operationId: "linkConnection",
          summary: "Link a platform account",
          description:
            "201 for a new link, 200 when this creator already had it (fields given are updated). An account linked to another creator is 409. A ban on the account blacklists the creator.",
        },
      },
    )
    .delete(
      "/:handle/connections/:provider/:provider_user_id",
      async ({ params }) => writtenConnection(await creators.unlink(params.handle, params.provider, params.provider_user_id)),
      {
        params: ConnectionParams,
        response: { 200: WrittenConnection, ...errors(...KEYED_ERRORS, 403, 404, 422) },
        detail: { operationId: "unlinkConnection", summary: "Unlink a platform account", description: "Answers the link removed; the creator's score is recomputed without it." },
      },
    );
}

function writtenConnection(connection: ConnectionRow) {
  return {
    provider: connection.provider,
    provider_user_id: connection.providerUserId,
    provider_username: connection.providerUsername,
    provider_url: connection.providerUrl,
    verified_at: iso(connection.verifiedAt),
    public: !!connection.public,
  };
}
