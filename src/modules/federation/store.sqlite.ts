// The federation tables on SQLite (the contract: store.ts).
import type { Database as SqliteConnection } from "bun:sqlite";
import type { Store } from "../../db/client";
import { translatingConflicts } from "../../db/errors";
import { columnsOf } from "../../db/rows";
import type { Provider } from "../../domain";
import type { ExemptionRow, FederationStore, ItemRow, KeyRow, SourceKeyRow, SourcePatch, SourceRow } from "./store";
import { SOURCE_PATCH_COLUMNS } from "./store.shared";
import { federationExemptions, federationItems, federationKeys, federationSourceKeys, federationSources } from "./tables";

const KEY_COLUMNS = columnsOf(federationKeys);
const SOURCE_COLUMNS = columnsOf(federationSources);
const SOURCE_KEY_COLUMNS = columnsOf(federationSourceKeys);
const ITEM_COLUMNS = columnsOf(federationItems);
const EXEMPTION_COLUMNS = columnsOf(federationExemptions);

export class SqliteFederationStore implements FederationStore {
  readonly writesHoldRequests = true;
  private readonly sqlite: SqliteConnection;

  constructor(private readonly store: Store) {
    this.sqlite = store.sqlite;
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.store.write(fn);
  }

  async keys() {
    return this.sqlite.query<KeyRow, []>(`SELECT ${KEY_COLUMNS} FROM federation_keys ORDER BY created_at, kid`).all();
  }

  /** A write transaction already holds the database's one write lock. */
  async lockKeys() {}

  async insertKey(row: KeyRow) {
    this.sqlite.run(
      "INSERT INTO federation_keys (kid, public_key, private_key, created_at, retired_at, endorsement_kid, endorsement_sig) VALUES (?, ?, ?, ?, ?, ?, ?)",
      [row.kid, row.publicKey, row.privateKey, row.createdAt, row.retiredAt, row.endorsementKid, row.endorsementSig],
    );
  }

  async retireKey(kid: string, at: number) {
    this.sqlite.run("UPDATE federation_keys SET retired_at = ? WHERE kid = ? AND retired_at IS NULL", [at, kid]);
  }

  async sources() {
    return this.sqlite.query<SourceRow, []>(`SELECT ${SOURCE_COLUMNS} FROM federation_sources ORDER BY name`).all();
  }

  async sourceByName(name: string) {
    return this.sqlite.query<SourceRow, [string]>(`SELECT ${SOURCE_COLUMNS} FROM federation_sources WHERE name = ?`).get(name);
  }

  async dueSources(now: number) {
    return this.sqlite.query<SourceRow, [number]>(`SELECT ${SOURCE_COLUMNS} FROM federation_sources WHERE next_sync_at <= ? ORDER BY next_sync_at`).all(now);
  }

