// Creator-education courses: the catalog ships in the binary (catalog.ts), the
// viewer's progress is stored (store.ts). Readers get options shuffled on every read, keyed by
// their original index, and never an answer or explanation. Submissions answer 410 unless the
// server runs with `--course-submissions`; then a grade keeps the best score, keeps a pass, and
// hands the number of passed courses to the creators module, which recomputes the Trust Score.
import { type Clock, iso } from "../../clock";
import type { Database } from "../../db/database";
import { gone, notFound, unprocessable } from "../../errors";
import type { CreatorsService } from "../creators/service";
import { COURSE_POINTS } from "../creators/trust";
import type { Viewer } from "../sessions/service";
import { type Course, COURSES, COURSES_BY_SLUG } from "./catalog";
import type * as Model from "./model";
import { type CompletionRow, type CoursesStore, createCoursesStore } from "./store";

export type CourseSummary = typeof Model.CourseSummary.static;
export type CourseList = typeof Model.CourseList.static;
export type CourseDetail = typeof Model.CourseDetail.static;
export type CourseGrade = typeof Model.CourseGrade.static;
export type Submission = typeof Model.SubmitBody.static;

/** Fisher-Yates with a fresh random draw per read. */
function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  const draws = crypto.getRandomValues(new Uint32Array(out.length));
  for (let i = out.length - 1; i > 0; i--) {
    const j = draws[i]! % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function buff(passedCount: number) {
  return {
    per_course: COURSE_POINTS.perCourse,
    max_points: COURSE_POINTS.maxPoints,
    passed_count: passedCount,
    earned_points: Math.min(COURSE_POINTS.perCourse * passedCount, COURSE_POINTS.maxPoints),
  };
}

/** Passes of courses this build ships (a course a later build drops stops counting). */
function passedCount(completions: CompletionRow[]): number {
  return completions.filter((c) => c.passedAt !== null && COURSES_BY_SLUG.has(c.slug)).length;
}

function courseFields(course: Course) {
  return {
    slug: course.slug,
    title: course.title,
    description: course.description,
    platform_tag: course.platform_tag,
    difficulty: course.difficulty,
    pass_threshold: course.pass_threshold,
    question_count: course.questions.length,
    points: COURSE_POINTS.perCourse,
  };
}

export class CoursesService {
  private readonly store: CoursesStore;

  constructor(
    database: Database,
    private readonly clock: Clock,
    private readonly creators: CreatorsService,
    /** `--course-submissions`: off by default, so no one farms Trust Score points by retrying quizzes. */
    private readonly submissionsEnabled: boolean,
  ) {
    this.store = createCoursesStore(database);
  }

  async list(viewer: Viewer | null): Promise<CourseList> {
    const completions = viewer ? await this.store.completionsOf(viewer.creatorId) : [];
    const bySlug = new Map(completions.map((c) => [c.slug, c]));
    return {
      courses: COURSES.map((course) => {
        const done = bySlug.get(course.slug);
        return {
          ...courseFields(course),
          status: !viewer ? "locked" : done?.passedAt != null ? "passed" : "available",
          score: done ? done.bestScore : null,
          completed_at: iso(done?.passedAt ?? null),
        };
      }),
      trust: { signed_in: viewer !== null, ...buff(passedCount(completions)) },
    };
  }

  async detail(slug: string, viewer: Viewer | null): Promise<CourseDetail> {
    const course = requireCourse(slug);
    const done = viewer ? (await this.store.completionsOf(viewer.creatorId)).find((c) => c.slug === course.slug) : undefined;
    return {
      ...courseFields(course),
      questions: course.questions.map((q, index) => ({
        id: q.id,
        position: index + 1,
        question: q.question,
        options: shuffled(q.options.map((text, key) => ({ key, text }))),
      })),
      completion: done ? { passed: done.passedAt !== null, score: done.bestScore, completed_at: iso(done.passedAt ?? done.updatedAt) } : null,
    };
  }

  /** Grades a submission (the route has already required a session). */
  async submit(slug: string, viewer: Viewer, submission: Submission): Promise<CourseGrade> {
    if (!this.submissionsEnabled) {
      throw gone("Course submissions are temporarily unavailable: they are disabled to prevent Trust Score farming.");
    }
    const course = requireCourse(slug);
    const answers = new Map<string, number>();
    for (const { question_id, answer_index } of submission.answers) {
      const question = course.questions.find((q) => q.id === question_id);
      if (!question) throw unprocessable(`'${question_id.slice(0, 64)}' is not a question of ${course.slug}.`);
      if (answers.has(question_id)) throw unprocessable(`Question '${question_id}' is answered twice.`);
      if (answer_index >= question.options.length) throw unprocessable(`Question '${question_id}' has no option ${answer_index}.`);
      answers.set(question_id, answer_index);
    }
    const results = course.questions.map((q) => {
      const given = answers.get(q.id) ?? null;
      return { question_id: q.id, correct: given === q.answer, answer_index: given, correct_index: q.answer, explanation: q.explanation };
    });
    const correctCount = results.filter((r) => r.correct).length;
    const score = Math.round((100 * correctCount) / course.questions.length);
    const passed = score >= course.pass_threshold;
    const now = this.clock.now();
    const { row, count } = await this.store.transaction(async () => {
      const row = await this.store.recordAttempt(viewer.creatorId, course.slug, score, passed ? now : null, now);
      const count = passedCount(await this.store.completionsOf(viewer.creatorId));
      // A failed attempt never changes the buff (a pass is kept); a pass hands the count over.
      if (passed) await this.creators.setCoursesPassed(viewer.creatorId, count);
      return { row, count };
    });
    return {
      passed,
      score,
      correct_count: correctCount,
      total: course.questions.length,
      pass_threshold: course.pass_threshold,
      results,
      trust_buff: { applied: row.passedAt !== null, ...buff(count) },
    };
  }
}

function requireCourse(slug: string): Course {
  const course = COURSES_BY_SLUG.get(slug);
  if (!course) throw notFound(`No course '${slug.slice(0, 64)}'.`);
  return course;
}
