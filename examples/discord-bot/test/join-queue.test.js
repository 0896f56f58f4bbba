// The join queue without Discord: a raid's joins are checked in order, a step at a time with a
// wait between steps, each member once, and the overflow is reported instead of queued. The wait
// is a gate the test opens, so nothing here depends on timing.
import { expect, test } from "bun:test";
import { JoinQueue } from "../src/join-queue.js";

function gatedQueue(options = {}) {
  const steps = [];
  const gates = [];
  const overflow = [];
  const queue = new JoinQueue({
    key: (member) => member.id,
    process: async (members) => void steps.push(members.map((m) => m.id)),
    wait: () => new Promise((resolve) => gates.push(resolve)),
    onOverflow: (member, pending) => overflow.push([member.id, pending]),
    ...options,
  });
  /** Lets the queue through one wait, once it is waiting. */
  const open = async () => {
    for (let turns = 0; gates.length === 0; turns++) {
      if (turns > 1000) throw new Error("the queue is not waiting");
      await Promise.resolve();
    }
    gates.shift()();
  };
  return { queue, steps, gates, open, overflow };
}

const members = (...ids) => ids.map((id) => ({ id }));

test("the first join is checked at once; a burst goes one step per wait", async () => {
  const { queue, steps, open } = gatedQueue();
  for (const m of members("a", "b", "c")) queue.push(m);
  await Promise.resolve();
  expect(steps).toEqual([["a"]]);
  await open();
  await open();
  await queue.drained();
  expect(steps).toEqual([["a"], ["b"], ["c"]]);
});

test("with batches, a raid of 120 joins costs four calls", async () => {
  const { queue, steps, open } = gatedQueue({ batchSize: 50 });
  for (let i = 0; i < 120; i++) queue.push({ id: `m${i}` });
  await open();
  await open();
  await open();
  await queue.drained();
  // The first join is checked as it comes; the rest gather while the queue waits.
  expect(steps.map((s) => s.length)).toEqual([1, 50, 50, 19]);
  expect(steps.flat()).toEqual(Array.from({ length: 120 }, (_, i) => `m${i}`));
});

test("a member queued twice is checked once; after the check it can be queued again", async () => {
  const { queue, steps, open } = gatedQueue();
  expect(queue.push({ id: "a" })).toBe(true);
  expect(queue.push({ id: "b" })).toBe(true);
  expect(queue.push({ id: "b" })).toBe(false);
  await open();
  await queue.drained();
  expect(steps).toEqual([["a"], ["b"]]);
  expect(queue.push({ id: "b" })).toBe(true);
  await queue.drained();
  expect(steps).toEqual([["a"], ["b"], ["b"]]);
});

test("past maxPending the newest joins are reported, not queued", async () => {
  const { queue, overflow, open } = gatedQueue({ maxPending: 2 });
  const pushed = members("a", "b", "c", "d").map((m) => queue.push(m));
  // "a" is taken at once, so "b" and "c" wait and "d" overflows.
  expect(pushed).toEqual([true, true, true, false]);
  expect(overflow).toEqual([["d", 2]]);
  await open();
  await open();
  await queue.drained();
  expect(queue.pending).toBe(0);
});

test("a failed step is reported and the queue goes on", async () => {
  const failures = [];
  const { queue, open, steps } = gatedQueue({
    process: async (batch) => {
      steps.push(batch.map((m) => m.id));
      if (batch[0].id === "a") throw new Error("trustlist down");
    },
    onError: (error, batch) => failures.push([error.message, batch.map((m) => m.id)]),
  });
  queue.push({ id: "a" });
  queue.push({ id: "b" });
  await open();
  await queue.drained();
  expect(failures).toEqual([["trustlist down", ["a"]]]);
  expect(steps).toEqual([["a"], ["b"]]);
});
