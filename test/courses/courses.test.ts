// Courses as a reader and a signed-in creator meet them: keyless listing and detail (locked when
// signed out), options shuffled on every read with stable keys and nothing that gives the answer
// away, 401 before 410 on submissions by default, and, with --course-submissions, the grade:
// best score kept, a pass kept, the course buff in the Trust Score.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { COURSES } from "../../src/modules/courses/catalog";
import { createTestApp, expectEnvelope, partnerWriter, type TestApp } from "../helpers";

/** Signs `handle` in on `app` through a partner's login link; answers the cookie header. */
async function signIn(app: TestApp, handle: string): Promise<string> {
  const { key } = await app.account({ scope: "write" });
  const link = await app.json("POST", "/v1/partner/login-links", { key, body: { handle } });
  const url = new URL(link.body.url);
  const res = await app.call("GET", url.pathname + url.search);
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

async function withCreators(app: TestApp, ...handles: string[]) {
  const write = await partnerWriter(app);
  for (const handle of handles) await write("PUT", `/v1/partner/creators/${handle}`, {});
}

/** Right answers for every question of a course, or wrong ones for the first `wrong`. */
function answers(slug: string, wrong = 0) {
  const course = COURSES.find((c) => c.slug === slug)!;
  return course.questions.map((q, i) => ({ question_id: q.id, answer_index: i < wrong ? (q.answer + 1) % q.options.length : q.answer }));
}

describe("the catalog", () => {
  test("ships at least three courses of five or more questions, each answer a valid option", () => {
    expect(COURSES.length).toBeGreaterThanOrEqual(3);
    expect(COURSES.map((c) => c.slug)).toEqual(expect.arrayContaining(["scam-safety", "safe-trading", "account-security"]));
    const ids = new Set<string>();
    for (const course of COURSES) {
      expect(course.questions.length).toBeGreaterThanOrEqual(5);
      for (const q of course.questions) {
        expect(ids.has(q.id)).toBe(false);
        ids.add(q.id);
        expect(q.answer).toBeGreaterThanOrEqual(0);
        expect(q.answer).toBeLessThan(q.options.length);
        expect(new Set(q.options).size).toBe(q.options.length);
      }
    }
  });
});

describe("reading courses (submissions off, the default)", () => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await createTestApp();
    await withCreators(t, "alicemakes");
    cookie = await signIn(t, "alicemakes");
  });
  afterAll(() => t.close());

  test("signed out, every course is locked and the buff is zero; CORS is open", async () => {
    const res = await t.json("GET", "/v1/courses");
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.body.courses).toHaveLength(COURSES.length);
    for (const course of res.body.courses) {
      expect(course).toMatchObject({ status: "locked", score: null, completed_at: null, points: 5, pass_threshold: 80 });
      expect(Object.keys(course).sort()).toEqual(
        ["completed_at", "description", "difficulty", "pass_threshold", "platform_tag", "points", "question_count", "score", "slug", "status", "title"].sort(),
      );
    }
    expect(res.body.trust).toEqual({ signed_in: false, per_course: 5, max_points: 15, passed_count: 0, earned_points: 0 });
  });

  test("signed in, courses are available", async () => {
    const res = await t.json("GET", "/v1/courses", { headers: { cookie } });
    expect(res.body.courses.every((c: any) => c.status === "available")).toBe(true);
    expect(res.body.trust.signed_in).toBe(true);
  });

  test("detail: options shuffle between reads, each keeps its original index as key, nothing leaks the answer", async () => {
    const course = COURSES[0]!;
    const orders = new Set<string>();
    for (let read = 0; read < 20; read++) {
      const res = await t.json("GET", `/v1/courses/${course.slug}`);
      expect(res.status).toBe(200);
      expect(res.body.completion).toBeNull();
      expect(res.body.question_count).toBe(course.questions.length);
      res.body.questions.forEach((q: any, index: number) => {
        const source = course.questions[index]!;
        expect(q.id).toBe(source.id);
        expect(q.position).toBe(index + 1);
        expect(Object.keys(q).sort()).toEqual(["id", "options", "position", "question"]);
        // The same set of options, each text under its original index.
        expect(q.options.map((o: any) => o.key).sort()).toEqual(source.options.map((_, i) => i));
        for (const option of q.options) {
          expect(Object.keys(option).sort()).toEqual(["key", "text"]);
          expect(option.text).toBe(source.options[option.key]);
        }
      });
      orders.add(JSON.stringify(res.body.questions.map((q: any) => q.options.map((o: any) => o.key))));
      const text = JSON.stringify(res.body);
      for (const q of course.questions) expect(text).not.toContain(q.explanation);
      expect(text).not.toMatch(/"(answer|correct|correct_index|explanation)"/);
    }
    expect(orders.size).toBeGreaterThan(1);
  });

  test("an unknown course is 404", async () => {
    expectEnvelope(await t.json("GET", "/v1/courses/no-such-course"), 404, "not_found");
  });

  test("submitting: 401 without a session (even with a key or a bad body), then 410 gone", async () => {
    const body = { answers: answers("scam-safety") };
    expectEnvelope(await t.json("POST", "/v1/courses/scam-safety/submit", { body }), 401, "unauthorized");
    const { key } = await t.account({ scope: "admin" });
    expectEnvelope(await t.json("POST", "/v1/courses/scam-safety/submit", { key, body }), 401, "unauthorized");
    expectEnvelope(await t.json("POST", "/v1/courses/scam-safety/submit", { body: "{not json" }), 401, "unauthorized");
    expectEnvelope(await t.json("POST", "/v1/courses/scam-safety/submit", { body, headers: { cookie } }), 410, "gone");
    // Nothing was recorded.
    const listed = await t.json("GET", "/v1/courses", { headers: { cookie } });
    expect(listed.body.courses.every((c: any) => c.score === null)).toBe(true);
  });
});

