// The courses module's table, `course_completions` (a creator's best score per course and when
// they first passed it), on SQLite or PostgreSQL: the only place its SQL lives. Recording an
// attempt is one upsert that keeps the higher score and the first pass, so two submissions at
// once cannot lower a score or unpass a course.
import type { Database } from "../../db/database";
import type { PostgresDatabase } from "../../db/postgres";

export interface CompletionRow {
  slug: string;
  bestScore: number;
  attempts: number;
  passedAt: number | null;
  updatedAt: number;
}

export interface CoursesStore {
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  completionsOf(creatorId: string): Promise<CompletionRow[]>;
  /** Records one graded attempt; `passedAt` is the time of a pass, else null. Answers the row after it. */
  recordAttempt(creatorId: string, slug: string, score: number, passedAt: number | null, now: number): Promise<CompletionRow>;
}

export function createCoursesStore(database: Database): CoursesStore {
  return database.dialect === "sqlite" ? new SqliteCoursesStore(database) : new PostgresCoursesStore(database);
}

type SqliteStore = Extract<Database, { dialect: "sqlite" }>;

// biome-ignore lint/suspicious/noExplicitAny: driver rows are untyped
function completionRow(r: any): CompletionRow {
  return {
    slug: r.slug,
    bestScore: Number(r.best_score),
    attempts: Number(r.attempts),
    passedAt: r.passed_at === null ? null : Number(r.passed_at),
    updatedAt: Number(r.updated_at),
  };
}

const COLUMNS = "slug, best_score, attempts, passed_at, updated_at";

class SqliteCoursesStore implements CoursesStore {
  private readonly statements;

  constructor(private readonly store: SqliteStore) {
    const db = store.sqlite;
    this.statements = {
      completionsOf: db.prepare<unknown, [string]>(`SELECT ${COLUMNS} FROM course_completions WHERE creator_id = ? ORDER BY slug`),
      record: db.prepare<unknown, [string, string, number, number | null, number]>(
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
    return this.statements.completionsOf.all(creatorId).map(completionRow);
  }

  async recordAttempt(creatorId: string, slug: string, score: number, passedAt: number | null, now: number): Promise<CompletionRow> {
    return completionRow(this.statements.record.get(creatorId, slug, score, passedAt, now));
  }
}

class PostgresCoursesStore implements CoursesStore {
  constructor(private readonly database: PostgresDatabase) {}

  private get sql() {
    return this.database.sql();
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.database.write(fn);
  }

  async completionsOf(creatorId: string): Promise<CompletionRow[]> {
    const rows = await this.sql`SELECT slug, best_score, attempts, passed_at, updated_at FROM course_completions WHERE creator_id = ${creatorId} ORDER BY slug`;
    return rows.map(completionRow);
  }

  async recordAttempt(creatorId: string, slug: string, score: number, passedAt: number | null, now: number): Promise<CompletionRow> {
    const [row] = await this.sql`
      INSERT INTO course_completions (creator_id, slug, best_score, attempts, passed_at, updated_at)
      VALUES (${creatorId}, ${slug}, ${score}, 1, ${passedAt}, ${now})
      ON CONFLICT (creator_id, slug) DO UPDATE SET best_score = GREATEST(course_completions.best_score, excluded.best_score),
        attempts = course_completions.attempts + 1, passed_at = coalesce(course_completions.passed_at, excluded.passed_at),
        updated_at = excluded.updated_at
      RETURNING slug, best_score, attempts, passed_at, updated_at`;
    return completionRow(row);
  }
}
