// The creators' tables on PostgreSQL through Bun.SQL (the contract: store.ts). Every statement runs
// on `database.sql()`, so it joins the caller's transaction. Rows are read under their tables'
// field names and go through the tables' readers (int8 columns arrive as strings); `seq`, read as
// `rowid`, is made a number beside them. Every write to creators is noted under CREATORS_NOTE for
// the other instances' directory indexes.
import { asUniqueViolation } from "../../db/errors";
import type { PostgresDatabase } from "../../db/postgres";
import { columnsOf, rowReader } from "../../db/rows";
import { blacklistEntries } from "../blacklist/tables";
import type {
  ConnectionFields,
  ConnectionRow,
  CreatorOrder,
  CreatorRow,
  CreatorScan,
  CreatorsManyStore,
  CreatorsStore,
  DirectoryIndexRow,
  DirectoryListRow,
  NewConnection,
  NewCreator,
  ProfileFields,
  Rowid,
  ScoreBasis,
  TrustFields,
} from "./store";
import { CREATORS_NOTE, DIRECTORY_INDEX_FIELDS, DIRECTORY_LIST_FIELDS, emptyScoreBasis, PENALTY_FIELDS } from "./store.shared";
import { connections, creators } from "./tables";

// biome-ignore lint/suspicious/noExplicitAny: driver rows are untyped
type Raw = any;

/** `read`, with the creator's `seq` (an int8, read as `rowid`) made a number. */
function withRowid<R>(read: (raw: Raw) => R): (raw: Raw) => R & Rowid {
  return (raw) => {
    raw.rowid = Number(raw.rowid);
    return read(raw) as R & Rowid;
  };
}

const CREATOR_COLUMNS = `seq AS rowid, ${columnsOf(creators)}`;
const readCreator: (raw: Raw) => CreatorRow = withRowid(rowReader(creators));
const CONNECTION_COLUMNS = columnsOf(connections);
const readConnection = rowReader(connections);
const PENALTY_COLUMNS = columnsOf(blacklistEntries, PENALTY_FIELDS);
const PENALTY_COLUMNS_OF_E = columnsOf(blacklistEntries, PENALTY_FIELDS, "e");
const readPenalty = rowReader(blacklistEntries, PENALTY_FIELDS);
const INDEX_COLUMNS = `seq AS rowid, ${columnsOf(creators, DIRECTORY_INDEX_FIELDS)}`;
const readIndexRow: (raw: Raw) => DirectoryIndexRow = withRowid(rowReader(creators, DIRECTORY_INDEX_FIELDS));
const LIST_COLUMNS = `seq AS rowid, ${columnsOf(creators, DIRECTORY_LIST_FIELDS)}`;
const readListRow: (raw: Raw) => DirectoryListRow = withRowid(rowReader(creators, DIRECTORY_LIST_FIELDS));

