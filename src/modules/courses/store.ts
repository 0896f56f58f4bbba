// The courses module's table, `course_completions` (a creator's best score per course and when
// they first passed it): the contract every database implements, and the factory that picks one.
// Its SQL lives in store.sqlite.ts and store.postgres.ts only. Recording an attempt is one upsert
// that keeps the higher score and the first pass, so two submissions at once cannot lower a score
// or unpass a course.
import type { Database } from "../../db/database";
import type { RowOf } from "../../db/rows";
import { PostgresCoursesStore } from "./store.postgres";
import { SqliteCoursesStore } from "./store.sqlite";
import type { courseCompletions } from "./tables";

/** One course's progress, as its owner's reads need it. */
export type CompletionRow = RowOf<typeof courseCompletions, "slug" | "bestScore" | "attempts" | "passedAt" | "updatedAt">;

export interface CoursesStore {
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  completionsOf(creatorId: string): Promise<CompletionRow[]>;
  /** Records one graded attempt; `passedAt` is the time of a pass, else null. Answers the row after it. */
  recordAttempt(creatorId: string, slug: string, score: number, passedAt: number | null, now: number): Promise<CompletionRow>;
}

export function createCoursesStore(database: Database): CoursesStore {
  return database.dialect === "sqlite" ? new SqliteCoursesStore(database) : new PostgresCoursesStore(database);
}
