// The export's reads of the network's tables, on its snapshot (either database): each row with its
// creators named by handle, joined per table rather than held in memory. The line shapes are the
// import format's (snake_case), so these rows keep the columns' own names.
import { type ReadSnapshot, snapshotRows } from "../../db/snapshot";
import type { DealStatus } from "../../domain";

type Pair = { from_handle: string; to_handle: string; created_at: number };

async function* pairsForExport<T extends Pair>(snapshot: ReadSnapshot, table: string, from: string, to: string, columns: string, order: string): AsyncGenerator<T> {
  const rows = snapshotRows<T>(
    snapshot,
    `SELECT ${columns}, x.created_at, f.handle AS from_handle, t.handle AS to_handle FROM ${table} x
     JOIN creators f ON f.id = x.${from} JOIN creators t ON t.id = x.${to} ORDER BY ${order}`,
  );
  for await (const row of rows) yield { ...row, created_at: Number(row.created_at) };
}

export const dealsForExport = (snapshot: ReadSnapshot) =>
  pairsForExport<Pair & { id: string; status: DealStatus }>(snapshot, "deals", "from_creator_id", "to_creator_id", "x.id, x.status", "x.created_at, x.id");

export async function* reviewsForExport(snapshot: ReadSnapshot): AsyncGenerator<Pair & { rating: number }> {
  const rows = pairsForExport<Pair & { rating: number }>(snapshot, "reviews", "from_creator_id", "to_creator_id", "x.rating", "x.created_at, x.id");
  for await (const row of rows) yield { ...row, rating: Number(row.rating) };
}

export const vouchesForExport = (snapshot: ReadSnapshot) =>
  pairsForExport<Pair & { message: string | null }>(snapshot, "vouches", "from_creator_id", "to_creator_id", "x.message", "x.created_at, x.id");

export const referralsForExport = (snapshot: ReadSnapshot) =>
  pairsForExport<Pair>(snapshot, "referrals", "referrer_id", "referred_id", "x.referred_id", "x.created_at, x.referred_id");

export async function* serversForExport(snapshot: ReadSnapshot): AsyncGenerator<{ platform: string; server_id: string; name: string | null; created_at: number }> {
  const rows = snapshotRows<{ platform: string; server_id: string; name: string | null; created_at: number }>(
    snapshot,
    "SELECT platform, server_id, name, created_at FROM servers ORDER BY created_at, platform, server_id",
  );
  for await (const row of rows) yield { ...row, created_at: Number(row.created_at) };
}