/** A LIKE pattern for strings starting with `prefix` (its wildcards and the escape taken literally). */
function startsWith(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, "\\$&")}%`;
}

export class PostgresCreatorsStore implements CreatorsStore {
  constructor(private readonly database: PostgresDatabase) {}

  private get sql() {
    return this.database.sql();
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.database.write(fn);
  }

  async holdVersion(): Promise<() => Promise<void>> {
    // Read by the trigger of migration 0005; SET LOCAL ends with the transaction.
    await this.sql`SELECT set_config('trustlist.bulk', 'on', true)`;
    return async () => {
      await this.sql`SELECT set_config('trustlist.bulk', 'off', true)`;
      await this.sql`UPDATE meta SET value = (value::bigint + 1)::text WHERE key = 'creators_version'`;
    };
  }

  async byHandle(handle: string): Promise<CreatorRow | null> {
    const [row] = await this.sql`SELECT ${this.sql.unsafe(CREATOR_COLUMNS)} FROM creators WHERE handle = ${handle}`;
    return row ? readCreator(row) : null;
  }

  async byId(id: string): Promise<CreatorRow | null> {
    const [row] = await this.sql`SELECT ${this.sql.unsafe(CREATOR_COLUMNS)} FROM creators WHERE id = ${id}`;
    return row ? readCreator(row) : null;
  }

  async insertCreatorUnlessTaken(c: NewCreator): Promise<boolean> {
    let inserted: unknown[];
    try {
      inserted = await this.sql`
        INSERT INTO creators (id, handle, display_name, verification_level, karma, joined_at, avatar_r2_key, created_at,
          updated_at, trust_computed_at, search_text)
        VALUES (${c.id}, ${c.handle}, ${c.displayName}, ${c.verificationLevel}, ${c.karma}, ${c.joinedAt}, ${c.avatarR2Key},
          ${c.createdAt}, ${c.createdAt}, ${c.createdAt}, ${c.handle})
        ON CONFLICT (handle) DO NOTHING RETURNING id`;
    } catch (error) {
      throw asUniqueViolation(error) ?? error;
    }
    if (inserted.length > 0) this.database.note(CREATORS_NOTE, c.id);
    return inserted.length > 0;
  }

  async insertCreator(c: NewCreator): Promise<void> {
    try {
      await this.sql`
        INSERT INTO creators (id, handle, display_name, verification_level, karma, joined_at, avatar_r2_key, created_at,
          updated_at, trust_computed_at, search_text)
        VALUES (${c.id}, ${c.handle}, ${c.displayName}, ${c.verificationLevel}, ${c.karma}, ${c.joinedAt}, ${c.avatarR2Key},
          ${c.createdAt}, ${c.createdAt}, ${c.createdAt}, ${c.handle})`;
    } catch (error) {
      throw asUniqueViolation(error) ?? error;
    }
    this.database.note(CREATORS_NOTE, c.id);
  }

  get many(): CreatorsManyStore {
    return this;
  }

  /** The rows go as one JSON parameter: Bun quotes an array parameter element by element. */
  async insertCreatorsUnlessTaken(rows: NewCreator[]): Promise<Set<string>> {
    if (rows.length === 0) return new Set();
    const inserted = await this.sql.unsafe(
      `INSERT INTO creators (id, handle, display_name, verification_level, karma, joined_at, avatar_r2_key, created_at,
         updated_at, trust_computed_at, search_text)
       SELECT id, handle, "displayName", "verificationLevel", karma, "joinedAt", "avatarR2Key", "createdAt", "createdAt", "createdAt", handle
       FROM ROWS FROM (json_to_recordset($1::text::json) AS (id text, handle text, "displayName" text, "verificationLevel" integer,
         karma integer, "joinedAt" bigint, "avatarR2Key" text, "createdAt" bigint)) WITH ORDINALITY AS r
       ORDER BY ordinality
       ON CONFLICT DO NOTHING RETURNING id`,
      [JSON.stringify(rows)],
    );
    const ids = new Set<string>();
    for (const row of inserted as Array<{ id: string }>) {
      ids.add(row.id);
      this.database.note(CREATORS_NOTE, row.id);
    }
    return ids;
  }

  async insertConnectionsUnlessTaken(links: NewConnection[]): Promise<Set<number>> {
    if (links.length === 0) return new Set();
    const inserted = await this.sql.unsafe(
      `INSERT INTO connections (creator_id, provider, provider_user_id, provider_username, provider_url, verified_at, public, created_at)
       SELECT "creatorId", provider, "providerUserId", "providerUsername", "providerUrl", "verifiedAt", public, "createdAt"
       FROM ROWS FROM (json_to_recordset($1::text::json) AS ("creatorId" text, provider text, "providerUserId" text,
         "providerUsername" text, "providerUrl" text, "verifiedAt" bigint, public boolean, "createdAt" bigint)) WITH ORDINALITY AS r
       WHERE EXISTS (SELECT 1 FROM creators c WHERE c.id = r."creatorId")
       ORDER BY ordinality
       ON CONFLICT (provider, provider_user_id) DO NOTHING RETURNING provider, provider_user_id`,
      [JSON.stringify(links)],
    );
    const stored = new Set((inserted as Array<{ provider: string; provider_user_id: string }>).map((row) => `${row.provider}\n${row.provider_user_id}`));
    const places = new Set<number>();
    links.forEach((link, i) => {
      if (stored.has(`${link.provider}\n${link.providerUserId}`)) places.add(i);
    });
    return places;
  }

  async creatorsByIds(ids: string[]): Promise<CreatorRow[]> {
    if (ids.length === 0) return [];
    const rows = await this.sql.unsafe(`SELECT ${CREATOR_COLUMNS} FROM creators WHERE id = ANY($1::text[])`, [ids]);
    return rows.map(readCreator);
  }

  /** The reads of `scoreBasis` grouped by creator; sent together, so the connection pipelines them. */
  async scoreBases(creators: Array<Pick<CreatorRow, "id" | "handle">>, now: number): Promise<Map<string, ScoreBasis>> {
    const all = new Map<string, ScoreBasis>();
    if (creators.length === 0) return all;
    for (const creator of creators) all.set(creator.id, emptyScoreBasis());
    const ids = creators.map((creator) => creator.id);
    const sql = this.sql;
    const [links, vouches, deals, reviews, penalties] = await Promise.all([
      sql.unsafe(`SELECT ${CONNECTION_COLUMNS} FROM connections WHERE creator_id = ANY($1::text[]) ORDER BY creator_id, created_at, id`, [ids]),
      sql.unsafe("SELECT to_creator_id AS id, count(*)::int AS n FROM vouches WHERE to_creator_id = ANY($1::text[]) GROUP BY to_creator_id", [ids]),
      sql.unsafe(
        `SELECT id, sum(n)::int AS n FROM (
           SELECT from_creator_id AS id, count(*) AS n FROM deals WHERE from_creator_id = ANY($1::text[]) AND status = 'completed' GROUP BY from_creator_id
           UNION ALL
           SELECT to_creator_id AS id, count(*) AS n FROM deals WHERE to_creator_id = ANY($1::text[]) AND status = 'completed' GROUP BY to_creator_id) d
         GROUP BY id`,
        [ids],
      ),
      sql.unsafe("SELECT to_creator_id AS id, count(*)::int AS n, sum(rating)::int AS sum FROM reviews WHERE to_creator_id = ANY($1::text[]) GROUP BY to_creator_id", [ids]),
      sql.unsafe(
        `SELECT c.id AS of_creator, ${PENALTY_COLUMNS_OF_E}
         FROM unnest($1::text[], $2::text[]) AS c(id, handle) JOIN blacklist_entries e ON e.creator_handle = c.handle
         WHERE e.status = 'active' AND (e.expires_at IS NULL OR e.expires_at > $3::bigint)
         UNION
         SELECT c.creator_id, ${PENALTY_COLUMNS_OF_E}
         FROM connections c JOIN blacklist_entries e ON e.provider = c.provider AND e.provider_user_id = c.provider_user_id
         WHERE c.creator_id = ANY($1::text[]) AND e.status = 'active' AND (e.expires_at IS NULL OR e.expires_at > $3::bigint)`,
        [ids, creators.map((creator) => creator.handle), now],
      ),
    ]);
    for (const raw of links) {
      const link = readConnection(raw);
      all.get(link.creatorId)?.connections.push(link);
    }
    for (const row of vouches as Array<{ id: string; n: number }>) all.get(row.id)!.vouches = row.n;
    for (const row of deals as Array<{ id: string; n: number }>) all.get(row.id)!.deals = row.n;
    for (const row of reviews as Array<{ id: string; n: number; sum: number | null }>) all.get(row.id)!.reviews = { n: row.n, sum: row.sum };
    for (const raw of penalties) all.get(raw.of_creator)?.penalties.push(readPenalty(raw));
    return all;
  }

  async writeTrusts(rows: Array<{ id: string; fields: TrustFields }>, day: string): Promise<void> {
    if (rows.length === 0) return;
    const json = JSON.stringify(rows.map(({ id, fields }) => ({ id, ...fields })));
    await this.sql.unsafe(
      `UPDATE creators c SET trust_score = r."trustScore", trust_band = r."trustBand", blacklisted = r.blacklisted,
         trust_computed_at = r."trustComputedAt", linked_accounts = r."linkedAccounts", verified_connections = r."verifiedConnections",
         vouch_count = r."vouchCount", deal_count = r."dealCount", review_count = r."reviewCount", review_sum = r."reviewSum",
         search_text = r."searchText", platforms = r.platforms
       FROM json_to_recordset($1::text::json) AS r(id text, "trustScore" integer, "trustBand" text, blacklisted boolean,
         "trustComputedAt" bigint, "linkedAccounts" integer, "verifiedConnections" integer, "vouchCount" integer, "dealCount" integer,
         "reviewCount" integer, "reviewSum" integer, "searchText" text, platforms text)
       WHERE c.id = r.id`,
      [json],
    );
    await this.sql.unsafe(
      `INSERT INTO trust_snapshots (creator_id, day, score)
       SELECT id, $2, "trustScore" FROM json_to_recordset($1::text::json) AS r(id text, "trustScore" integer)
       ON CONFLICT (creator_id, day) DO UPDATE SET score = excluded.score`,
      [json, day],
    );
    for (const row of rows) this.database.note(CREATORS_NOTE, row.id);
  }

  async updateProfile(id: string, f: ProfileFields, now: number): Promise<void> {
    await this.sql`
      UPDATE creators SET display_name = ${f.displayName}, verification_level = ${f.verificationLevel}, karma = ${f.karma},
        joined_at = ${f.joinedAt}, avatar_r2_key = ${f.avatarR2Key}, updated_at = ${now}
      WHERE id = ${id}`;
    this.database.note(CREATORS_NOTE, id);
  }

  async connectionByAccount(provider: string, accountId: string): Promise<ConnectionRow | null> {
    const [row] = await this.sql`
      SELECT ${this.sql.unsafe(CONNECTION_COLUMNS)} FROM connections WHERE provider = ${provider} AND provider_user_id = ${accountId}`;
    return row ? readConnection(row) : null;
  }

  async connectionsOf(creatorId: string): Promise<ConnectionRow[]> {
    const rows = await this.sql`SELECT ${this.sql.unsafe(CONNECTION_COLUMNS)} FROM connections WHERE creator_id = ${creatorId} ORDER BY created_at, id`;
    return rows.map(readConnection);
  }

  async insertConnection(c: NewConnection): Promise<boolean> {
    const rows = await this.sql`
      INSERT INTO connections (creator_id, provider, provider_user_id, provider_username, provider_url, verified_at, public, created_at)
      VALUES (${c.creatorId}, ${c.provider}, ${c.providerUserId}, ${c.providerUsername}, ${c.providerUrl}, ${c.verifiedAt},
        ${c.public}, ${c.createdAt})
      ON CONFLICT (provider, provider_user_id) DO NOTHING
      RETURNING id`;
    return rows.length > 0;
  }

  async updateConnection(id: number, f: ConnectionFields): Promise<void> {
    await this.sql`
      UPDATE connections SET provider_username = ${f.providerUsername}, provider_url = ${f.providerUrl},
        verified_at = ${f.verifiedAt}, public = ${f.public}
      WHERE id = ${id}`;
  }

  async deleteConnection(id: number): Promise<void> {
    await this.sql`DELETE FROM connections WHERE id = ${id}`;
  }

  async scoreBasis(creator: Pick<CreatorRow, "id" | "handle">, now: number): Promise<ScoreBasis> {
    const sql = this.sql;
    const connections = await this.connectionsOf(creator.id);
    const [counts] = await sql`
      SELECT (SELECT count(*)::int FROM vouches WHERE to_creator_id = ${creator.id}) AS vouches,
             (SELECT count(*)::int FROM deals WHERE from_creator_id = ${creator.id} AND status = 'completed')
           + (SELECT count(*)::int FROM deals WHERE to_creator_id = ${creator.id} AND status = 'completed') AS deals,
             (SELECT count(*)::int FROM reviews WHERE to_creator_id = ${creator.id}) AS review_count,
             (SELECT sum(rating)::int FROM reviews WHERE to_creator_id = ${creator.id}) AS review_sum`;
    const penalties = await sql`
      SELECT ${sql.unsafe(PENALTY_COLUMNS)} FROM blacklist_entries
      WHERE creator_handle = ${creator.handle} AND status = 'active' AND (expires_at IS NULL OR expires_at > ${now})
      UNION
      SELECT ${sql.unsafe(PENALTY_COLUMNS_OF_E)}
      FROM connections c JOIN blacklist_entries e ON e.provider = c.provider AND e.provider_user_id = c.provider_user_id
      WHERE c.creator_id = ${creator.id} AND e.status = 'active' AND (e.expires_at IS NULL OR e.expires_at > ${now})`;
    return {
      connections,
      vouches: counts.vouches,
      deals: counts.deals,
      reviews: { n: counts.review_count, sum: counts.review_sum },
      penalties: penalties.map(readPenalty),
    };
  }

  async creatorsNamedBy(handle: string, provider: string, accountId: string): Promise<string[]> {
    const rows = await this.sql`
      SELECT id FROM creators WHERE handle = ${handle}
      UNION SELECT creator_id FROM connections WHERE provider = ${provider} AND provider_user_id = ${accountId}`;
    return rows.map((row: Raw) => row.id as string);
  }

  async creatorsNamedByAny(subjects: Array<{ handle: string; provider: string; accountId: string }>): Promise<string[]> {
    if (subjects.length === 0) return [];
    const rows = await this.sql.unsafe(
      `SELECT id FROM creators WHERE handle = ANY($1::text[])
       UNION SELECT c.creator_id FROM connections c JOIN unnest($2::text[], $3::text[]) AS s(provider, account_id)
         ON c.provider = s.provider AND c.provider_user_id = s.account_id`,
      [subjects.map((s) => s.handle), subjects.map((s) => s.provider), subjects.map((s) => s.accountId)],
    );
    return rows.map((row: Raw) => row.id as string);
  }

  async writeTrust(id: string, t: TrustFields): Promise<void> {
    await this.sql`
      UPDATE creators SET trust_score = ${t.trustScore}, trust_band = ${t.trustBand}, blacklisted = ${t.blacklisted},
        trust_computed_at = ${t.trustComputedAt}, linked_accounts = ${t.linkedAccounts},
        verified_connections = ${t.verifiedConnections}, vouch_count = ${t.vouchCount}, deal_count = ${t.dealCount},
        review_count = ${t.reviewCount}, review_sum = ${t.reviewSum}, search_text = ${t.searchText}, platforms = ${t.platforms}
      WHERE id = ${id}`;
    this.database.note(CREATORS_NOTE, id);
  }

  async writeCoursesPassed(id: string, count: number): Promise<void> {
    await this.sql`UPDATE creators SET courses_passed = ${count} WHERE id = ${id}`;
  }

  async writeSnapshot(id: string, day: string, score: number): Promise<void> {
    await this.sql`
      INSERT INTO trust_snapshots (creator_id, day, score) VALUES (${id}, ${day}, ${score})
      ON CONFLICT (creator_id, day) DO UPDATE SET score = excluded.score`;
  }

  async trendFrom(id: string, day: string): Promise<number | null> {
    const [row] = await this.sql`
      SELECT coalesce(
        (SELECT score FROM trust_snapshots WHERE creator_id = ${id} AND day <= ${day} ORDER BY day DESC LIMIT 1),
        (SELECT score FROM trust_snapshots WHERE creator_id = ${id} ORDER BY day LIMIT 1)) AS score`;
    return row.score ?? null;
  }

  async creatorIdsAfter(after: string, limit: number): Promise<string[]> {
    const rows = await this.sql`SELECT id FROM creators WHERE id > ${after} ORDER BY id LIMIT ${limit}`;
    return rows.map((row: Raw) => row.id as string);
  }

  async creatorsInOrder(order: CreatorOrder, limit: number, offset: number): Promise<DirectoryListRow[]> {
    const sql = this.sql;
    const columns = sql.unsafe(LIST_COLUMNS);
    const rows =
      order === "newest"
        ? await sql`SELECT ${columns} FROM creators ORDER BY created_at DESC, id LIMIT ${limit} OFFSET ${offset}`
        : order === "trust"
          ? await sql`SELECT ${columns} FROM creators ORDER BY trust_score DESC, id LIMIT ${limit} OFFSET ${offset}`
          : order === "vouches"
            ? await sql`SELECT ${columns} FROM creators ORDER BY vouch_count DESC, id LIMIT ${limit} OFFSET ${offset}`
            : await sql`SELECT ${columns} FROM creators ORDER BY deal_count DESC, id LIMIT ${limit} OFFSET ${offset}`;
    return rows.map(readListRow);
  }

  async scanCreators(scan: CreatorScan, order: CreatorOrder, limit: number, offset: number): Promise<{ total: number; rows: DirectoryListRow[] }> {
    const sql = this.sql;
    const where = sql`
      (${scan.text}::text IS NULL OR strpos(search_text, ${scan.text}::text) > 0)
      AND (${scan.words}::text[] IS NULL OR NOT EXISTS (SELECT 1 FROM unnest(${scan.words}::text[]) w WHERE strpos(search_text, w) = 0))
      AND (${scan.handlePrefix}::text IS NULL OR handle LIKE ${scan.handlePrefix === null ? null : startsWith(scan.handlePrefix)}::text)
      AND (${scan.platform}::text IS NULL OR strpos(',' || platforms || ',', ',' || ${scan.platform}::text || ',') > 0)`;
    const [{ n: total }] = await sql`SELECT count(*)::int AS n FROM creators WHERE ${where}`;
    if (offset >= total) return { total, rows: [] };
    const columns = sql.unsafe(LIST_COLUMNS);
    const rows =
      order === "newest"
        ? await sql`SELECT ${columns} FROM creators WHERE ${where} ORDER BY created_at DESC, id LIMIT ${limit} OFFSET ${offset}`
        : order === "trust"
          ? await sql`SELECT ${columns} FROM creators WHERE ${where} ORDER BY trust_score DESC, id LIMIT ${limit} OFFSET ${offset}`
          : order === "vouches"
            ? await sql`SELECT ${columns} FROM creators WHERE ${where} ORDER BY vouch_count DESC, id LIMIT ${limit} OFFSET ${offset}`
            : await sql`SELECT ${columns} FROM creators WHERE ${where} ORDER BY deal_count DESC, id LIMIT ${limit} OFFSET ${offset}`;
    return { total, rows: rows.map(readListRow) };
  }

  async countCreators(): Promise<number> {
    const [row] = await this.sql`SELECT count(*)::int AS n FROM creators`;
    return row.n as number;
  }

  async countVerified(): Promise<number> {
    const [row] = await this.sql`SELECT count(*)::int AS n FROM creators WHERE verification_level >= 1`;
    return row.n as number;
  }

  async indexRowsAfter(rowid: number, limit: number): Promise<DirectoryIndexRow[]> {
    const rows = await this.sql`
      SELECT ${this.sql.unsafe(INDEX_COLUMNS)} FROM creators WHERE seq > ${rowid} ORDER BY seq LIMIT ${limit}`;
    return rows.map(readIndexRow);
  }

  async indexRowsByIds(ids: string[]): Promise<DirectoryIndexRow[]> {
    if (ids.length === 0) return [];
    const rows = await this.sql`
      SELECT ${this.sql.unsafe(INDEX_COLUMNS)} FROM creators WHERE id = ANY(${ids}::text[])`;
    return rows.map(readIndexRow);
  }

  /** LIKE on the handle's text_pattern_ops index: a prefix range whatever the database's collation. */
  async rowidsByHandlePrefix(prefix: string): Promise<number[]> {
    const rows = await this.sql`SELECT seq FROM creators WHERE handle LIKE ${startsWith(prefix)}`;
    return rows.map((row: Raw) => Number(row.seq));
  }

  async creatorsByRowids(rowids: number[]): Promise<DirectoryListRow[]> {
    if (rowids.length === 0) return [];
    const rows = await this.sql`SELECT ${this.sql.unsafe(LIST_COLUMNS)} FROM creators WHERE seq = ANY(${rowids}::bigint[])`;
    return rows.map(readListRow);
  }

  async connectionsByAccounts(accounts: ReadonlyArray<{ provider: string; id: string }>): Promise<ConnectionRow[]> {
    if (accounts.length === 0) return [];
    // One round trip for all of them: a name-like search fits seven platforms' id syntax.
    const rows = await this.sql.unsafe(
      `SELECT ${CONNECTION_COLUMNS} FROM connections
       WHERE (provider, provider_user_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
      [accounts.map((account) => account.provider), accounts.map((account) => account.id)],
    );
    return rows.map(readConnection);
  }

  async publicConnectionsByUsername(lowerUsername: string, limit: number): Promise<ConnectionRow[]> {
    const rows = await this.sql`
      SELECT ${this.sql.unsafe(CONNECTION_COLUMNS)} FROM connections
      WHERE lower(provider_username) = ${lowerUsername} AND public ORDER BY id LIMIT ${limit}`;
    return rows.map(readConnection);
  }
}
