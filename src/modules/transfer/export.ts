// The export: everything as JSON Lines, in an order an import accepts (things before what names
// them), with ids kept. Everything is read in one read transaction on a connection of its own, so
// the file is one snapshot: a creator and the vouch naming it, written between two passes, are
// both in it or both absent. WAL keeps the server writing meanwhile, and rows stream one at a
// time, so memory stays flat at any size.
import { iso } from "../../clock";
import type { Database } from "../../db/database";
import { tableRows } from "../../db/records";
import { withReadSnapshot } from "../../db/snapshot";
import { accountsForExport, membersForExport } from "../accounts/export";
import { type EntryRow, entriesForExport } from "../blacklist/store";
import { connectionsForExport, creatorsForExport } from "../creators/export";
import { dealsForExport, referralsForExport, reviewsForExport, serversForExport, vouchesForExport } from "../network/store";
import { RECORD_KINDS, recordLine } from "./records";

/** Writes every line through `write`; returns the line count. */
export async function exportAll(database: Database, write: (line: string) => void | Promise<void>): Promise<number> {
  let count = 0;
  const emit = async (line: Record<string, unknown>) => {
    await write(JSON.stringify(line));
    count++;
  };
  await withReadSnapshot(database, async (snapshot) => {
    for await (const account of accountsForExport(snapshot)) {
      await emit(withOptional({ type: "account", name: account.name, tier: account.tier, status: account.status }, { daily_quota: account.dailyQuota }));
    }
    for await (const row of creatorsForExport(snapshot)) {
      await emit(
        withOptional(
          { type: "creator", id: row.id, handle: row.handle, verification_level: row.verificationLevel, karma: row.karma, joined_at: iso(row.joinedAt) },
          { display_name: row.displayName, avatar_r2_key: row.avatarR2Key },
        ),
      );
    }
    for await (const row of connectionsForExport(snapshot)) {
      await emit(
        withOptional(
          { type: "connection", creator: row.handle, provider: row.provider, provider_user_id: row.providerUserId, public: row.public },
          { provider_username: row.providerUsername, provider_url: row.providerUrl, verified_at: iso(row.verifiedAt) },
        ),
      );
    }
    for await (const row of membersForExport(snapshot)) {
      await emit({ type: "account_member", account: row.account, handle: row.handle, role: row.role, added_at: iso(row.addedAt) });
    }
    for await (const row of entriesForExport(snapshot)) await emit(entryLine(row));
    for await (const row of dealsForExport(snapshot)) {
      await emit({ type: "deal", id: row.id, from: row.from_handle, to: row.to_handle, status: row.status, created_at: iso(row.created_at) });
    }
    for await (const row of reviewsForExport(snapshot)) {
      await emit({ type: "review", from: row.from_handle, to: row.to_handle, rating: row.rating, created_at: iso(row.created_at) });
    }
    for await (const row of vouchesForExport(snapshot)) {
      await emit(withOptional({ type: "vouch", from: row.from_handle, to: row.to_handle, created_at: iso(row.created_at) }, { message: row.message }));
    }
    for await (const row of referralsForExport(snapshot)) {
      await emit({ type: "referral", referrer: row.from_handle, referred: row.to_handle, created_at: iso(row.created_at) });
    }
    for await (const row of serversForExport(snapshot)) {
      await emit(withOptional({ type: "server", platform: row.platform, server_id: row.server_id, created_at: iso(row.created_at) }, { name: row.name }));
    }
    // The moderation record and the audit log, whole: staff, cases, reports, evidence, comments,
    // mutes, appeals, then every audit event in the order it was written.
    for (const kind of RECORD_KINDS) {
      for await (const row of tableRows(snapshot, kind.table, kind.orderBy)) await emit(recordLine(kind, row as Record<string, unknown>));
    }
  });
  return count;
}

/** Adds the optional fields that have a value: the format leaves absent what is null. */
function withOptional(line: Record<string, unknown>, optional: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(optional)) if (value !== null && value !== undefined) line[key] = value;
  return line;
}

function entryLine(row: EntryRow): Record<string, unknown> {
  const line: Record<string, unknown> = {
    type: "entry",
    id: row.id,
    provider: row.provider,
    provider_user_id: row.providerUserId,
    severity: row.severity,
    scope: row.scope,
    vertical: row.vertical,
    reason_code: row.reasonCode,
    issued_at: iso(row.issuedAt),
    appealable: !!row.appealable,
    high_risk: !!row.highRisk,
    watchlist: !!row.watchlist,
    status: row.status,
  };
  if (row.username !== null) line.username = row.username;
  if (row.summary !== null) line.summary = row.summary;
  if (row.expiresAt !== null) line.expires_at = iso(row.expiresAt);
  if (row.creatorHandle !== null) line.creator = row.creatorHandle;
  if (row.evidence !== null) line.evidence = row.evidence;
  if (row.supersedes !== null) line.supersedes = row.supersedes;
  return line;
}

