// The courses store and service on whichever backend the suite runs on (test/backend.ts): the
// best score kept and a pass kept by one upsert, concurrent submissions, and the course buff
// reaching the creator's Trust Score through the creators module.
import { beforeEach, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock";
import { CursorCodec } from "../../src/cursor";
import { BlacklistService } from "../../src/modules/blacklist/service";
import { COURSES } from "../../src/modules/courses/catalog";
import { CoursesService } from "../../src/modules/courses/service";
import { CreatorsService } from "../../src/modules/creators/service";
import type { Viewer } from "../../src/modules/sessions/service";
import { Outbox } from "../../src/modules/outbox/service";
import { databasesOfThisFile } from "../backend";
import { AuditLog } from "../../src/modules/audit/service";

const databases = databasesOfThisFile();

let clock: ManualClock;
let creators: CreatorsService;
let courses: CoursesService;
let viewer: Viewer;

beforeEach(async () => {
  const { database } = await databases.open();
  clock = new ManualClock();
  const outbox = new Outbox(database);
  const blacklist = new BlacklistService(database, clock, new CursorCodec("courses-store-test"), outbox, new AuditLog(database, new CursorCodec("courses-store-test")));
  creators = new CreatorsService(database, clock, outbox, blacklist, "https://trust.example");
  courses = new CoursesService(database, clock, creators, true);
  await creators.upsert("alicemakes", {});
  const row = (await creators.find("alicemakes"))!;
  viewer = { creatorId: row.id, handle: row.handle, displayName: null };
});

function answers(slug: string, wrong = 0) {
  return COURSES.find((c) => c.slug === slug)!.questions.map((q, i) => ({ question_id: q.id, answer_index: i < wrong ? (q.answer + 1) % q.options.length : q.answer }));
}

test("best score and pass are kept; the buff reaches the Trust Score", async () => {
  expect((await courses.submit("scam-safety", viewer, { answers: answers("scam-safety", 2) })).passed).toBe(false);
  expect((await creators.find("alicemakes"))!.trustScore).toBe(100);
  clock.advance(1000);
  const passedAt = clock.now();
  expect((await courses.submit("scam-safety", viewer, { answers: answers("scam-safety") })).score).toBe(100);
  clock.advance(1000);
  await courses.submit("scam-safety", viewer, { answers: answers("scam-safety", 5) });
  const row = (await creators.find("alicemakes"))!;
  expect(row.coursesPassed).toBe(1);
  expect(row.trustScore).toBe(105);
  const listed = await courses.list(viewer);
  expect(listed.courses.find((c) => c.slug === "scam-safety")).toMatchObject({ status: "passed", score: 100, completed_at: new Date(passedAt).toISOString() });
  expect(listed.trust).toEqual({ signed_in: true, per_course: 5, max_points: 15, passed_count: 1, earned_points: 5 });
  expect((await courses.detail("scam-safety", viewer)).completion).toEqual({ passed: true, score: 100, completed_at: new Date(passedAt).toISOString() });
});

test("submissions at the same time record every attempt and keep the best", async () => {
  await Promise.all([
    courses.submit("safe-trading", viewer, { answers: answers("safe-trading", 3) }),
    courses.submit("safe-trading", viewer, { answers: answers("safe-trading") }),
    courses.submit("safe-trading", viewer, { answers: answers("safe-trading", 6) }),
  ]);
  const course = (await courses.list(viewer)).courses.find((c) => c.slug === "safe-trading")!;
  expect(course).toMatchObject({ status: "passed", score: 100 });
  expect((await creators.find("alicemakes"))!.coursesPassed).toBe(1);
});

test("disabled submissions are gone and record nothing", async () => {
  const { database } = await databases.open();
  const off = new CoursesService(database, clock, creators, false);
  await expect(off.submit("scam-safety", viewer, { answers: answers("scam-safety") })).rejects.toMatchObject({ kind: "gone" });
});
