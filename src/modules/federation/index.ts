// Federation routes: the keyless identity document, the signed feed (a read key of an account the
// operator opened for following), and the admin routes of sources and exemptions (an admin-scoped
// key, or a signed-in staff admin).
import { Elysia } from "elysia";
import { limitByIp, requireKey, requireStaff } from "../../http/guards";
import { PUBLIC_IP_RULE } from "../../http/limits";
import { errors, KEY_OR_SESSION, KEYED_ERRORS } from "../../http/model";
import type { SessionLookup } from "../../http/session-cookie";
import type { Runtime } from "../../runtime";
import type { StaffService } from "../staff/service";
import {
  ExemptionList,
  ExemptionParams,
  ExemptionRemoved,
  Exemption,
  FeedPage,
  FeedQuery,
  NewExemptionBody,
  NewSourceBody,
  Source,
  SourceList,
  SourceParams,
  SourcePatchBody,
  SourceRemoved,
  SourceRemoveQuery,
  SyncResult,
  WellKnown,
} from "./model";
import type { FederationService } from "./service";

/**
 * How long the sync, a policy change's re-apply and a removal's retraction are waited for before
 * the answer says they go on: a large source's outlast an HTTP request.
 */
const SYNC_ANSWER_WAIT_MS = 5_000;

const JSON_TEXT = { "content-type": "application/json; charset=utf-8" };

export function wellKnownRoutes(runtime: Runtime, federation: FederationService) {
  return new Elysia({ tags: ["Federation"] })
    .use(limitByIp(runtime, "public", PUBLIC_IP_RULE))
    .get("/.well-known/trustlist.json", () => federation.wellKnown(), {
      response: { 200: WellKnown, ...errors(429) },
      detail: {
        operationId: "getInstanceIdentity",
        summary: "This instance's identity",
        description: "Keyless. The instance's id and name, its Ed25519 keys (retired ones too, with the endorsement that introduced each newer key), and the signed feed's URL.",
        security: [],
      },
    });
}

export function federationFeedRoutes(runtime: Runtime, federation: FederationService) {
  return new Elysia({ prefix: "/v1/federation", tags: ["Federation"] })
    .use(requireKey(runtime, "read"))
    // The page arrives as its JSON text (feed.ts writes it where it is read, often on another thread).
    .get("/changes", async ({ query, caller }) => new Response(await federation.changes(caller.accountId, query), { headers: JSON_TEXT }), {
      query: FeedQuery,
      response: { 200: FeedPage, ...errors(400, ...KEYED_ERRORS, 403, 422) },
      detail: {
        operationId: "federationChanges",
        summary: "The signed feed of this instance's own entries",
        description:
          "Changes (added, overturned, expired) of the entries that originated here, in commit order, watchlist rows included and flagged; never entries applied from a followed source. Each item is signed over its RFC 8785 canonical JSON without `sig`. Only for keys of an account the operator opened for following (403 `forbidden` otherwise).",
      },
    });
}

