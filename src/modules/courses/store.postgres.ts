// The courses table on PostgreSQL (the contract: store.ts).
import type { PostgresDatabase } from "../../db/postgres";
import { columnsOf, rowReader } from "../../db/rows";
import type { CompletionRow, CoursesStore } from "./store";
import { courseCompletions } from "./tables";

const FIELDS = ["slug", "bestScore", "attempts", "passedAt", "updatedAt"] as const;
const COLUMNS = columnsOf(courseCompletions, FIELDS);
const readCompletion = rowReader(courseCompletions, FIELDS);

export class PostgresCoursesStore implements CoursesStore {
  constructor(private readonly database: PostgresDatabase) {}

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.database.write(fn);
  }

  async completionsOf(creatorId: string): Promise<CompletionRow[]> {
    const rows = await this.database.sql().unsafe(`SELECT ${COLUMNS} FROM course_completions WHERE creator_id = $1 ORDER BY slug`, [creatorId]);
    return rows.map(readCompletion);
  }

  async recordAttempt(creatorId: string, slug: string, score: number, passedAt: number | null, now: number): Promise<CompletionRow> {
    const [row] = await this.database.sql().unsafe(
      `INSERT INTO course_completions (creator_id, slug, best_score, attempts, passed_at, updated_at)
       VALUES ($1, $2, $3, 1, $4, $5)
       ON CONFLICT (creator_id, slug) DO UPDATE SET best_score = GREATEST(course_completions.best_score, excluded.best_score),
         attempts = course_completions.attempts + 1, passed_at = coalesce(course_completions.passed_at, excluded.passed_at),
         updated_at = excluded.updated_at
       RETURNING ${COLUMNS}`,
      [creatorId, slug, score, passedAt, now],
    );
    return readCompletion(row);
  }
}
