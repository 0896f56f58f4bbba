// Finishes the document @elysiajs/openapi generates from the route schemas, in one pass over
// whatever routes exist, so a route added later is finished the same way. The generator leaves
// what OpenAPI 3.1 tools reject or mistype: Elysia's `nullable: true` beside 3.1's null type,
// the query-coercing form of `t.Integer` (`anyOf: [{type: string, format: integer}, {type:
// integer}]`) even in responses, every model inlined at each use, and no response headers.
// Here: named models (`$id`) become `components.schemas` referenced by `$ref`, the error envelope
// becomes one shared response per status with the codes it can carry, and every response lists
// the request-id and rate-limit headers.

type Json = Record<string, any>;

/** Each error status as one shared response: its name, the codes it can carry, a sample message (http/errors.ts). */
const ERROR_RESPONSES: Record<string, { name: string; summary: string; codes: Record<string, string> }> = {
  400: {
    name: "BadRequest",
    summary: "Malformed request",
    codes: { invalid_request: "Missing required query parameter 'id'.", invalid_cursor: "Invalid or tampered cursor." },
  },
  401: { name: "Unauthorized", summary: "Missing, invalid or revoked API key", codes: { unauthorized: "Invalid or revoked API key." } },
  402: {
    name: "PaymentRequired",
    summary: "Account suspended or plan too small",
    codes: {
      subscription_required: "This account is suspended: its subscription is required to use the API.",
      plan_upgrade_required: "This route needs a Pro plan or higher.",
    },
  },
  403: {
    name: "Forbidden",
    summary: "Key scope or plan does not allow this, or a cookie write came from another origin",
    codes: {
      forbidden: "This key's scope 'read' does not allow this route; it needs 'write'.",
      not_entitled: "Batch checks need a Pro plan or higher, or a Partner key.",
    },
  },
  404: { name: "NotFound", summary: "No such resource", codes: { not_found: "No active blacklist entry bl_01jd5x8q3m7k2c9v4n6p8r0s1t." } },
  405: { name: "MethodNotAllowed", summary: "Method not allowed on this path", codes: { method_not_allowed: "DELETE is not allowed here; use GET." } },
  409: { name: "Conflict", summary: "Conflicts with the current state", codes: { conflict: "Entry bl_01jd5x8q3m7k2c9v4n6p8r0s1t is already overturned." } },
  410: { name: "Gone", summary: "No longer available", codes: { gone: "This resource is gone." } },
  413: { name: "PayloadTooLarge", summary: "Body over 1 MiB", codes: { payload_too_large: "Request body is larger than 1048576 bytes." } },
  415: {
    name: "UnsupportedMediaType",
    summary: "A body that is not `application/json`",
    codes: { unsupported_media_type: "Request bodies must be JSON (Content-Type: application/json)." },
  },
  422: {
    name: "Unprocessable",
    summary: "A value of the wrong type, range or enum",
    codes: {
      unprocessable: "Invalid query parameter 'limit': must be at most 100.",
      idempotency_key_reused: "This Idempotency-Key was used with another request.",
    },
  },
  429: {
    name: "TooManyRequests",
    summary: "Burst limit or daily quota reached",
    codes: {
      rate_limited: "Too many requests for this key; retry in 1 s.",
      quota_exceeded: "Daily quota of 1000 calls used up; it resets at midnight UTC.",
    },
  },
  500: { name: "InternalError", summary: "Unexpected failure", codes: { internal: "Internal error. Quote the request id when reporting it." } },
  503: { name: "ServiceUnavailable", summary: "The database stayed locked", codes: { busy: "The database is busy; retry shortly." } },
};

/** The envelope model's name; error responses whose schema is this model become shared responses. */
const ERROR_SCHEMA = "ErrorEnvelope";

