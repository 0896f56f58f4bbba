// The suggestion pool on PostgreSQL (the contract: store.ts): pg_trgm's GIN index answers.
import type { Database } from "../../db/database";
import type { SearchNamesStore } from "./store";
import { trigrams } from "./trigrams";

export class PostgresSearchNamesStore implements SearchNamesStore {
  constructor(private readonly database: Extract<Database, { dialect: "postgres" }>) {}

  /**
   * The GIN index answers `%` (pg_trgm similarity at or over pg_trgm.similarity_threshold, 0.3 by
   * default); pg_trgm pads words with blanks, so its similarity is close to, not the same as, ours:
   * the distance orders candidates and the caller scores them exactly.
   */
  async candidates(lower: string, { limit }: { minSimilarity: number; limit: number }): Promise<string[]> {
    // PostgreSQL's text holds no NUL, so no name does, and the query could not be sent.
    if (trigrams(lower).size === 0 || lower.includes("\0")) return [];
    const rows = await this.database.sql()`
      SELECT name FROM search_names WHERE suggestible AND name % ${lower} ORDER BY name <-> ${lower}, name LIMIT ${limit}`;
    return rows.map((row: { name: string }) => row.name);
  }

  async refreshStatistics(): Promise<number> {
    return 0;
  }
}
