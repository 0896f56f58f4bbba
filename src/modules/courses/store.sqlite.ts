// The courses table on SQLite (the contract: store.ts).
import type { Store } from "../../db/client";
import { columnsOf } from "../../db/rows";
import type { CompletionRow, CoursesStore } from "./store";
import { courseCompletions } from "./tables";

const COLUMNS = columnsOf(courseCompletions, ["slug", "bestScore", "attempts", "passedAt", "updatedAt"]);

export class SqliteCoursesStore implements CoursesStore {
  private readonly statements;

  constructor(private readonly store: Store) {
    const db = store.sqlite;
    this.statements = {
      completionsOf: db.prepare<CompletionRow, [string]>(`SELECT ${COLUMNS} FROM course_completions WHERE creator_id = ? ORDER BY slug`),
      record: db.prepare<CompletionRow, [string, string, number, number | null, number]>(
        `INSERT INTO course_completions (creator_id, slug, best_score, attempts, passed_at, updated_at) VALUES (?1, ?2, ?3, 1, ?4, ?5)
         ON CONFLICT (creator_id, slug) DO UPDATE SET best_score = max(best_score, excluded.best_score), attempts = attempts + 1,
           passed_at = coalesce(passed_at, excluded.passed_at), updated_at = excluded.updated_at
         RETURNING ${COLUMNS}`,
      ),
    };
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.store.write(fn);
  }

  async completionsOf(creatorId: string): Promise<CompletionRow[]> {
    return this.statements.completionsOf.all(creatorId);
  }

  async recordAttempt(creatorId: string, slug: string, score: number, passedAt: number | null, now: number): Promise<CompletionRow> {
    return this.statements.record.get(creatorId, slug, score, passedAt, now)!;
  }
}