describe("grading (--course-submissions)", () => {
  let t: TestApp;
  let cookie: string;
  const score = async (handle: string) => (await t.json("GET", `/v1/public/trust/${handle}`, { headers: { cookie } })).body.trust_score;
  beforeAll(async () => {
    t = await createTestApp({ config: { courseSubmissions: true } });
    await withCreators(t, "alicemakes", "shadowbuilds");
    cookie = await signIn(t, "alicemakes");
  });
  afterAll(() => t.close());

  const submit = (slug: string, body: unknown, headers: Record<string, string> = { cookie }) =>
    t.json("POST", `/v1/courses/${slug}/submit`, { body, headers });

  test("a failing attempt is graded with the answers and explanations, and changes no score", async () => {
    const before = await score("alicemakes");
    const res = await submit("scam-safety", { answers: answers("scam-safety", 3) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ passed: false, score: 50, correct_count: 3, total: 6, pass_threshold: 80 });
    expect(res.body.results).toHaveLength(6);
    expect(res.body.results[0]).toMatchObject({ question_id: "scam-safety-1", correct: false, correct_index: 1 });
    expect(res.body.results[0].explanation).toBe(COURSES[0]!.questions[0]!.explanation);
    expect(res.body.trust_buff).toEqual({ applied: false, per_course: 5, max_points: 15, passed_count: 0, earned_points: 0 });
    expect(await score("alicemakes")).toBe(before);
  });

  test("a pass applies the buff and recomputes the Trust Score; a worse later attempt keeps the best score and the pass", async () => {
    const before = await score("alicemakes");
    const passed = await submit("scam-safety", { answers: answers("scam-safety", 1) });
    expect(passed.body).toMatchObject({ passed: true, score: 83 });
    expect(passed.body.trust_buff).toEqual({ applied: true, per_course: 5, max_points: 15, passed_count: 1, earned_points: 5 });
    expect(await score("alicemakes")).toBe(before + 5);

    const worse = await submit("scam-safety", { answers: answers("scam-safety", 4) });
    expect(worse.body).toMatchObject({ passed: false, score: 33 });
    expect(worse.body.trust_buff).toMatchObject({ applied: true, passed_count: 1 });
    expect(await score("alicemakes")).toBe(before + 5);

    const listed = await t.json("GET", "/v1/courses", { headers: { cookie } });
    const course = listed.body.courses.find((c: any) => c.slug === "scam-safety");
    expect(course).toMatchObject({ status: "passed", score: 83 });
    expect(course.completed_at).toBe(new Date(t.clock.now()).toISOString());
    const detail = await t.json("GET", "/v1/courses/scam-safety", { headers: { cookie } });
    expect(detail.body.completion).toMatchObject({ passed: true, score: 83 });

    const better = await submit("scam-safety", { answers: answers("scam-safety") });
    expect(better.body.score).toBe(100);
    expect((await t.json("GET", "/v1/courses", { headers: { cookie } })).body.courses.find((c: any) => c.slug === "scam-safety").score).toBe(100);
    expect(await score("alicemakes")).toBe(before + 5);
  });

  test("the buff is capped at max_points; questions left out count as wrong", async () => {
    const base = await score("alicemakes");
    await submit("safe-trading", { answers: answers("safe-trading") });
    const third = await submit("account-security", { answers: answers("account-security") });
    expect(third.body.trust_buff).toEqual({ applied: true, per_course: 5, max_points: 15, passed_count: 3, earned_points: 15 });
    expect(await score("alicemakes")).toBe(base + 10);
    const partial = await submit("account-security", { answers: answers("account-security").slice(0, 2) });
    expect(partial.body).toMatchObject({ passed: false, correct_count: 2 });
    expect(partial.body.results[5]).toMatchObject({ answer_index: null, correct: false });
  });

  test("another creator's progress is their own", async () => {
    const other = await signIn(t, "shadowbuilds");
    const listed = await t.json("GET", "/v1/courses", { headers: { cookie: other } });
    expect(listed.body.courses.every((c: any) => c.status === "available" && c.score === null)).toBe(true);
    expect(listed.body.trust).toMatchObject({ signed_in: true, passed_count: 0, earned_points: 0 });
  });

  test("hostile and malformed submissions: 404, 422, 401", async () => {
    expectEnvelope(await submit("no-such-course", { answers: [] }), 404, "not_found");
    expectEnvelope(await submit("scam-safety", { answers: [{ question_id: "safe-trading-1", answer_index: 0 }] }), 422, "unprocessable");
    expectEnvelope(await submit("scam-safety", { answers: [{ question_id: "scam-safety-1", answer_index: 9 }] }), 422, "unprocessable");
    expectEnvelope(await submit("scam-safety", { answers: [{ question_id: "scam-safety-1", answer_index: 0 }, { question_id: "scam-safety-1", answer_index: 1 }] }), 422, "unprocessable");
    expectEnvelope(await submit("scam-safety", { answers: [{ question_id: "scam-safety-1", answer_index: "1" }] }), 422, "unprocessable");
    expectEnvelope(await submit("scam-safety", { answers: [], extra: true }), 422, "unprocessable");
    expectEnvelope(await submit("scam-safety", { answers: answers("scam-safety") }, { cookie: "session=forged" }), 401, "unauthorized");
  });
});