export function sourceRoutes(runtime: Runtime, sessions: SessionLookup, staff: StaffService, federation: FederationService) {
  return new Elysia({ prefix: "/v1/admin/sources", tags: ["Federation"] })
    .use(requireStaff(runtime, sessions, staff, "admin", PUBLIC_IP_RULE))
    .get("", async () => ({ data: await federation.listSources() }), {
      response: { 200: SourceList, ...errors(401, 402, 403, 429) },
      detail: { ...KEY_OR_SESSION, operationId: "listSources", summary: "List followed sources", description: "The key each was added with is never shown." },
    })
    .post(
      "",
      async ({ body, actor, set }) => {
        const source = await federation.addSource(body, actor);
        set.status = 201;
        return source;
      },
      {
        body: NewSourceBody,
        parse: "json",
        response: { 201: Source, ...errors(400, 401, 402, 403, 409, 422, 429) },
        detail: {
          ...KEY_OR_SESSION,
          operationId: "addSource",
          summary: "Follow another instance",
          description: "Reads the source's `/.well-known/trustlist.json`, pins its instance id and keys, and follows its signed feed from the start at the next sync.",
        },
      },
    )
    .get("/:name", ({ params }) => federation.getSource(params.name), {
      params: SourceParams,
      response: { 200: Source, ...errors(401, 402, 403, 404, 429) },
      detail: { ...KEY_OR_SESSION, operationId: "getSource", summary: "One followed source" },
    })
    .patch("/:name", ({ params, body, actor }) => federation.updateSource(params.name, body, actor, SYNC_ANSWER_WAIT_MS), {
      params: SourceParams,
      body: SourcePatchBody,
      parse: "json",
      response: { 200: Source, ...errors(400, 401, 402, 403, 404, 422, 429) },
      detail: {
        ...KEY_OR_SESSION,
        operationId: "updateSource",
        summary: "Change a source's policy, filters, key or interval",
        description: "A change of policy, severity cap, verticals or reason codes is applied at once to every entry held from the source.",
      },
    })
    .delete("/:name", ({ params, query, actor }) => federation.removeSource(params.name, query.keep === true, actor, SYNC_ANSWER_WAIT_MS), {
      params: SourceParams,
      query: SourceRemoveQuery,
      response: { 200: SourceRemoved, ...errors(401, 402, 403, 404, 422, 429) },
      detail: {
        ...KEY_OR_SESSION,
        operationId: "removeSource",
        summary: "Stop following a source",
        description: "Every entry held from it is overturned with reason `source_removed`, unless `keep=true`.",
      },
    })
    .post("/:name/sync", ({ params }) => federation.syncSource(params.name, SYNC_ANSWER_WAIT_MS), {
      params: SourceParams,
      response: { 200: SyncResult, ...errors(401, 402, 403, 404, 429) },
      detail: { ...KEY_OR_SESSION, operationId: "syncSource", summary: "Sync a source now", description: "Reads its feed from the stored cursor to the end, or to the first item that fails verification (`error`)." },
    });
}

export function exemptionRoutes(runtime: Runtime, sessions: SessionLookup, staff: StaffService, federation: FederationService) {
  return new Elysia({ prefix: "/v1/admin/exemptions", tags: ["Federation"] })
    .use(requireStaff(runtime, sessions, staff, "admin", PUBLIC_IP_RULE))
    .get("", async () => ({ data: await federation.exemptions.list() }), {
      response: { 200: ExemptionList, ...errors(401, 402, 403, 429) },
      detail: { ...KEY_OR_SESSION, operationId: "listExemptions", summary: "List exemptions" },
    })
    .post(
      "",
      async ({ body, actor, set }) => {
        const exemption = await federation.exemptions.add(body, actor);
        set.status = 201;
        return exemption;
      },
      {
        body: NewExemptionBody,
        parse: "json",
        response: { 201: Exemption, ...errors(400, 401, 402, 403, 404, 422, 429) },
        detail: {
          ...KEY_OR_SESSION,
          operationId: "addExemption",
          summary: "Exempt an account from followed sources",
          description: "No source's item (or the named source's) applies to the account; an entry already applied for it is overturned at once.",
        },
      },
    )
    .delete("/:id", ({ params, actor }) => federation.exemptions.remove(params.id, actor), {
      params: ExemptionParams,
      response: { 200: ExemptionRemoved, ...errors(401, 402, 403, 404, 429) },
      detail: { ...KEY_OR_SESSION, operationId: "removeExemption", summary: "Remove an exemption", description: "The sources' items for the account apply again at once." },
    });
}

/** Every federation controller, as one plugin of the app. */
export function federationRoutes(runtime: Runtime, sessions: SessionLookup, staff: StaffService, federation: FederationService) {
  return new Elysia({ name: "federation" })
    .use(wellKnownRoutes(runtime, federation))
    .use(federationFeedRoutes(runtime, federation))
    .use(sourceRoutes(runtime, sessions, staff, federation))
    .use(exemptionRoutes(runtime, sessions, staff, federation));
}
