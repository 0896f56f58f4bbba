// The creators' tables on PostgreSQL through Bun.SQL (the contract: store.ts). Every statement runs on `database.sql()`, so
// it joins the caller's transaction. int8 columns arrive as strings and flags as booleans: the
// row mappers give the service the same shapes as SQLite. Every write to creators is noted under
// CREATORS_NOTE for the other instances' directory indexes.
import { asUniqueViolation } from "../../db/errors";
import type { PostgresDatabase } from "../../db/postgres";
import type {
  ConnectionFields,
  ConnectionRow,
  CreatorOrder,
  CreatorRow,
  CreatorScan,
  CreatorsStore,
  DirectoryIndexRow,
  NewConnection,
  NewCreator,
  PenaltyRow,
  ProfileFields,
  ScoreBasis,
  TrustFields,
} from "./store";
import { CREATORS_NOTE } from "./store.shared";

// biome-ignore lint/suspicious/noExplicitAny: driver rows are untyped
type Raw = any;

function creatorRow(r: Raw): CreatorRow {
  return {
    rowid: Number(r.seq),
    id: r.id,
    handle: r.handle,
    display_name: r.display_name,
    verification_level: r.verification_level,
    karma: r.karma,
    joined_at: Number(r.joined_at),
    avatar_r2_key: r.avatar_r2_key,
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
    trust_score: r.trust_score,
    trust_band: r.trust_band,
    blacklisted: r.blacklisted ? 1 : 0,
    trust_computed_at: Number(r.trust_computed_at),
    linked_accounts: r.linked_accounts,
    verified_connections: r.verified_connections,
    vouch_count: r.vouch_count,
    deal_count: r.deal_count,
    review_count: r.review_count,
    review_sum: r.review_sum,
    courses_passed: r.courses_passed,
    search_text: r.search_text,
    platforms: r.platforms,
  };
}

function connectionRow(r: Raw): ConnectionRow {
  return {
    id: Number(r.id),
    creator_id: r.creator_id,
    provider: r.provider,
    provider_user_id: r.provider_user_id,
    provider_username: r.provider_username,
    provider_url: r.provider_url,
    verified_at: r.verified_at === null ? null : Number(r.verified_at),
    public: r.public ? 1 : 0,
    created_at: Number(r.created_at),
  };
}

