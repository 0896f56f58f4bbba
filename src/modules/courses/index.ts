// Course controllers (docs/api.md): keyless reads that a session adds the viewer's progress
// to, and the submission, which takes a session (401 without one comes before the 410 of a
// server that does not grade).
import { Elysia } from "elysia";
import type { SessionLookup } from "../../http/session-cookie";
import { limitByIp, optionalSession, requireSession } from "../../http/guards";
import { PUBLIC_IP_RULE } from "../../http/limits";
import { errors } from "../../http/model";
import type { Runtime } from "../../runtime";
import { CourseDetail, CourseGrade, CourseList, CourseParams, SubmitBody } from "./model";
import type { CoursesService } from "./service";

export function courseRoutes(runtime: Runtime, courses: CoursesService, sessions: SessionLookup) {
  const reads = new Elysia({ prefix: "/v1/courses", tags: ["Courses"] })
    .use(limitByIp(runtime, "public", PUBLIC_IP_RULE))
    .use(optionalSession(runtime, sessions))
    .get("", ({ viewer }) => courses.list(viewer), {
      response: { 200: CourseList, ...errors(429) },
      detail: {
        security: [],
        operationId: "listCourses",
        summary: "Courses",
        description: "Every course. Signed out, each is `locked` and the buff counts are 0; a session adds your best scores and passes.",
      },
    })
    .get("/:slug", ({ params, viewer }) => courses.detail(params.slug, viewer), {
      params: CourseParams,
      response: { 200: CourseDetail, ...errors(404, 429) },
      detail: {
        security: [],
        operationId: "getCourse",
        summary: "A course's questions",
        description: "Options are shuffled on every read; each keeps its original index as `key`, which is what a submission sends. Answers and explanations are never included.",
      },
    });
  const submissions = new Elysia({ prefix: "/v1/courses", tags: ["Courses"] })
    .use(requireSession(runtime, sessions, PUBLIC_IP_RULE))
    .post("/:slug/submit", ({ params, body, viewer }) => courses.submit(params.slug, viewer, body), {
      params: CourseParams,
      body: SubmitBody,
      parse: "json",
      response: { 200: CourseGrade, ...errors(400, 401, 404, 410, 422, 429) },
      detail: {
        security: [{ session: [] }],
        operationId: "submitCourse",
        summary: "Submit a course's answers",
        description:
          "Needs a session (401 without one, also when an API key is sent). Answers 410 `gone` unless the server runs with `--course-submissions`; then it grades: the best score is kept, a pass is kept, and the Trust Score is recomputed with the course buff.",
      },
    });
  return new Elysia({ name: "courses" }).use(reads).use(submissions);
}