const HEADERS: Json = {
  "X-Request-Id": {
    description: "The request's id: a sane incoming `X-Request-Id` echoed, else a new one. An error's `request_id` equals it.",
    schema: { type: "string", examples: ["req_k2j4h1"] },
  },
  "X-RateLimit-Limit": {
    description: "Keyed routes: the account's daily quota. Keyless routes: the capacity of the caller's IP bucket.",
    schema: { type: "integer", examples: [1000] },
  },
  "X-RateLimit-Remaining": {
    description: "Calls left: in the daily quota after this call (keyed), or in the IP bucket (keyless).",
    schema: { type: "integer", examples: [999] },
  },
  "X-RateLimit-Reset": {
    description: "Epoch seconds when the limit refills: next midnight UTC for the daily quota.",
    schema: { type: "integer", examples: [1795824000] },
  },
  "Retry-After": {
    description: "Seconds to wait before retrying.",
    schema: { type: "integer", minimum: 1, examples: [30] },
  },
};
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
const EVERY_RESPONSE_HEADERS = ["X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"];
/** Errors that say when to come back: 429, and 503 `busy`. (The health check's 503 is not an error envelope.) */
const RETRY_STATUSES = new Set(["429", "503"]);

function responseHeaders(retry: boolean) {
  const names = retry ? [...EVERY_RESPONSE_HEADERS, "Retry-After"] : EVERY_RESPONSE_HEADERS;
  return Object.fromEntries(names.map((name) => [name, headerRef(name)]));
}

/** Elysia's string forms of coerced query values; they say nothing a client should send or expect. */
const COERCION_FORMATS = new Set(["integer", "numeric", "boolean"]);
const isCoercionBranch = (s: unknown) => isObject(s) && s.type === "string" && COERCION_FORMATS.has(s.format as string);

function isObject(value: unknown): value is Json {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

/**
 * One JSON Schema node and its children, in OpenAPI 3.1 terms: no `nullable`, no coercion
 * branches, named models lifted into `schemas` and replaced by a `$ref`.
 */
function finishSchema(node: unknown, schemas: Json): unknown {
  if (Array.isArray(node)) return node.map((item) => finishSchema(item, schemas));
  if (!isObject(node)) return node;
  let out: Json = { ...node };
  delete out.nullable;
  // Elysia writes `additionalProperties: false` into a route's top-level schema object when it
  // first compiles that route's validator, so the flag would depend on which requests came first.
  // Models that refuse unknown fields say so with `t.Never()`, which stays (`{not: {}}`).
  if (out.additionalProperties === false) delete out.additionalProperties;
  for (const key of ["anyOf", "oneOf"] as const) {
    if (!Array.isArray(out[key])) continue;
    const kept = out[key].filter((branch: unknown) => !isCoercionBranch(branch));
    if (kept.length === out[key].length) continue;
    delete out[key];
    // The integer branch repeats the outer keywords; what is left is a plain `type: integer`.
    if (kept.length === 1) out = { ...out, ...kept[0] };
    else out[key] = kept;
  }
  for (const [key, value] of Object.entries(out)) {
    if (key === "examples" || key === "example" || key === "default" || key === "enum" || key === "const") continue;
    if (isObject(value) || Array.isArray(value)) out[key] = finishSchema(value, schemas);
  }
  if (typeof out.$id !== "string") return out;
  return lift(out, schemas);
}

/** A named model: registered once in `schemas`, referenced wherever it is used. */
function lift(schema: Json, schemas: Json) {
  const { $id: name, ...body } = schema;
  const nullable = Array.isArray(body.type) && body.type.includes("null");
  if (nullable) {
    const types = body.type.filter((t: string) => t !== "null");
    body.type = types.length === 1 ? types[0] : types;
  }
  const existing = schemas[name];
  if (existing && JSON.stringify(existing) !== JSON.stringify(body)) {
    throw new Error(`Two different schemas are named '${name}'; give one of them another $id.`);
  }
  schemas[name] = body;
  const ref = { $ref: `#/components/schemas/${name}` };
  return nullable ? { anyOf: [ref, { type: "null" }] } : ref;
}

/**
 * A response's content: JSON Schema's `contentMediaType` on a string (or on one branch of a
 * union) says which media type that body is served as, instead of the generator's text/plain.
 */
function finishContent(content: Json, schemas: Json): Json {
  const out: Json = {};
  for (const [mediaType, media] of Object.entries(content)) {
    const schema = media.schema;
    const branches: Json[] = Array.isArray(schema?.anyOf) ? schema.anyOf : [schema];
    if (!branches.some((b) => isObject(b) && typeof b.contentMediaType === "string")) {
      out[mediaType] = { ...media, schema: finishSchema(schema, schemas) };
      continue;
    }
    for (const branch of branches) {
      const type = typeof branch.contentMediaType === "string" ? branch.contentMediaType : "application/json";
      out[type] = { schema: finishSchema(branch, schemas) };
    }
  }
  return out;
}

function errorResponse(status: string, { summary, codes }: (typeof ERROR_RESPONSES)[string]): Json {
  return {
    description: `${summary}. \`error.code\` is ${Object.keys(codes).map((c) => `\`${c}\``).join(" or ")}.`,
    headers: responseHeaders(RETRY_STATUSES.has(status)),
    content: {
      "application/json": {
        schema: { $ref: `#/components/schemas/${ERROR_SCHEMA}` },
        examples: Object.fromEntries(
          Object.entries(codes).map(([code, message]) => [code, { summary: code, value: { error: { code, message, request_id: "req_k2j4h1" } } }]),
        ),
      },
    },
  };
}

