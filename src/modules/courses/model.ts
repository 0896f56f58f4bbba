// Schemas of the course routes (docs/api.md): summaries, the detail a reader sees (options
// shuffled, no answers), the submission and its grade.
import { t } from "elysia";
import { JsonInteger, DateTime, literals } from "../../http/model";

export const COURSE_STATUSES = ["locked", "available", "passed"] as const;

const CourseStatus = literals(COURSE_STATUSES, {
  description: "locked when signed out; available until the viewer passes; passed once they have (a pass is kept).",
  examples: ["available"],
});

const CourseFields = {
  slug: t.String({ description: "The course's id in paths.", examples: ["scam-safety"] }),
  title: t.String({ examples: ["Spotting scams before they cost you"] }),
  description: t.Nullable(t.String({ examples: ["The patterns behind most scams aimed at game creators."] })),
  platform_tag: t.Nullable(t.String({ description: "The platform the course is about; null for all.", examples: ["roblox"] })),
  difficulty: t.Nullable(t.String({ examples: ["beginner"] })),
  pass_threshold: JsonInteger({ minimum: 0, maximum: 100, description: "Percentage of right answers needed to pass.", examples: [80] }),
  question_count: JsonInteger({ examples: [6] }),
  points: JsonInteger({ description: "Trust points a pass adds (within the buff's ceiling).", examples: [5] }),
};

export const CourseSummary = t.Object(
  {
    ...CourseFields,
    status: CourseStatus,
    score: t.Nullable(JsonInteger({ minimum: 0, maximum: 100, description: "The viewer's best score (percent); null when signed out or not attempted.", examples: [83] })),
    completed_at: t.Nullable(DateTime("When the viewer first passed; null otherwise.")),
  },
  { $id: "CourseSummary", description: "A course as the listing shows it to the viewer." },
);

export const TrustBuff = t.Object(
  {
    per_course: JsonInteger({ description: "Trust points per passed course.", examples: [5] }),
    max_points: JsonInteger({ description: "Most points courses can add in all.", examples: [15] }),
    passed_count: JsonInteger({ description: "Courses the viewer passed.", examples: [1] }),
    earned_points: JsonInteger({ description: "Points the viewer's passes add now: per_course × passed_count, at most max_points.", examples: [5] }),
  },
  { $id: "TrustBuff", description: "The course buff of the Trust Score." },
);

export const CourseList = t.Object(
  {
    courses: t.Array(CourseSummary),
    trust: t.Object(
      {
        signed_in: t.Boolean({ description: "False: every course is locked and the counts are 0.", examples: [true] }),
        per_course: JsonInteger({ examples: [5] }),
        max_points: JsonInteger({ examples: [15] }),
        passed_count: JsonInteger({ examples: [1] }),
        earned_points: JsonInteger({ examples: [5] }),
      },
      { description: "The viewer's course buff." },
    ),
  },
  { $id: "CourseList", description: "Every course with the viewer's progress." },
);

export const CourseParams = t.Object({ slug: t.String({ maxLength: 64, description: "Course slug.", examples: ["scam-safety"] }) });

export const CourseDetail = t.Object(
  {
    ...CourseFields,
    questions: t.Array(
      t.Object({
        id: t.String({ description: "Question id, sent back with the answer.", examples: ["scam-safety-1"] }),
        position: JsonInteger({ description: "1-based order in the course.", examples: [1] }),
        question: t.String({ examples: ["Which of these is the strongest warning sign…?"] }),
        options: t.Array(
          t.Object({
            key: JsonInteger({ description: "The option's original index: send it as `answer_index`.", examples: [2] }),
            text: t.String({ examples: ["Decline: unknown executables are a common way to steal sessions"] }),
          }),
          { description: "Shuffled on every read; `key` stays the same." },
        ),
      }),
    ),
    completion: t.Nullable(
      t.Object(
        {
          passed: t.Boolean({ examples: [true] }),
          score: JsonInteger({ description: "Best score, percent.", examples: [83] }),
          completed_at: DateTime("When the viewer first passed, else when they last tried."),
        },
        { description: "The viewer's progress; null when signed out or not attempted." },
      ),
    ),
  },
  { $id: "CourseDetail", description: "A course's questions. Option order is shuffled on every read; answers and explanations are never included." },
);

export const SubmitBody = t.Object(
  {
    answers: t.Array(
      t.Object(
        {
          question_id: t.String({ minLength: 1, maxLength: 64, examples: ["scam-safety-1"] }),
          answer_index: JsonInteger({ minimum: 0, maximum: 31, description: "The chosen option's `key` (its original index).", examples: [1] }),
        },
        { additionalProperties: t.Never() },
      ),
      { maxItems: 100, description: "One answer per question; a question left out counts as wrong." },
    ),
  },
  { $id: "CourseSubmission", additionalProperties: t.Never() },
);

export const CourseGrade = t.Object(
  {
    passed: t.Boolean({ description: "This attempt reached pass_threshold.", examples: [true] }),
    score: JsonInteger({ description: "This attempt's score, percent.", examples: [83] }),
    correct_count: JsonInteger({ examples: [5] }),
    total: JsonInteger({ examples: [6] }),
    pass_threshold: JsonInteger({ examples: [80] }),
    results: t.Array(
      t.Object({
        question_id: t.String({ examples: ["scam-safety-1"] }),
        correct: t.Boolean({ examples: [false] }),
        answer_index: t.Nullable(JsonInteger({ description: "What was sent; null when left out.", examples: [0] })),
        correct_index: JsonInteger({ description: "The right option's key.", examples: [1] }),
        explanation: t.String({ examples: ["Urgency plus an unusually high offer is a classic lure."] }),
      }),
      { description: "One per question, in course order, with the right answer and why." },
    ),
    trust_buff: t.Object(
      {
        applied: t.Boolean({ description: "The course counts toward the buff: passed now or before (a pass is kept).", examples: [true] }),
        per_course: JsonInteger({ examples: [5] }),
        max_points: JsonInteger({ examples: [15] }),
        passed_count: JsonInteger({ examples: [1] }),
        earned_points: JsonInteger({ examples: [5] }),
      },
      { description: "The viewer's course buff after this attempt; the Trust Score was recomputed with it." },
    ),
  },
  { $id: "CourseGrade", description: "The grade of one submission." },
);
