// What an entry is before and after it is stored: a platform account id in its stored form, a new
// entry validated with its defaults resolved (the API, the CLI and the import all go through
// `prepareEntryAt`, the import's large files on a second thread), and the public view of a row.
import { iso } from "../../clock";
import { PROVIDERS, type Provider } from "../../domain";
import { unprocessable } from "../../errors";
import { newId } from "../../ids";
import { parseTime, requireHandle } from "../../values";
import type { BlacklistEntry, NewEntryBody, StaffEntry } from "./model";
import type { EntryRow } from "./store";

export type PublicEntry = typeof BlacklistEntry.static;

/**
 * A new entry: the partner write's body, plus the id and status an import line may carry and the
 * entry an appeal's downgrade replaces.
 */
export type NewEntry = typeof NewEntryBody.static & Partial<Pick<EntryRow, "id" | "status" | "supersedes">>;

/**
 * How far ahead of the server's clock a writer's `issued_at` may be: a future issued_at would
 * sort after entries added in the next minutes and move a mirror's `since` high-water mark past
 * them; 60 s covers a writer's clock skew.
 */
const MAX_ISSUED_AHEAD_MS = 60_000;

const KNOWN_PROVIDERS = new Set<string>(PROVIDERS);

/**
 * The stored form of a platform id: trimmed; Discord and Roblox ids are digits only; Minecraft
 * UUIDs and Epic ids are compared without case (and Minecraft without dashes). Null when the id
 * cannot be an id of that platform.
 */
export function normalizeAccountId(provider: Provider, raw: string): string | null {
  let id = raw.trim();
  if (id.length === 0 || id.length > 128) return null;
  if (/[\u0000-\u001f\u007f]/.test(id)) return null;
  switch (provider) {
    case "discord":
    case "roblox":
      return /^\d{1,20}$/.test(id) ? id : null;
    case "minecraft":
      id = id.toLowerCase();
      return /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/.test(id) ? id.replaceAll("-", "") : id;
    case "epic":
      return id.toLowerCase();
    default:
      return id;
  }
}

export function isProvider(value: unknown): value is Provider {
  return typeof value === "string" && KNOWN_PROVIDERS.has(value);
}

export function toPublicEntry(row: EntryRow): PublicEntry {
  return {
    id: row.id,
    severity: row.severity,
    scope: row.scope,
    vertical: row.vertical,
    reason_code: row.reasonCode,
    summary: row.summary,
    issued_at: iso(row.issuedAt),
    expires_at: iso(row.expiresAt),
    appealable: !!row.appealable,
  };
}

/** An entry as staff see it beside a case or an appeal: its subject, status and private note included. */
export function toStaffEntry(row: EntryRow): typeof StaffEntry.static {
  return {
    id: row.id,
    provider: row.provider,
    provider_user_id: row.providerUserId,
    username: row.username,
    creator: row.creatorHandle,
    severity: row.severity,
    scope: row.scope,
    vertical: row.vertical,
    reason_code: row.reasonCode,
    summary: row.summary,
    private_note: row.evidence,
    issued_at: iso(row.issuedAt),
    expires_at: iso(row.expiresAt),
    appealable: !!row.appealable,
    high_risk: !!row.highRisk,
    watchlist: !!row.watchlist,
    status: row.status,
    supersedes: row.supersedes,
  };
}

/**
 * Validates a new entry and resolves its defaults at `now`; shared by the API, the CLI and import
 * (whose large files prepare their entries on a second thread, transfer/line-check-worker.ts).
 */
export function prepareEntryAt(input: NewEntry, reporter: string, now: number, options: { allowPast?: boolean } = {}): EntryRow {
  if (!isProvider(input.provider)) throw unprocessable(`Unknown provider '${String(input.provider)}'.`);
  const providerUserId = normalizeAccountId(input.provider, String(input.provider_user_id ?? ""));
  if (providerUserId === null) {
    throw unprocessable(`'${String(input.provider_user_id).slice(0, 64)}' is not a valid ${input.provider} user id.`);
  }
  const scope = input.scope ?? (input.vertical && input.vertical !== "all" ? "vertical" : "global");
  const vertical = input.vertical ?? "all";
  if (scope === "global" && vertical !== "all") throw unprocessable("A global entry has vertical 'all'; use scope 'vertical' for one vertical.");
  if (scope === "vertical" && vertical === "all") throw unprocessable("An entry of scope 'vertical' names one vertical: roblox, uefn or minecraft.");
  const issuedAt = input.issued_at !== undefined ? parseTime(input.issued_at, "issued_at") : now;
  const expiresAt = input.expires_at != null ? parseTime(input.expires_at, "expires_at") : null;
  if (expiresAt !== null && expiresAt <= issuedAt) throw unprocessable("expires_at must be after issued_at.");
  if (expiresAt !== null && expiresAt <= now && !options.allowPast) throw unprocessable("expires_at must be in the future.");
  if (issuedAt > now + MAX_ISSUED_AHEAD_MS) {
    throw unprocessable(`issued_at ${iso(issuedAt)} is more than 60 s in the future (server time ${iso(now)}); omit it to use the server's time.`);
  }
  const creator = input.creator ? requireHandle(input.creator) : null;
  const status = input.status ?? "active";
  return {
    id: input.id ?? newId("bl", issuedAt),
    provider: input.provider,
    providerUserId,
    username: input.username?.trim() || null,
    severity: input.severity,
    scope,
    vertical,
    reasonCode: input.reason_code,
    summary: input.summary ?? null,
    issuedAt,
    expiresAt,
    appealable: input.appealable !== false,
    highRisk: !!input.high_risk,
    watchlist: !!input.watchlist,
    creatorHandle: creator,
    evidence: input.evidence ?? null,
    reporter,
    status,
    overturnedAt: status === "overturned" ? now : null,
    overturnReason: null,
    supersedes: input.supersedes ?? null,
    source: null,
    upstreamId: null,
    createdAt: now,
  };
}