function indexRow(r: Raw): DirectoryIndexRow {
  return {
    rowid: Number(r.seq),
    id: r.id,
    search_text: r.search_text,
    created_at: Number(r.created_at),
    trust_score: r.trust_score,
    vouch_count: r.vouch_count,
    deal_count: r.deal_count,
    platforms: r.platforms,
  };
}

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
    const [row] = await this.sql`SELECT * FROM creators WHERE handle = ${handle}`;
    return row ? creatorRow(row) : null;
  }

  async byId(id: string): Promise<CreatorRow | null> {
    const [row] = await this.sql`SELECT * FROM creators WHERE id = ${id}`;
    return row ? creatorRow(row) : null;
  }

  async insertCreator(c: NewCreator): Promise<void> {
    try {
      await this.sql`
        INSERT INTO creators (id, handle, display_name, verification_level, karma, joined_at, avatar_r2_key, created_at,
          updated_at, trust_computed_at, search_text)
        VALUES (${c.id}, ${c.handle}, ${c.display_name}, ${c.verification_level}, ${c.karma}, ${c.joined_at}, ${c.avatar_r2_key},
          ${c.created_at}, ${c.created_at}, ${c.created_at}, ${c.handle})`;
    } catch (error) {
      throw asUniqueViolation(error) ?? error;
    }
    this.database.note(CREATORS_NOTE, c.id);
  }

  async updateProfile(id: string, f: ProfileFields, now: number): Promise<void> {
    await this.sql`
      UPDATE creators SET display_name = ${f.display_name}, verification_level = ${f.verification_level}, karma = ${f.karma},
        joined_at = ${f.joined_at}, avatar_r2_key = ${f.avatar_r2_key}, updated_at = ${now}
      WHERE id = ${id}`;
    this.database.note(CREATORS_NOTE, id);
  }

  async connectionByAccount(provider: string, accountId: string): Promise<ConnectionRow | null> {
    const [row] = await this.sql`SELECT * FROM connections WHERE provider = ${provider} AND provider_user_id = ${accountId}`;
    return row ? connectionRow(row) : null;
  }

  async connectionsOf(creatorId: string): Promise<ConnectionRow[]> {
    const rows = await this.sql`SELECT * FROM connections WHERE creator_id = ${creatorId} ORDER BY created_at, id`;
    return rows.map(connectionRow);
  }

  async insertConnection(c: NewConnection): Promise<boolean> {
    const rows = await this.sql`
      INSERT INTO connections (creator_id, provider, provider_user_id, provider_username, provider_url, verified_at, public, created_at)
      VALUES (${c.creator_id}, ${c.provider}, ${c.provider_user_id}, ${c.provider_username}, ${c.provider_url}, ${c.verified_at},
        ${c.public === 1}, ${c.created_at})
      ON CONFLICT (provider, provider_user_id) DO NOTHING
      RETURNING id`;
    return rows.length > 0;
  }

  async updateConnection(id: number, f: ConnectionFields): Promise<void> {
    await this.sql`
      UPDATE connections SET provider_username = ${f.provider_username}, provider_url = ${f.provider_url},
        verified_at = ${f.verified_at}, public = ${f.public === 1}
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
      SELECT id, severity, high_risk, watchlist FROM blacklist_entries
      WHERE creator_handle = ${creator.handle} AND status = 'active' AND (expires_at IS NULL OR expires_at > ${now})
      UNION
      SELECT e.id, e.severity, e.high_risk, e.watchlist
      FROM connections c JOIN blacklist_entries e ON e.provider = c.provider AND e.provider_user_id = c.provider_user_id
      WHERE c.creator_id = ${creator.id} AND e.status = 'active' AND (e.expires_at IS NULL OR e.expires_at > ${now})`;
    return {
      connections,
      vouches: counts.vouches,
      deals: counts.deals,
      reviews: { n: counts.review_count, sum: counts.review_sum },
      penalties: penalties.map(
        (p: Raw): PenaltyRow => ({ id: p.id, severity: p.severity, high_risk: p.high_risk ? 1 : 0, watchlist: p.watchlist ? 1 : 0 }),
      ),
    };
  }

  async creatorsNamedBy(handle: string, provider: string, accountId: string): Promise<string[]> {
    const rows = await this.sql`
      SELECT id FROM creators WHERE handle = ${handle}
      UNION SELECT creator_id FROM connections WHERE provider = ${provider} AND provider_user_id = ${accountId}`;
    return rows.map((row: Raw) => row.id as string);
  }

  async writeTrust(id: string, t: TrustFields): Promise<void> {
    await this.sql`
      UPDATE creators SET trust_score = ${t.trust_score}, trust_band = ${t.trust_band}, blacklisted = ${t.blacklisted === 1},
        trust_computed_at = ${t.trust_computed_at}, linked_accounts = ${t.linked_accounts},
        verified_connections = ${t.verified_connections}, vouch_count = ${t.vouch_count}, deal_count = ${t.deal_count},
        review_count = ${t.review_count}, review_sum = ${t.review_sum}, search_text = ${t.search_text}, platforms = ${t.platforms}
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

  async creatorsInOrder(order: CreatorOrder, limit: number, offset: number): Promise<CreatorRow[]> {
    const sql = this.sql;
    const rows =
      order === "newest"
        ? await sql`SELECT * FROM creators ORDER BY created_at DESC, id LIMIT ${limit} OFFSET ${offset}`
        : order === "trust"
          ? await sql`SELECT * FROM creators ORDER BY trust_score DESC, id LIMIT ${limit} OFFSET ${offset}`
          : order === "vouches"
            ? await sql`SELECT * FROM creators ORDER BY vouch_count DESC, id LIMIT ${limit} OFFSET ${offset}`
            : await sql`SELECT * FROM creators ORDER BY deal_count DESC, id LIMIT ${limit} OFFSET ${offset}`;
    return rows.map(creatorRow);
  }

  async scanCreators(scan: CreatorScan, order: CreatorOrder, limit: number, offset: number): Promise<{ total: number; rows: CreatorRow[] }> {
    const sql = this.sql;
    const where = sql`
      (${scan.text}::text IS NULL OR strpos(search_text, ${scan.text}::text) > 0)
      AND (${scan.words}::text[] IS NULL OR NOT EXISTS (SELECT 1 FROM unnest(${scan.words}::text[]) w WHERE strpos(search_text, w) = 0))
      AND (${scan.handlePrefix}::text IS NULL OR handle LIKE ${scan.handlePrefix === null ? null : startsWith(scan.handlePrefix)}::text)
      AND (${scan.platform}::text IS NULL OR strpos(',' || platforms || ',', ',' || ${scan.platform}::text || ',') > 0)`;
    const [{ n: total }] = await sql`SELECT count(*)::int AS n FROM creators WHERE ${where}`;
    if (offset >= total) return { total, rows: [] };
    const rows =
      order === "newest"
        ? await sql`SELECT * FROM creators WHERE ${where} ORDER BY created_at DESC, id LIMIT ${limit} OFFSET ${offset}`
        : order === "trust"
          ? await sql`SELECT * FROM creators WHERE ${where} ORDER BY trust_score DESC, id LIMIT ${limit} OFFSET ${offset}`
          : order === "vouches"
            ? await sql`SELECT * FROM creators WHERE ${where} ORDER BY vouch_count DESC, id LIMIT ${limit} OFFSET ${offset}`
            : await sql`SELECT * FROM creators WHERE ${where} ORDER BY deal_count DESC, id LIMIT ${limit} OFFSET ${offset}`;
    return { total, rows: rows.map(creatorRow) };
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
      SELECT seq, id, search_text, created_at, trust_score, vouch_count, deal_count, platforms
      FROM creators WHERE seq > ${rowid} ORDER BY seq LIMIT ${limit}`;
    return rows.map(indexRow);
  }

  async indexRowsByIds(ids: string[]): Promise<DirectoryIndexRow[]> {
    if (ids.length === 0) return [];
    const rows = await this.sql`
      SELECT seq, id, search_text, created_at, trust_score, vouch_count, deal_count, platforms
      FROM creators WHERE id = ANY(${ids}::text[])`;
    return rows.map(indexRow);
  }

  /** LIKE on the handle's text_pattern_ops index: a prefix range whatever the database's collation. */
  async rowidsByHandlePrefix(prefix: string): Promise<number[]> {
    const rows = await this.sql`SELECT seq FROM creators WHERE handle LIKE ${startsWith(prefix)}`;
    return rows.map((row: Raw) => Number(row.seq));
  }

  async creatorsByRowids(rowids: number[]): Promise<CreatorRow[]> {
    if (rowids.length === 0) return [];
    const rows = await this.sql`SELECT * FROM creators WHERE seq = ANY(${rowids}::bigint[])`;
    return rows.map(creatorRow);
  }

  async publicConnectionsByUsername(lowerUsername: string, limit: number): Promise<ConnectionRow[]> {
    const rows = await this.sql`
      SELECT * FROM connections WHERE lower(provider_username) = ${lowerUsername} AND public ORDER BY id LIMIT ${limit}`;
    return rows.map(connectionRow);
  }
}
