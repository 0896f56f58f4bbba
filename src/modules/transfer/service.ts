// Import and export in the JSON Lines format of SPEC section 9. An import is one transaction: any
// bad line aborts it with the line number and nothing is written.
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { t } from "elysia";
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { iso } from "../../clock";
import type { Store } from "../../db/client";
import { ACCOUNT_STATUSES, ENTRY_STATUSES } from "../../db/schema";
import { ServiceError } from "../../errors";
import { literals } from "../../http/model";
import { ApiTier } from "../accounts/model";
import type { AccountsService } from "../accounts/service";
import { EntryFields } from "../blacklist/model";
import type { BlacklistService, EntryRow } from "../blacklist/service";

const AccountLine = TypeCompiler.Compile(
  t.Object(
    {
      type: t.Literal("account"),
      name: t.String({ minLength: 1, maxLength: 64 }),
      tier: ApiTier,
      daily_quota: t.Optional(t.Nullable(t.Integer({ minimum: 0 }))),
      status: t.Optional(literals(ACCOUNT_STATUSES)),
    },
    { additionalProperties: false },
  ),
);

const EntryLine = TypeCompiler.Compile(
  t.Object(
    {
      type: t.Literal("entry"),
      id: t.Optional(t.String({ pattern: "^bl_[0-9a-z]{1,60}$" })),
      status: t.Optional(literals(ENTRY_STATUSES)),
      ...EntryFields,
    },
    { additionalProperties: false },
  ),
);

/** Line types later versions add; until then an import that holds them is refused, not half-read. */
const KNOWN_LATER = new Set(["creator", "connection", "deal", "review", "vouch", "referral"]);

export interface ImportSummary {
  lines: number;
  accounts: number;
  entries: number;
}

export class TransferService {
  constructor(
    private readonly store: Store,
    private readonly accounts: AccountsService,
    private readonly blacklist: BlacklistService,
  ) {}

  /** Reads `path` and applies every line in one transaction. */
  async importFile(path: string): Promise<ImportSummary> {
    const lines = createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Infinity });
    const summary: ImportSummary = { lines: 0, accounts: 0, entries: 0 };
    const sqlite = this.store.sqlite;
    sqlite.run("BEGIN IMMEDIATE");
    let lineNo = 0;
    try {
      for await (const raw of lines) {
        lineNo++;
        const text = raw.trim();
        if (text === "") continue;
        summary.lines++;
        let value: any;
        try {
          value = JSON.parse(text);
        } catch {
          throw lineError(lineNo, "not valid JSON");
        }
        if (!value || typeof value !== "object" || Array.isArray(value)) throw lineError(lineNo, "expected a JSON object");
        try {
          switch (value.type) {
            case "entry":
              this.importEntry(value, lineNo);
              summary.entries++;
              break;
            case "account":
              await this.importAccount(value, lineNo);
              summary.accounts++;
              break;
            default:
              if (KNOWN_LATER.has(value.type)) throw lineError(lineNo, `records of type '${value.type}' are not supported by this version`);
              throw lineError(lineNo, `unknown type '${String(value.type)}'`);
          }
        } catch (error) {
          if (error instanceof ServiceError && !error.message.startsWith("line ")) throw lineError(lineNo, error.message);
          if (error instanceof Error && /UNIQUE constraint/.test(error.message)) throw lineError(lineNo, "an entry with this id already exists");
          throw error;
        }
      }
      sqlite.run("COMMIT");
    } catch (error) {
      sqlite.run("ROLLBACK");
      throw error;
    } finally {
      lines.close();
    }
    return summary;
  }

  private importEntry(value: unknown, lineNo: number) {
    if (!EntryLine.Check(value)) throw lineError(lineNo, schemaProblem(EntryLine, value));
    const row = this.blacklist.prepareEntry(value, "import", { allowPast: true });
    this.blacklist.storeEntry(row, false);
  }

  private async importAccount(value: unknown, lineNo: number) {
    if (!AccountLine.Check(value)) throw lineError(lineNo, schemaProblem(AccountLine, value));
    await this.accounts.createAccount(value);
  }

  /** Writes every account and entry as JSON Lines through `write`; returns the line count. */
  async exportAll(write: (line: string) => void | Promise<void>): Promise<number> {
    let count = 0;
    for (const account of await this.accounts.listAccounts()) {
      const line: Record<string, unknown> = { type: "account", name: account.name, tier: account.tier, status: account.status };
      if (account.daily_quota_override !== null) line.daily_quota = account.daily_quota_override;
      await write(JSON.stringify(line));
      count++;
    }
    const rows = this.store.sqlite.query<EntryRow, []>("SELECT * FROM blacklist_entries ORDER BY issued_at, id");
    for (const row of rows.iterate()) {
      await write(JSON.stringify(entryLine(row)));
      count++;
    }
    return count;
  }
}

function entryLine(row: EntryRow): Record<string, unknown> {
  const line: Record<string, unknown> = {
    type: "entry",
    id: row.id,
    provider: row.provider,
    provider_user_id: row.provider_user_id,
    severity: row.severity,
    scope: row.scope,
    vertical: row.vertical,
    reason_code: row.reason_code,
    issued_at: iso(row.issued_at),
    appealable: !!row.appealable,
    high_risk: !!row.high_risk,
    watchlist: !!row.watchlist,
    status: row.status,
  };
  if (row.username !== null) line.username = row.username;
  if (row.summary !== null) line.summary = row.summary;
  if (row.expires_at !== null) line.expires_at = iso(row.expires_at);
  if (row.creator_handle !== null) line.creator = row.creator_handle;
  if (row.evidence !== null) line.evidence = row.evidence;
  return line;
}

function lineError(lineNo: number, message: string) {
  return new ServiceError("invalid", `line ${lineNo}: ${message}`);
}

function schemaProblem(check: { Errors(value: unknown): Iterable<{ path: string; message: string; value: unknown }> }, value: unknown): string {
  for (const error of check.Errors(value)) {
    const field = error.path.replace(/^\//, "") || "(line)";
    if (error.value === undefined) return `missing field '${field}'`;
    return `field '${field}': ${error.message.toLowerCase()}`;
  }
  return "invalid record";
}
