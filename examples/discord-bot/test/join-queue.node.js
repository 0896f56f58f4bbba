// The join queue without Discord: a raid's joins are checked in order, a step at a time with a
// wait between steps, each member once, the overflow reported instead of queued, and a member
// whose check failed queued again after its wait instead of forgotten. The waits are gates and the
// retry timers a list the test fires, so nothing here depends on timing.
import assert from "node:assert/strict";
import { test } from "node:test";
import { JoinQueue } from "../src/join-queue.js";

/** @param {Partial<ConstructorParameters<typeof JoinQueue<{ id: string }>>[0]>} [options] */
function gatedQueue(options = {}) {
  /** @type {string[][]} */
  const steps = [];
  /** @type {Array<() => void>} */
  const gates = [];
  /** @type {Array<[string, number]>} */
  const overflow = [];
  /** @type {Array<{ run: () => void, ms: number, cancelled: boolean }>} */
  const timers = [];
  const queue = new JoinQueue({
    key: (/** @type {{ id: string }} */ member) => member.id,
    process: async (members) => void steps.push(members.map((m) => m.id)),
    wait: () => new Promise((resolve) => gates.push(() => resolve())),
    onOverflow: (member, pending) => overflow.push([member.id, pending]),
    schedule: (run, ms) => {
      const timer = { run, ms, cancelled: false };
      timers.push(timer);
      return { cancel: () => void (timer.cancelled = true) };
    },
    ...options,
  });
  /** Lets the queue through one wait, once it is waiting. */
  const open = async () => {
    for (let turns = 0; gates.length === 0; turns++) {
      if (turns > 1000) throw new Error("the queue is not waiting");
      await Promise.resolve();
    }
    /** @type {() => void} */ (gates.shift())();
  };
  return { queue, steps, open, overflow, timers };
}

const members = (/** @type {string[]} */ ...ids) => ids.map((id) => ({ id }));

test("the first join is checked at once; a burst goes one step per wait", async () => {
  const { queue, steps, open } = gatedQueue();
  for (const m of members("a", "b", "c")) queue.push(m);
  await Promise.resolve();
  assert.deepEqual(steps, [["a"]]);
  await open();
  await open();
  await queue.drained();
  assert.deepEqual(steps, [["a"], ["b"], ["c"]]);
});

test("with batches, a raid of 120 joins costs four calls", async () => {
  const { queue, steps, open } = gatedQueue({ batchSize: 50 });
  for (let i = 0; i < 120; i++) queue.push({ id: `m${i}` });
  await open();
  await open();
  await open();
  await queue.drained();
  assert.deepEqual(steps.map((s) => s.length), [1, 50, 50, 19]);
  assert.deepEqual(steps.flat(), Array.from({ length: 120 }, (_, i) => `m${i}`));
});

test("a member queued twice is checked once; after the check it can be queued again", async () => {
  const { queue, steps, open } = gatedQueue();
  assert.equal(queue.push({ id: "a" }), true);
  assert.equal(queue.push({ id: "b" }), true);
  assert.equal(queue.push({ id: "b" }), false);
  await open();
  await queue.drained();
  assert.deepEqual(steps, [["a"], ["b"]]);
  assert.equal(queue.push({ id: "b" }), true);
  await queue.drained();
  assert.deepEqual(steps, [["a"], ["b"], ["b"]]);
});

test("past maxPending the newest joins are reported, not queued", async () => {
  const { queue, overflow, open } = gatedQueue({ maxPending: 2 });
  const pushed = members("a", "b", "c", "d").map((m) => queue.push(m));
  assert.deepEqual(pushed, [true, true, true, false]);
  assert.deepEqual(overflow, [["d", 2]]);
  await open();
  await open();
  await queue.drained();
  assert.equal(queue.pending, 0);
});

test("a failed step is reported and the queue goes on", async () => {
  /** @type {Array<[string, string[]]>} */
  const failures = [];
  /** @type {string[][]} */
  const seen = [];
  const { queue, open } = gatedQueue({
    process: async (batch) => {
      seen.push(batch.map((m) => m.id));
      if (batch[0]?.id === "a") throw new Error("trustlist down");
    },
    onError: (error, batch) => failures.push([/** @type {Error} */ (error).message, batch.map((m) => m.id)]),
  });
  queue.push({ id: "a" });
  queue.push({ id: "b" });
  await open();
  await queue.drained();
  assert.deepEqual(failures, [["trustlist down", ["a"]]]);
  assert.deepEqual(seen, [["a"], ["b"]]);
});

test("a member whose check failed waits its time, then is checked again; stop cancels the waits", async () => {
  /** @type {string[][]} */
  const seen = [];
  let failing = true;
  /** @type {JoinQueue<{ id: string }>} */
  let q;
  const { queue, timers } = gatedQueue({
    process: async (batch) => {
      seen.push(batch.map((m) => m.id));
      if (failing) for (const m of batch) q.retry(m, 30_000);
    },
  });
  q = queue;
  queue.push({ id: "a" });
  await queue.drained();
  assert.deepEqual(timers.map((t) => t.ms), [30_000]);
  assert.equal(queue.retrying, 1);
  // A rejoin while it waits is not a second check, nor a second wait.
  assert.equal(queue.push({ id: "a" }), false);
  assert.equal(queue.retry({ id: "a" }, 5), false);
  failing = false;
  timers[0]?.run();
  await queue.drained();
  assert.deepEqual(seen, [["a"], ["a"]]);
  assert.equal(queue.retrying, 0);

  failing = true;
  queue.push({ id: "b" });
  await queue.drained();
  queue.stop();
  assert.equal(timers[1]?.cancelled, true);
  assert.equal(queue.retrying, 0);
});
