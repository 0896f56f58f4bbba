// Blacklist controllers: the keyed reads a bot calls, and the partner write path.
import { Elysia } from "elysia";
import { ApiError } from "../../http/errors";
import { isProOrHigher, keyActor, requireKey } from "../../http/guards";
import { errors, KEYED_ERRORS } from "../../http/model";
import type { Runtime } from "../../runtime";
import {
  BatchBody,
  BatchResponse,
  BlacklistEntry,
  BlacklistEntryPage,
  ChangesPage,
  ChangesQuery,
  CheckBatchBody,
  CheckQuery,
  CheckResult,
  EntryParams,
  ListQuery,
  NewEntryBody,
  OverturnBody,
  OverturnResult,
  WrittenEntry,
} from "./model";
import { type BlacklistService, toPublicEntry } from "./service";

export function blacklistRoutes(runtime: Runtime, blacklist: BlacklistService) {
  return new Elysia({ prefix: "/v1/blacklist", tags: ["Blacklist"] })
    .use(requireKey(runtime, "read"))
    .get("", ({ query }) => blacklist.list(query), {
      query: ListQuery,
      response: { 200: BlacklistEntryPage, ...errors(400, ...KEYED_ERRORS, 422) },
      detail: {
        operationId: "listEntries",
        summary: "List active entries",
        description:
          "Active, confirmed entries in issue order with an opaque keyset cursor. A full walk sees every entry exactly once, even while entries are added. `since` keeps entries issued strictly after it.",
      },
    })
    .get("/check", ({ query }) => blacklist.checkNow(query.provider, query.id, query.vertical), {
      query: CheckQuery,
      response: { 200: CheckResult, ...errors(400, ...KEYED_ERRORS, 422) },
      detail: {
        operationId: "checkAccount",
        summary: "Check one account",
        description:
          "Whether a platform account is banned. `banned` is true only for an active, confirmed `ban`; a `warn` or `restrict` hit answers `banned: false` with the hit's fields so a bot can act on the severity.",
      },
    })
    .post(
      "/check/batch",
      ({ body, caller }) => {
        if (!isProOrHigher(caller.apiTier) && caller.rateTier !== "partner") {
          throw new ApiError(403, "not_entitled", "Batch checks need a Pro plan or higher, or a Partner key.");
        }
        return blacklist.checkMany(body.accounts, body.vertical);
      },
      {
        body: CheckBatchBody,
        parse: "json",
        response: { 200: BatchResponse, ...errors(400, ...KEYED_ERRORS, 403, 422) },
        detail: {
          operationId: "batchCheckAccounts",
          summary: "Check up to 50 accounts",
          description: "Pro plans and higher, or Partner keys. One row per account in input order; a malformed row carries `error: invalid_account` and does not fail the call.",
        },
      },
    )
    .post(
      "/batch",
      ({ body, caller }) => {
        if (!isProOrHigher(caller.apiTier)) {
          throw new ApiError(402, "plan_upgrade_required", "This route needs a Pro plan or higher.");
        }
        return blacklist.checkMany(body.items, body.vertical);
      },
      {
        body: BatchBody,
        parse: "json",
        response: { 200: BatchResponse, ...errors(400, ...KEYED_ERRORS, 422) },
        detail: {
          operationId: "batchCheckItems",
          summary: "Check up to 50 accounts (items)",
          description: "Pro plans and higher. Same answer as `/check/batch`, with the array named `items`.",
        },
      },
    )
    .get(
      "/entries/:id",
      async ({ params }) => {
        const entry = await blacklist.get(params.id);
        if (!entry) throw new ApiError(404, "not_found", `No active blacklist entry ${params.id}.`);
        return entry;
      },
      {
        params: EntryParams,
        response: { 200: BlacklistEntry, ...errors(...KEYED_ERRORS, 404) },
        detail: { operationId: "getEntry", summary: "Get one active entry" },
      },
    )
    .get("/changes", ({ query }) => blacklist.changes(query), {
      query: ChangesQuery,
      response: { 200: ChangesPage, ...errors(400, ...KEYED_ERRORS, 422) },
      detail: {
        operationId: "listChanges",
        summary: "Follow list changes",
        description: "An ordered feed of additions, overturns and expiries so a mirror can follow removals too. Keep the last `next_cursor` and poll with it.",
      },
    });
}

export function partnerBlacklistRoutes(runtime: Runtime, blacklist: BlacklistService) {
  return new Elysia({ prefix: "/v1/partner/blacklist", tags: ["Partner"] })
    .use(requireKey(runtime, "write"))
    .post(
      "",
      async ({ body, caller, set }) => {
        const row = await blacklist.add(body, keyActor(caller));
        set.status = 201;
        return { ...toPublicEntry(row), provider: row.provider, provider_user_id: row.providerUserId, username: row.username };
      },
      {
        body: NewEntryBody,
        parse: "json",
        response: { 201: WrittenEntry, ...errors(400, ...KEYED_ERRORS, 403, 409, 422) },
        detail: {
          operationId: "addEntry",
          summary: "Add an entry",
          description: "Write-scoped keys. Records the entry, its change-feed row and a `blacklist.added` event in one transaction.",
        },
      },
    )
    .post("/:id/overturn", ({ params, body, caller }) => blacklist.overturn(params.id, body?.reason ?? null, keyActor(caller)), {
      params: EntryParams,
      body: OverturnBody,
      parse: "json",
      response: { 200: OverturnResult, ...errors(...KEYED_ERRORS, 403, 404, 409) },
      detail: { operationId: "overturnEntry", summary: "Overturn an entry", description: "Emits `blacklist.overturned`; a second overturn is 409." },
    });
}
