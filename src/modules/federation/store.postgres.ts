// The federation tables on PostgreSQL (the contract: store.ts). Every statement goes through
// `database.sql()`, so it joins the caller's transaction.
import { translatingConflicts } from "../../db/errors";
import type { PostgresDatabase } from "../../db/postgres";
import { columnsOf, rowReader } from "../../db/rows";
import type { Provider } from "../../domain";
import type { FederationStore, ItemRow, KeyRow, SourceKeyRow, SourcePatch, SourceRow } from "./store";
import { SOURCE_PATCH_COLUMNS } from "./store.shared";
import { federationExemptions, federationItems, federationKeys, federationSourceKeys, federationSources } from "./tables";

const KEY_COLUMNS = columnsOf(federationKeys);
const SOURCE_COLUMNS = columnsOf(federationSources);
const SOURCE_KEY_COLUMNS = columnsOf(federationSourceKeys);
const ITEM_COLUMNS = columnsOf(federationItems);
const EXEMPTION_COLUMNS = columnsOf(federationExemptions);
const readKey = rowReader(federationKeys);
const readSource = rowReader(federationSources);
const readSourceKey = rowReader(federationSourceKeys);
const readItem = rowReader(federationItems);
const readExemption = rowReader(federationExemptions);

export class PostgresFederationStore implements FederationStore {
  readonly writesHoldRequests = false;

  constructor(private readonly database: PostgresDatabase) {}

  private get sql() {
    return this.database.sql();
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.database.write(fn);
  }

  async keys() {
    const rows = await this.sql.unsafe(`SELECT ${KEY_COLUMNS} FROM federation_keys ORDER BY created_at, kid`);
    return [...rows].map(readKey);
  }

  async lockKeys() {
    await this.sql`LOCK TABLE federation_keys IN EXCLUSIVE MODE`;
  }

  async insertKey(row: KeyRow) {
    await this.sql`
      INSERT INTO federation_keys (kid, public_key, private_key, created_at, retired_at, endorsement_kid, endorsement_sig)
      VALUES (${row.kid}, ${row.publicKey}, ${row.privateKey}, ${row.createdAt}, ${row.retiredAt}, ${row.endorsementKid}, ${row.endorsementSig})`;
  }

  async retireKey(kid: string, at: number) {
    await this.sql`UPDATE federation_keys SET retired_at = ${at} WHERE kid = ${kid} AND retired_at IS NULL`;
  }

  async sources() {
    const rows = await this.sql.unsafe(`SELECT ${SOURCE_COLUMNS} FROM federation_sources ORDER BY name`);
    return [...rows].map(readSource);
  }

  async sourceByName(name: string) {
    const [row] = await this.sql.unsafe(`SELECT ${SOURCE_COLUMNS} FROM federation_sources WHERE name = $1`, [name]);
    return row ? readSource(row) : null;
  }

  async dueSources(now: number) {
    const rows = await this.sql.unsafe(`SELECT ${SOURCE_COLUMNS} FROM federation_sources WHERE next_sync_at <= $1::bigint ORDER BY next_sync_at`, [now]);
    return [...rows].map(readSource);
  }

  insertSource(row: SourceRow) {
    return translatingConflicts(
      () => this.sql`
        INSERT INTO federation_sources (id, name, url, api_key, instance_id, policy, max_severity, verticals, reason_codes, interval_s,
          cursor, last_synced_at, next_sync_at, last_error, created_at, updated_at)
        VALUES (${row.id}, ${row.name}, ${row.url}, ${row.apiKey}, ${row.instanceId}, ${row.policy}, ${row.maxSeverity}, ${row.verticals},
          ${row.reasonCodes}, ${row.intervalS}, ${row.cursor}, ${row.lastSyncedAt}, ${row.nextSyncAt}, ${row.lastError}, ${row.createdAt},
          ${row.updatedAt})`,
    ).then(() => undefined);
  }

  async updateSource(id: string, patch: SourcePatch) {
    const sets: string[] = [];
    const values: Array<string | number | null> = [];
    for (const [key, column] of SOURCE_PATCH_COLUMNS) {
      if (patch[key] === undefined) continue;
      values.push(patch[key] as string | number | null);
      sets.push(`${column} = $${values.length}`);
    }
    if (sets.length === 0) return;
    values.push(id);
    await this.sql.unsafe(`UPDATE federation_sources SET ${sets.join(", ")} WHERE id = $${values.length}`, values);
  }

