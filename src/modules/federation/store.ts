// The federation tables: the instance's keys, followed sources and their pinned keys, the items each
// source holds active, and exemptions. The contract every database implements and the factory that
// picks one; their SQL lives in store.sqlite.ts and store.postgres.ts only.
import type { Database } from "../../db/database";
import type { RowOf } from "../../db/rows";
import type { Provider } from "../../domain";
import { PostgresFederationStore } from "./store.postgres";
import { SqliteFederationStore } from "./store.sqlite";
import type { federationExemptions, federationItems, federationKeys, federationSourceKeys, federationSources } from "./tables";

export type KeyRow = RowOf<typeof federationKeys>;
export type SourceRow = RowOf<typeof federationSources>;
export type SourceKeyRow = RowOf<typeof federationSourceKeys>;
export type ItemRow = RowOf<typeof federationItems>;
export type ExemptionRow = RowOf<typeof federationExemptions>;

/** What `sources update` and a sync may change of a source. */
export type SourcePatch = Partial<
  Pick<SourceRow, "url" | "apiKey" | "policy" | "maxSeverity" | "verticals" | "reasonCodes" | "intervalS" | "cursor" | "lastSyncedAt" | "nextSyncAt" | "lastError" | "updatedAt">
>;

export interface FederationStore {
  /** One write transaction (a write inside a write joins it). */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Whether a transaction's statements run on the request thread from its start to its end
   * (SQLite's synchronous calls: every request waits behind a sync's page), or wait on the network
   * while requests go on (PostgreSQL).
   */
  readonly writesHoldRequests: boolean;

  /** The instance's keys, oldest first. */
  keys(): Promise<KeyRow[]>;
  /** Inside a transaction: holds off other instances' key writes until it ends (the first key is made once). */
  lockKeys(): Promise<void>;
  insertKey(row: KeyRow): Promise<void>;
  retireKey(kid: string, at: number): Promise<void>;

  sources(): Promise<SourceRow[]>;
  sourceByName(name: string): Promise<SourceRow | null>;
  /** Sources whose next sync is due at `now`. */
  dueSources(now: number): Promise<SourceRow[]>;
  /** Throws UniqueViolation for a name already taken. */
  insertSource(row: SourceRow): Promise<void>;
  updateSource(id: string, patch: SourcePatch): Promise<void>;
  /** Deletes the source with its pinned keys and items. */
  deleteSource(id: string): Promise<void>;
  sourceKeys(sourceId: string): Promise<SourceKeyRow[]>;
  insertSourceKey(row: SourceKeyRow): Promise<void>;

  item(sourceId: string, upstreamId: string): Promise<ItemRow | null>;
  /** Inserts the item or replaces its entry (keeping its case). */
  upsertItem(row: ItemRow): Promise<void>;
  /** `upsertItem` for many items of distinct ids, in one statement where the database takes one. */
  upsertItems(rows: ItemRow[]): Promise<void>;
  deleteItem(sourceId: string, upstreamId: string): Promise<void>;
  setItemCase(sourceId: string, upstreamId: string, caseId: string): Promise<void>;
  /** A source's items past `afterUpstreamId`, in upstream id order. */
  itemsAfter(sourceId: string, afterUpstreamId: string, limit: number): Promise<ItemRow[]>;
  /** Items of every source about one account (an exemption's re-apply). */
  itemsOfSubject(provider: Provider, providerUserId: string): Promise<ItemRow[]>;

  exemptions(): Promise<ExemptionRow[]>;
  exemption(id: string): Promise<ExemptionRow | null>;
  insertExemption(row: ExemptionRow): Promise<void>;
  deleteExemption(id: string): Promise<void>;
}

export function createFederationStore(database: Database): FederationStore {
  return database.dialect === "sqlite" ? new SqliteFederationStore(database) : new PostgresFederationStore(database);
}
