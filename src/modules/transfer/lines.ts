// The lines of the import format (JSON Lines, one object a line): how a file is cut into lines
// and the schema of each kind of line. Shared by the import and the thread that checks a large
// file's lines.
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { t } from "elysia";
import { asUniqueViolation } from "../../db/errors";
import { ACCOUNT_MEMBER_ROLES, ACCOUNT_STATUSES, ENTRY_STATUSES } from "../../domain";
import { ServiceError } from "../../errors";
import { JsonInteger, DateTime, literals } from "../../http/model";
import { ApiTier } from "../accounts/model";
import { EntryFields } from "../blacklist/model";
import { ConnectionFields, CreatorFields } from "../creators/model";
import { DealStatus, ReferralFields, ReviewFields, ServerParams, VouchFields } from "../network/model";

export const AccountLine = TypeCompiler.Compile(
  t.Object(
    {
      type: t.Literal("account"),
      name: t.String({ minLength: 1, maxLength: 64 }),
      tier: ApiTier,
      daily_quota: t.Optional(t.Nullable(JsonInteger({ minimum: 0 }))),
      status: t.Optional(literals(ACCOUNT_STATUSES)),
    },
    { additionalProperties: false },
  ),
);

/** A creator who manages an account in the console: the account by name, the creator by handle. */
export const AccountMemberLine = TypeCompiler.Compile(
  t.Object(
    {
      type: t.Literal("account_member"),
      account: t.String({ minLength: 1, maxLength: 64 }),
      handle: t.String({ minLength: 1, maxLength: 33 }),
      role: literals(ACCOUNT_MEMBER_ROLES),
      added_at: t.Optional(DateTime("When the membership began.")),
    },
    { additionalProperties: false },
  ),
);

export const EntryLine = TypeCompiler.Compile(
  t.Object(
    {
      type: t.Literal("entry"),
      id: t.Optional(t.String({ pattern: "^bl_[0-9a-z]{1,60}$" })),
      status: t.Optional(literals(ENTRY_STATUSES)),
      /** The entry an appeal's downgrade replaced with this one. */
      supersedes: t.Optional(t.String({ pattern: "^bl_[0-9a-z]{1,60}$" })),
      ...EntryFields,
    },
    { additionalProperties: false },
  ),
);

export const CreatorLine = TypeCompiler.Compile(
  t.Object(
    {
      type: t.Literal("creator"),
      id: t.Optional(t.String({ pattern: "^crt_[0-9a-z]{1,60}$" })),
      handle: t.String({ minLength: 2, maxLength: 33 }),
      ...CreatorFields,
      verification_level: JsonInteger({ minimum: 0, maximum: 4 }),
      joined_at: DateTime("When the creator joined."),
    },
    { additionalProperties: false },
  ),
);

export const ConnectionLine = TypeCompiler.Compile(
  t.Object(
    { type: t.Literal("connection"), creator: t.String({ minLength: 2, maxLength: 33 }), ...ConnectionFields, public: t.Boolean() },
    { additionalProperties: false },
  ),
);

const CreatedAt = { created_at: t.Optional(DateTime("When it happened.")) };

export const DealLine = TypeCompiler.Compile(
  t.Object(
    { type: t.Literal("deal"), id: t.Optional(t.String()), from: t.String(), to: t.String(), status: DealStatus, ...CreatedAt },
    { additionalProperties: false },
  ),
);
export const ReviewLine = TypeCompiler.Compile(t.Object({ type: t.Literal("review"), ...ReviewFields, ...CreatedAt }, { additionalProperties: false }));
export const VouchLine = TypeCompiler.Compile(t.Object({ type: t.Literal("vouch"), ...VouchFields, ...CreatedAt }, { additionalProperties: false }));
export const ReferralLine = TypeCompiler.Compile(t.Object({ type: t.Literal("referral"), ...ReferralFields, ...CreatedAt }, { additionalProperties: false }));
/** A registered server, so an export carries `servers_protected` too. */
export const ServerLine = TypeCompiler.Compile(
  t.Object(
    { type: t.Literal("server"), ...ServerParams.properties, name: t.Optional(t.Nullable(t.String({ maxLength: 100 }))), ...CreatedAt },
    { additionalProperties: false },
  ),
);

/**
 * The file's lines, split on "\n" only (a JSON string may hold U+2028 or a lone CR, where
 * node:readline would cut the line), a chunk's worth at a time: one await per chunk of the file
 * rather than per line.
 */
export async function* jsonLines(path: string): AsyncGenerator<string[], void, undefined> {
  const decoder = new TextDecoder();
  let rest = "";
  for await (const chunk of Bun.file(path).stream()) {
    const text = rest + decoder.decode(chunk, { stream: true });
    const lines = text.split("\n");
    rest = lines.pop()!;
    yield lines;
  }
  rest += decoder.decode();
  if (rest !== "") yield [rest];
}

/** The value a compiled line schema accepts. */
export type Line<C> = C extends { Check(v: unknown): v is infer T } ? T : never;

