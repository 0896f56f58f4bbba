// The keyed check served by Bun's router directly: the route a bot calls thousands of times a day.
// It answers the common case, an admitted caller with a well-formed query, through exactly what
// the Elysia route runs (the same query schema and parser, `admitKeyed`, `checkNow`, the request
// id, metrics and access line of src/http/conventions.ts), without the framework's per-request
// context, hook chain and response normalisation. Everything else (no key, a refused key, a query
// the schema rejects, HEAD) is handed to the app untouched: admission charges nothing until it
// admits, so the app's answer, its error envelope included, is the one the caller gets.
// SQLite only: there the key, the quota and the verdict are answered without a promise.
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { parseQueryFromURL } from "elysia/parse-query";
import { admitKeyed, type Caller } from "../../http/auth";
import { type AppFallback, failureOf, recordAnswer, requestIdOf } from "../../http/conventions";
import { envelope } from "../../http/errors";
import { urlTextProblem } from "../../http/url-text";
import type { Runtime } from "../../runtime";
import { CheckQuery, type CheckResult } from "./model";

type CheckAnswer = typeof CheckResult.static;
import { type BlacklistService, normalizeAccountId } from "./service";

export const CHECK_ROUTE = "/v1/blacklist/check";

export function checkFastPath(runtime: Runtime, blacklist: BlacklistService, fallback: AppFallback) {
  const query = TypeCompiler.Compile(CheckQuery);
  const endpoint = `GET ${CHECK_ROUTE}`;
  return (request: Request): Response | Promise<Response> => {
    const startedAt = performance.now();
    // Before the key cache is read: another process's revoke applies from this request on.
    runtime.store.changes.checkAtRequest();
    const url = request.url;
    const at = url.indexOf("?");
    const params: unknown = at < 0 ? {} : parseQueryFromURL(url, at + 1);
    // A query the schema or the service would refuse goes to the app, which charges it as it
    // charges every malformed keyed request, then refuses it.
    if (!query.Check(params) || normalizeAccountId(params.provider, params.id) === null || urlTextProblem(url)) return fallback(request);
    const headers: Record<string, string | number> = {};
    let caller: Caller;
    try {
      caller = admitKeyed(runtime, request.headers.get("authorization"), "read", endpoint, headers);
    } catch {
      return fallback(request);
    }
    const requestId = requestIdOf(request);
    headers["x-request-id"] = requestId;
    let status = 200;
    let body: CheckAnswer | ReturnType<typeof envelope>;
    try {
      body = blacklist.checkNow(params.provider, params.id, params.vertical) as CheckAnswer;
    } catch (error) {
      // Admitted and charged: the app would charge it again, so the failure is answered here.
      const failure = failureOf(runtime, error, requestId);
      if (failure.headers) Object.assign(headers, failure.headers);
      status = failure.status;
      body = envelope(failure.code, failure.message, requestId);
    }
    recordAnswer(runtime, { method: "GET", path: CHECK_ROUTE, route: CHECK_ROUTE, status, startedAt, requestId, keyId: caller.keyId });
    return Response.json(body, { status, headers: headers as Record<string, string> });
  };
}
