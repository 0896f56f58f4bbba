// The caller's own usage, and the operator's admin routes for accounts and keys.
import { Elysia } from "elysia";
import { requireKey } from "../../http/guards";
import { errors, KEYED_ERRORS } from "../../http/model";
import type { Runtime } from "../../runtime";
import {
  Account,
  AccountList,
  AccountPatchBody,
  ApiKey,
  IdParams,
  IssuedKey,
  KeyList,
  KeysQuery,
  NewAccountBody,
  NewKeyBody,
  UsageStats,
} from "./model";
import type { AccountsService, UsageService } from "./service";

export function usageRoutes(runtime: Runtime, usage: UsageService) {
  return new Elysia({ prefix: "/v1/account", tags: ["Account"] })
    .use(requireKey(runtime, "read"))
    .get("/usage", ({ caller }) => usage.forKey(caller), {
      response: { 200: UsageStats, ...errors(...KEYED_ERRORS) },
      detail: { operationId: "getUsage", summary: "Usage of the calling key", description: "Includes this call. The daily window is shared by all keys of the account." },
    });
}

export function adminRoutes(runtime: Runtime, accounts: AccountsService) {
  return new Elysia({ prefix: "/v1/admin", tags: ["Admin"] })
    .use(requireKey(runtime, "admin"))
    .post(
      "/accounts",
      async ({ body, set }) => {
        const account = await accounts.createAccount(body);
        set.status = 201;
        return account;
      },
      { body: NewAccountBody, parse: "json", response: { 201: Account, ...errors(400, ...KEYED_ERRORS, 403, 409, 422) }, detail: { operationId: "createAccount", summary: "Create an account" } },
    )
    .get("/accounts", async () => ({ data: await accounts.listAccounts() }), {
      response: { 200: AccountList, ...errors(...KEYED_ERRORS, 403) },
      detail: { operationId: "listAccounts", summary: "List accounts" },
    })
    .patch("/accounts/:id", ({ params, body }) => accounts.updateAccount(params.id, body), {
      params: IdParams,
      body: AccountPatchBody,
      parse: "json",
      response: { 200: Account, ...errors(400, ...KEYED_ERRORS, 403, 404, 422) },
      detail: { operationId: "updateAccount", summary: "Change tier, quota or status", description: "`status: suspended` makes every key of the account answer 402." },
    })
    .post(
      "/accounts/:id/keys",
      async ({ params, body, set }) => {
        const key = await accounts.createKey({ ...body, account: params.id });
        set.status = 201;
        return key;
      },
      {
        params: IdParams,
        body: NewKeyBody,
        parse: "json",
        response: { 201: IssuedKey, ...errors(400, ...KEYED_ERRORS, 403, 404, 409, 422) },
        detail: { operationId: "createKey", summary: "Create a key", description: "The secret is in `key`, returned only here. 409 past the plan's key cap." },
      },
    )
    .get("/keys", async ({ query }) => ({ data: await accounts.listKeys(query.account) }), {
      query: KeysQuery,
      response: { 200: KeyList, ...errors(...KEYED_ERRORS, 403, 404) },
      detail: { operationId: "listKeys", summary: "List keys", description: "Never includes secrets." },
    })
    .delete("/keys/:id", ({ params }) => accounts.revokeKey(params.id), {
      params: IdParams,
      response: { 200: ApiKey, ...errors(...KEYED_ERRORS, 403, 404) },
      detail: { operationId: "revokeKey", summary: "Revoke a key" },
    })
    .post("/keys/:id/rotate", ({ params }) => accounts.rotateKey(params.id), {
      params: IdParams,
      response: { 200: IssuedKey, ...errors(...KEYED_ERRORS, 403, 404, 409) },
      detail: { operationId: "rotateKey", summary: "Rotate a key's secret", description: "Same key id, new secret; the old secret stops working at once." },
    });
}