  async deleteSource(id: string) {
    await this.database.write(async () => {
      await this.sql`DELETE FROM federation_items WHERE source_id = ${id}`;
      await this.sql`DELETE FROM federation_source_keys WHERE source_id = ${id}`;
      await this.sql`DELETE FROM federation_sources WHERE id = ${id}`;
    });
  }

  async sourceKeys(sourceId: string) {
    const rows = await this.sql.unsafe(`SELECT ${SOURCE_KEY_COLUMNS} FROM federation_source_keys WHERE source_id = $1 ORDER BY created_at, kid`, [sourceId]);
    return [...rows].map(readSourceKey);
  }

  async insertSourceKey(row: SourceKeyRow) {
    await this.sql`
      INSERT INTO federation_source_keys (source_id, kid, public_key, endorsed_by, created_at)
      VALUES (${row.sourceId}, ${row.kid}, ${row.publicKey}, ${row.endorsedBy}, ${row.createdAt})
      ON CONFLICT DO NOTHING`;
  }

  async item(sourceId: string, upstreamId: string) {
    const [row] = await this.sql.unsafe(`SELECT ${ITEM_COLUMNS} FROM federation_items WHERE source_id = $1 AND upstream_id = $2`, [sourceId, upstreamId]);
    return row ? readItem(row) : null;
  }

  async upsertItem(row: ItemRow) {
    await this.sql`
      INSERT INTO federation_items (source_id, upstream_id, entry, case_id, received_at)
      VALUES (${row.sourceId}, ${row.upstreamId}, ${row.entry}, ${row.caseId}, ${row.receivedAt})
      ON CONFLICT (source_id, upstream_id) DO UPDATE SET entry = excluded.entry, received_at = excluded.received_at`;
  }

  async upsertItems(rows: ItemRow[]) {
    if (rows.length === 0) return;
    await this.sql.unsafe(
      `INSERT INTO federation_items (source_id, upstream_id, entry, case_id, received_at)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[])
       ON CONFLICT (source_id, upstream_id) DO UPDATE SET entry = excluded.entry, received_at = excluded.received_at`,
      [rows.map((row) => row.sourceId), rows.map((row) => row.upstreamId), rows.map((row) => row.entry), rows.map((row) => row.caseId), rows.map((row) => row.receivedAt)],
    );
  }

  async deleteItem(sourceId: string, upstreamId: string) {
    await this.sql`DELETE FROM federation_items WHERE source_id = ${sourceId} AND upstream_id = ${upstreamId}`;
  }

  async setItemCase(sourceId: string, upstreamId: string, caseId: string) {
    await this.sql`UPDATE federation_items SET case_id = ${caseId} WHERE source_id = ${sourceId} AND upstream_id = ${upstreamId}`;
  }

  async itemsAfter(sourceId: string, afterUpstreamId: string, limit: number) {
    const rows = await this.sql.unsafe(
      `SELECT ${ITEM_COLUMNS} FROM federation_items WHERE source_id = $1 AND upstream_id > $2 ORDER BY upstream_id LIMIT $3`,
      [sourceId, afterUpstreamId, limit],
    );
    return [...rows].map(readItem);
  }

  async itemsOfSubject(provider: Provider, providerUserId: string) {
    // Items keep the entry as JSON: the subject is matched inside it (exemptions are rare).
    const rows = await this.sql.unsafe(
      `SELECT ${ITEM_COLUMNS} FROM federation_items
       WHERE (entry::jsonb)->>'provider' = $1 AND (entry::jsonb)->>'provider_user_id' = $2`,
      [provider, providerUserId],
    );
    return [...rows].map(readItem);
  }

  async exemptions() {
    const rows = await this.sql.unsafe(`SELECT ${EXEMPTION_COLUMNS} FROM federation_exemptions ORDER BY created_at, id`);
    return [...rows].map(readExemption);
  }

  async exemption(id: string) {
    const [row] = await this.sql.unsafe(`SELECT ${EXEMPTION_COLUMNS} FROM federation_exemptions WHERE id = $1`, [id]);
    return row ? readExemption(row) : null;
  }

  async insertExemption(row: ReturnType<typeof readExemption>) {
    await this.sql`
      INSERT INTO federation_exemptions (id, provider, provider_user_id, source, reason, created_by, created_at)
      VALUES (${row.id}, ${row.provider}, ${row.providerUserId}, ${row.source}, ${row.reason}, ${row.createdBy}, ${row.createdAt})`;
  }

  async deleteExemption(id: string) {
    await this.sql`DELETE FROM federation_exemptions WHERE id = ${id}`;
  }
}