export function schemaProblem(check: { Errors(value: unknown): Iterable<{ path: string; message: string; value: unknown }> }, value: unknown): string {
  for (const error of check.Errors(value)) {
    const field = error.path.replace(/^\//, "") || "(line)";
    if (error.value === undefined) return `missing field '${field}'`;
    return `field '${field}': ${error.message.toLowerCase()}`;
  }
  return "invalid record";
}

/** The schema of each kind of line, by its `type`. */
const SCHEMAS: Record<string, { Check(value: unknown): boolean } & Parameters<typeof schemaProblem>[0]> = {
  account: AccountLine,
  account_member: AccountMemberLine,
  entry: EntryLine,
  creator: CreatorLine,
  connection: ConnectionLine,
  deal: DealLine,
  review: ReviewLine,
  vouch: VouchLine,
  referral: ReferralLine,
  server: ServerLine,
};

/**
 * Kinds of line a large import checks against their schema on a thread of its own (every kind but
 * accounts, whose write awaits their service and is checked where it is written).
 */
export function checkedApart(type: unknown): boolean {
  return type !== "account" && typeof type === "string" && Object.hasOwn(SCHEMAS, type);
}

export interface SchemaFailure {
  lineNo: number;
  /** As the import words it after "line N: ". */
  message: string;
}

/** How each kind of line starts as export writes it (and as most writers do): its `type` first. */
const KIND_STARTS = Object.keys(SCHEMAS).map((kind) => [kind, `{"type":"${kind}"`] as const);

/**
 * The kind a line names at its very start (`{"type":"creator"…`), read without parsing it, or
 * null when it starts otherwise. When the entries are prepared apart (`firstSchemaFailure` with
 * `entries`) it decides, before any parse, which thread takes a line: one named an entry there
 * goes to the second thread, one named another kind is checked by the import thread itself.
 */
export function plainKind(text: string): string | null {
  if (text.charCodeAt(0) !== 123 || !text.startsWith('{"type":"')) return null;
  for (const [kind, start] of KIND_STARTS) if (text.startsWith(start)) return kind;
  return null;
}

/** What a line whose start names another kind than it parses to fails with (only a repeated key does that). */
export const REPEATED_TYPE = '"type" is given more than once';

/** The import's error for a bad line. */
export function lineError(lineNo: number, message: string): ServiceError {
  return new ServiceError("invalid", `line ${lineNo}: ${message}`);
}

/** What a line that repeats a stored id or unique key fails with. */
export const DUPLICATE_RECORD = "a record with this id or key already exists";

/** What a line's failure says after "line N: ", or null for an error that is not the line's own. */
export function lineProblem(error: unknown): string | null {
  if (error instanceof ServiceError) return error.message;
  if (asUniqueViolation(error)) return DUPLICATE_RECORD;
  return null;
}

/** Lines between two progress reports of `firstSchemaFailure`. */
const PROGRESS_EVERY_LINES = 20_000;

/** Entry lines a thread other than the import thread prepares (`firstSchemaFailure`). */
export interface EntriesTaken {
  /** Gets each entry line, checked, in file order; what it throws is the line's failure. */
  take(line: Line<typeof EntryLine>, lineNo: number): void;
  /**
   * Where, in characters of the file (every line counted with its "\n"), the entry lines the
   * import thread prepares itself begin: those at or past it are left to it, unchecked.
   */
  before: number;
}

/**
 * The first line of the file, in the import's numbering, of a kind `checkedApart` that fails its
 * schema; null when there is none. Lines that are not JSON objects, or of another kind, are left
 * to the import. `progress` hears, now and then, the last line checked. With `entries`, every
 * entry line (`plainKind` "entry", or none and parsed to `type: "entry"`) before `entries.before`
 * is this function's: checked, then taken, whose failure is the line's; lines whose start names
 * another kind, and entry lines from `entries.before` on, are left to the import thread.
 */
export async function firstSchemaFailure(
  path: string,
  progress?: (throughLine: number) => void,
  entries?: EntriesTaken,
): Promise<SchemaFailure | null> {
  let lineNo = 0;
  let reported = 0;
  let at = 0;
  for await (const batch of jsonLines(path)) {
    for (const raw of batch) {
      lineNo++;
      const position = at;
      at += raw.length + 1;
      const text = raw.trim();
      if (text === "") continue;
      const kind = entries ? plainKind(text) : null;
      const entriesHere = entries !== undefined && position < entries.before;
      if (kind !== null && (kind !== "entry" || !entriesHere)) continue;
      let value: { type?: unknown } | null;
      try {
        value = JSON.parse(text);
      } catch {
        if (kind === "entry") return { lineNo, message: "not valid JSON" };
        continue;
      }
      if (kind === "entry" && value?.type !== "entry") return { lineNo, message: REPEATED_TYPE };
      if (!value || typeof value !== "object" || !checkedApart(value.type)) continue;
      if (entries && value.type === "entry" && !entriesHere) continue;
      const schema = SCHEMAS[value.type as string]!;
      if (!schema.Check(value)) return { lineNo, message: schemaProblem(schema, value) };
      if (entries && value.type === "entry") {
        try {
          entries.take(value as Line<typeof EntryLine>, lineNo);
        } catch (error) {
          const message = lineProblem(error);
          if (message === null) throw error;
          return { lineNo, message };
        }
      }
    }
    if (progress && lineNo - reported >= PROGRESS_EVERY_LINES) progress((reported = lineNo));
  }
  return null;
}
