// The `account_members` table and the console's reads of an account's usage history: the contract
// both databases implement, and the factory that picks one (store.members.sqlite.ts, store.members.postgres.ts).
import type { Database } from "../../db/database";
import type { RowOf } from "../../db/rows";
import { PostgresMembersStore } from "./store.members.postgres";
import { SqliteMembersStore } from "./store.members.sqlite";
import type { accountMembers, usageDaily, usageEndpoints } from "./tables";

export type MemberRow = RowOf<typeof accountMembers>;
/** A member with the creator's handle. */
export type MemberWithHandle = MemberRow & { handle: string };
/** One UTC day's calls of an account. */
export type DayCount = RowOf<typeof usageDaily, "day" | "count">;
/** An account's calls of one endpoint, all its keys together. */
export type EndpointCount = RowOf<typeof usageEndpoints, "endpoint" | "count">;

export interface MembersStore {
  /** One transaction around `fn`; store calls inside join it. */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /** Adds the member, or changes its role. */
  putMember(row: MemberRow): Promise<void>;
  /** False when the creator was no member. */
  deleteMember(accountId: string, creatorId: string): Promise<boolean>;
  /** An account's members, by handle. */
  membersOf(accountId: string): Promise<MemberWithHandle[]>;
  /** The accounts a creator is a member of, oldest membership first. */
  membershipsOf(creatorId: string): Promise<MemberRow[]>;
  /** The persisted calls of an account per day, on or after `fromDay`, oldest first. */
  usageDays(accountId: string, fromDay: string): Promise<DayCount[]>;
  /** The persisted calls of an account's keys per endpoint, on or after `fromDay`, most first. */
  endpointCounts(accountId: string, fromDay: string): Promise<EndpointCount[]>;
  /** The last UTC day each of the account's keys was used on, among the usage rows kept. */
  lastUsedDays(accountId: string): Promise<Map<string, string>>;
}

export function createMembersStore(database: Database): MembersStore {
  return database.dialect === "sqlite" ? new SqliteMembersStore(database) : new PostgresMembersStore(database);
}
