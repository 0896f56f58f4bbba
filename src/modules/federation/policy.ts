// What a followed source's item becomes here, decided without the database: an entry (capped and
// filtered as the source's policy says, a watchlist row under `watch` or when the source itself
// only watches the account), a moderation case under `review`, or nothing, with the reason. Every
// place that applies items (a sync, a policy change, an exemption, a removal) asks this, so what
// is held from a source is always its active items under its current policy.
import { iso } from "../../clock";
import { ENTRY_SCOPES, type Provider, PROVIDERS, SEVERITIES, VERTICALS } from "../../domain";
import { type NewEntry, normalizeAccountId } from "../blacklist/service";
import { type FeedEntry, SEVERITY_ORDER } from "./model";
import type { SourceRow } from "./store";

export type UpstreamEntry = typeof FeedEntry.static;

export type Verdict =
  | { kind: "entry"; input: NewEntry }
  | { kind: "case" }
  /** Not taken in: the reason names the policy's word for it (an audit event says so). */
  | { kind: "rejected"; reason: "exempted" | "vertical" | "reason_code" }
  /** Lapsed already: nothing to hold, nothing to tell. */
  | { kind: "lapsed" };

/** A source's filters as stored: JSON arrays, null for every value. */
export function listOf(stored: string | null): string[] | null {
  return stored === null ? null : (JSON.parse(stored) as string[]);
}

export function verdictOf(entry: UpstreamEntry, source: SourceRow, exempt: boolean, now: number): Verdict {
  if (exempt) return { kind: "rejected", reason: "exempted" };
  const expiresAt = entry.expires_at === null ? null : Date.parse(entry.expires_at);
  if (expiresAt !== null && expiresAt <= now) return { kind: "lapsed" };
  const verticals = listOf(source.verticals);
  if (verticals && !verticals.includes(entry.vertical)) return { kind: "rejected", reason: "vertical" };
  const reasonCodes = listOf(source.reasonCodes);
  if (reasonCodes && !reasonCodes.includes(entry.reason_code)) return { kind: "rejected", reason: "reason_code" };
  const watchlist = entry.watchlist || source.policy === "watch";
  if (!watchlist && source.policy === "review") return { kind: "case" };
  const capped = source.maxSeverity !== null && SEVERITY_ORDER[entry.severity] > SEVERITY_ORDER[source.maxSeverity] ? source.maxSeverity : entry.severity;
  const issuedAt = Math.min(Date.parse(entry.issued_at), now);
  return {
    kind: "entry",
    input: {
      provider: entry.provider,
      provider_user_id: entry.provider_user_id,
      username: entry.username,
      severity: capped,
      scope: entry.scope,
      vertical: entry.vertical,
      reason_code: entry.reason_code,
      summary: entry.summary,
      issued_at: iso(issuedAt)!,
      expires_at: entry.expires_at,
      appealable: entry.appealable,
      high_risk: entry.high_risk,
      watchlist,
    },
  };
}

/** Whether a held entry already says what `input` would. */
export function holds(held: { severity: string; watchlist: boolean; vertical: string; scope: string; reasonCode: string; expiresAt: number | null }, input: NewEntry): boolean {
  const expiresAt = input.expires_at == null ? null : Date.parse(input.expires_at);
  return (
    held.severity === input.severity &&
    !!held.watchlist === !!input.watchlist &&
    held.vertical === input.vertical &&
    held.scope === input.scope &&
    held.reasonCode === input.reason_code &&
    held.expiresAt === expiresAt
  );
}

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const isText = (value: unknown, max: number): value is string => typeof value === "string" && value.length > 0 && value.length <= max;
const isTextOrNull = (value: unknown, max: number) => value === null || (typeof value === "string" && value.length <= max);
const isTime = (value: unknown) => typeof value === "string" && TIME.test(value) && !Number.isNaN(Date.parse(value));

/** Why an upstream entry is not one this instance can hold, or null when it is well formed. */
export function malformedEntry(entry: unknown): string | null {
  if (!entry || typeof entry !== "object") return "the item has no entry";
  const e = entry as Record<string, unknown>;
  if (!isText(e.id, 128)) return "the entry has no id";
  if (!(PROVIDERS as readonly unknown[]).includes(e.provider)) return "the entry's provider is unknown";
  if (!isText(e.provider_user_id, 128) || normalizeAccountId(e.provider as Provider, e.provider_user_id) === null) return "the entry's provider_user_id is malformed";
  if (!(SEVERITIES as readonly unknown[]).includes(e.severity)) return "the entry's severity is unknown";
  if (!(ENTRY_SCOPES as readonly unknown[]).includes(e.scope)) return "the entry's scope is unknown";
  if (!(VERTICALS as readonly unknown[]).includes(e.vertical)) return "the entry's vertical is unknown";
  if (!isText(e.reason_code, 64) || !/^[a-z0-9_.-]+$/.test(e.reason_code)) return "the entry's reason_code is malformed";
  if (!isTextOrNull(e.username, 128) || !isTextOrNull(e.summary, 500)) return "the entry's username or summary is malformed";
  if (!isTime(e.issued_at) || !(e.expires_at === null || isTime(e.expires_at))) return "the entry's times are malformed";
  if (typeof e.appealable !== "boolean" || typeof e.high_risk !== "boolean" || typeof e.watchlist !== "boolean") return "the entry's flags are malformed";
  if (!isTextOrNull(e.supersedes, 128)) return "the entry's supersedes is malformed";
  return null;
}