  insertSource(row: SourceRow) {
    return translatingConflicts(() =>
      this.store.write(async () => {
        this.sqlite.run(
          `INSERT INTO federation_sources (id, name, url, api_key, instance_id, policy, max_severity, verticals, reason_codes, interval_s,
             cursor, last_synced_at, next_sync_at, last_error, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            row.id,
            row.name,
            row.url,
            row.apiKey,
            row.instanceId,
            row.policy,
            row.maxSeverity,
            row.verticals,
            row.reasonCodes,
            row.intervalS,
            row.cursor,
            row.lastSyncedAt,
            row.nextSyncAt,
            row.lastError,
            row.createdAt,
            row.updatedAt,
          ],
        );
      }),
    );
  }

  async updateSource(id: string, patch: SourcePatch) {
    const sets: string[] = [];
    const values: Array<string | number | null> = [];
    for (const [key, column] of SOURCE_PATCH_COLUMNS) {
      if (patch[key] === undefined) continue;
      sets.push(`${column} = ?`);
      values.push(patch[key] as string | number | null);
    }
    if (sets.length === 0) return;
    await this.store.write(async () => void this.sqlite.run(`UPDATE federation_sources SET ${sets.join(", ")} WHERE id = ?`, [...values, id]));
  }

  async deleteSource(id: string) {
    await this.store.write(async () => {
      this.sqlite.run("DELETE FROM federation_items WHERE source_id = ?", [id]);
      this.sqlite.run("DELETE FROM federation_source_keys WHERE source_id = ?", [id]);
      this.sqlite.run("DELETE FROM federation_sources WHERE id = ?", [id]);
    });
  }

  async sourceKeys(sourceId: string) {
    return this.sqlite.query<SourceKeyRow, [string]>(`SELECT ${SOURCE_KEY_COLUMNS} FROM federation_source_keys WHERE source_id = ? ORDER BY created_at, kid`).all(sourceId);
  }

  async insertSourceKey(row: SourceKeyRow) {
    this.sqlite.run("INSERT OR IGNORE INTO federation_source_keys (source_id, kid, public_key, endorsed_by, created_at) VALUES (?, ?, ?, ?, ?)", [
      row.sourceId,
      row.kid,
      row.publicKey,
      row.endorsedBy,
      row.createdAt,
    ]);
  }

  async item(sourceId: string, upstreamId: string) {
    return this.sqlite.query<ItemRow, [string, string]>(`SELECT ${ITEM_COLUMNS} FROM federation_items WHERE source_id = ? AND upstream_id = ?`).get(sourceId, upstreamId);
  }

  async upsertItem(row: ItemRow) {
    this.upsertItemRow(row);
  }

  async upsertItems(rows: ItemRow[]) {
    for (const row of rows) this.upsertItemRow(row);
  }

  private upsertItemRow(row: ItemRow): void {
    this.sqlite
      .query(
        `INSERT INTO federation_items (source_id, upstream_id, entry, case_id, received_at) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (source_id, upstream_id) DO UPDATE SET entry = excluded.entry, received_at = excluded.received_at`,
      )
      .run(row.sourceId, row.upstreamId, row.entry, row.caseId, row.receivedAt);
  }

  async deleteItem(sourceId: string, upstreamId: string) {
    this.sqlite.run("DELETE FROM federation_items WHERE source_id = ? AND upstream_id = ?", [sourceId, upstreamId]);
  }

  async setItemCase(sourceId: string, upstreamId: string, caseId: string) {
    this.sqlite.run("UPDATE federation_items SET case_id = ? WHERE source_id = ? AND upstream_id = ?", [caseId, sourceId, upstreamId]);
  }

  async itemsAfter(sourceId: string, afterUpstreamId: string, limit: number) {
    return this.sqlite
      .query<ItemRow, [string, string, number]>(
        `SELECT ${ITEM_COLUMNS} FROM federation_items WHERE source_id = ? AND upstream_id > ? ORDER BY upstream_id LIMIT ?`,
      )
      .all(sourceId, afterUpstreamId, limit);
  }

  async itemsOfSubject(provider: Provider, providerUserId: string) {
    // Items keep the entry as JSON: the subject is matched inside it (exemptions are rare).
    return this.sqlite
      .query<ItemRow, [string, string]>(
        `SELECT ${ITEM_COLUMNS} FROM federation_items
         WHERE json_extract(entry, '$.provider') = ? AND json_extract(entry, '$.provider_user_id') = ?`,
      )
      .all(provider, providerUserId);
  }

  async exemptions() {
    return this.sqlite.query<ExemptionRow, []>(`SELECT ${EXEMPTION_COLUMNS} FROM federation_exemptions ORDER BY created_at, id`).all();
  }

  async exemption(id: string) {
    return this.sqlite.query<ExemptionRow, [string]>(`SELECT ${EXEMPTION_COLUMNS} FROM federation_exemptions WHERE id = ?`).get(id);
  }

  async insertExemption(row: ExemptionRow) {
    this.sqlite.run(
      "INSERT INTO federation_exemptions (id, provider, provider_user_id, source, reason, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      [row.id, row.provider, row.providerUserId, row.source, row.reason, row.createdBy, row.createdAt],
    );
  }

  async deleteExemption(id: string) {
    this.sqlite.run("DELETE FROM federation_exemptions WHERE id = ?", [id]);
  }
}