/** An operation signed in with the session cookie: its writes must come from this service's own origin. */
const isSessionOperation = (operation: Json) => Array.isArray(operation.security) && operation.security.some((r: Json) => "session" in r);

const isErrorEnvelope = (content: Json | undefined) => content?.["application/json"]?.schema?.$id === ERROR_SCHEMA;

export interface DocumentSettings {
  baseUrl: string;
  /** Operations (`post /v1/x/{id}`) whose request body may be left out. */
  optionalBodies?: ReadonlySet<string>;
}

/** The finished document: a new object, the generated one is left as it was. */
export function finishDocument(generated: Json, settings: DocumentSettings): Json {
  const schemas: Json = { ...generated.components?.schemas };
  const responses: Json = {};
  const paths: Json = {};
  for (const [path, item] of Object.entries<Json>(generated.paths ?? {})) {
    paths[path] = {};
    for (const [method, operation] of Object.entries<Json>(item)) {
      const finished: Json = { ...operation };
      if (operation.parameters) {
        finished.parameters = operation.parameters.map((p: Json) => ({ ...p, schema: finishSchema(p.schema, schemas) }));
      }
      if (operation.requestBody?.content) {
        finished.requestBody = { ...operation.requestBody, content: finishContent(operation.requestBody.content, schemas) };
        if (finished.requestBody.description === undefined) delete finished.requestBody.description;
        if (settings.optionalBodies?.has(`${method} ${path}`)) finished.requestBody.required = false;
      }
      finished.responses = {};
      for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
        const shared = ERROR_RESPONSES[status];
        if (shared && isErrorEnvelope(response.content)) {
          finishSchema(response.content["application/json"].schema, schemas);
          responses[status] ??= errorResponse(status, shared);
          finished.responses[status] = { $ref: `#/components/responses/${shared.name}` };
          continue;
        }
        finished.responses[status] = {
          ...response,
          headers: { ...responseHeaders(status === "429"), ...response.headers },
          ...(response.content ? { content: finishContent(response.content, schemas) } : {}),
        };
      }
      // What the shared body reader (http/body.ts) and the cookie guard answer on every route they
      // cover, whether or not the route's own map names it.
      const implied = [
        ...(finished.requestBody ? ["400", "413", "415"] : []),
        ...(method !== "get" && isSessionOperation(operation) ? ["403"] : []),
      ];
      for (const status of implied) {
        if (finished.responses[status]) continue;
        responses[status] ??= errorResponse(status, ERROR_RESPONSES[status]!);
        finished.responses[status] = { $ref: `#/components/responses/${ERROR_RESPONSES[status]!.name}` };
      }
      paths[path][method] = finished;
    }
  }
  // Each event's delivery (openapi.ts): the same finishing, so its named models are referenced.
  const webhooks = Object.fromEntries(
    Object.entries<Json>(generated.webhooks ?? {}).map(([name, item]) => [
      name,
      { post: { ...item.post, requestBody: { ...item.post.requestBody, content: finishContent(item.post.requestBody.content, schemas) } } },
    ]),
  );
  return {
    ...generated,
    ...(generated.webhooks ? { webhooks } : {}),
    servers: [{ url: settings.baseUrl, description: "This instance (its `--base-url`)." }],
    paths,
    components: {
      ...generated.components,
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
      // By status, under their names.
      responses: Object.fromEntries(Object.entries(responses).map(([status, response]) => [ERROR_RESPONSES[status]!.name, response])),
      headers: HEADERS,
    },
  };
}
