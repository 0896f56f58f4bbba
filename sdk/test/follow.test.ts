// The SDK's following and reading against a live server: `vertical` on single and batch checks
// alike, the answers' metadata, and the change-feed follower keeping up, stopping on its signal,
// and resuming from a stored cursor across a server restart that a plain call rides out too.
import { beforeAll, expect, test } from "bun:test";
import { createTrustlist, type FollowedChange, responseMeta, type ResponseMeta, type Trustlist } from "../src/index";
import { liveServer } from "./live";

const live = liveServer();
let admin: Trustlist;
let reader: Trustlist;
const seen: ResponseMeta[] = [];

beforeAll(() => {
  admin = createTrustlist({ baseUrl: live.base, apiKey: live.adminKey });
  reader = createTrustlist({ baseUrl: live.base, apiKey: live.key(), onResponse: (meta) => seen.push(meta) });
});

test("vertical counts the same in a single check and a batch check", async () => {
  await admin.addEntry({ provider: "discord", provider_user_id: "3001", severity: "ban", scope: "vertical", vertical: "roblox", reason_code: "scam" });
  const accounts = [{ provider: "discord", id: "3001" }];
  for (const [vertical, banned] of [["roblox", true], ["minecraft", false], ["all", true]] as const) {
    expect((await reader.checkAccount({ provider: "discord", id: "3001", vertical })).banned).toBe(banned);
    expect((await reader.batchCheck(accounts, { vertical })).results[0]!.banned).toBe(banned);
  }
});

test("each answer's metadata: request id, the quota headers counting down, attempts; onResponse sees it too", async () => {
  seen.length = 0;
  const first = await reader.usage();
  const second = await reader.checkAccount({ provider: "discord", id: "42" });
  const [a, b] = [responseMeta(first)!, responseMeta(second)!];
  expect(a).toMatchObject({ status: 200, attempts: 1, replayed: false });
  expect(a.requestId).toMatch(/\S+/);
  expect(a.rateLimit!.limit).toBe(first.rate_limit.limit);
  expect(b.rateLimit!.remaining).toBe(a.rateLimit!.remaining - 1);
  expect(a.rateLimit!.reset.getTime()).toBeGreaterThan(Date.now());
  expect(seen).toEqual([a, b]);
  // The metadata does not show in the result itself.
  expect(Object.keys(second)).not.toContain("meta");
  expect(responseMeta({ banned: false })).toBeNull();
});

test("the follower yields every change with a cursor, keeps polling for new ones, and stops on its signal", async () => {
  const stop = new AbortController();
  const got: FollowedChange[] = [];
  const following = (async () => {
    for await (const followed of reader.followChanges({ limit: 2, pollMs: 50, signal: stop.signal })) got.push(followed);
  })();
  while (got.length < 1) await Bun.sleep(20);
  // Caught up, polling: a change made now arrives.
  const later = await admin.addEntry({ provider: "discord", provider_user_id: "3002", severity: "warn", reason_code: "spam" });
  while (!got.some((f) => f.change.entry_id === later.id)) await Bun.sleep(20);
  stop.abort();
  await following; // ends without an error
  const seqs = got.map((f) => Number(f.change.seq));
  expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
  expect(new Set(seqs).size).toBe(seqs.length);
  expect(got.every((f) => typeof f.cursor === "string" || f.cursor === undefined)).toBe(true);
});

test("resumed from a stored cursor across a restart: only later changes come, and a call made while the server is down succeeds", async () => {
  // A mirror's stored position: the cursor and seq of the last change it handled.
  let stored: FollowedChange | undefined;
  for await (const followed of reader.followChanges({ limit: 1, pollMs: 50 })) {
    stored = followed;
    if (followed.cursor && (await reader.changes({ cursor: followed.cursor })).data.length === 0) break;
  }
  expect(stored).toBeDefined();

  await live.stop();
  // The default retry window (8 attempts, backoff from 0.5 s doubling to 5 s with equal jitter:
  // at least about 11 s) outlasts the restart below.
  const duringOutage = reader.checkAccount({ provider: "discord", id: "3001", vertical: "roblox" });
  const stop = new AbortController();
  const resumed: FollowedChange[] = [];
  const errors: unknown[] = [];
  const following = (async () => {
    for await (const followed of reader.followChanges({ cursor: stored!.cursor, afterSeq: Number(stored!.change.seq), pollMs: 50, signal: stop.signal, onError: (e) => errors.push(e) })) {
      resumed.push(followed);
    }
  })();
  await Bun.sleep(300);
  await live.start();

  const answered = await duringOutage;
  expect(answered.banned).toBe(true);
  expect(responseMeta(answered)!.attempts).toBeGreaterThan(1);

  const after = await admin.addEntry({ provider: "discord", provider_user_id: "3003", severity: "ban", reason_code: "raid" });
  await admin.overturnEntry(after.id);
  while (resumed.length < 2) await Bun.sleep(20);
  stop.abort();
  await following;
  expect(resumed.map((f) => [f.change.type, f.change.entry_id])).toEqual([["added", after.id], ["overturned", after.id]]);
  expect(Number(resumed[0]!.change.seq)).toBeGreaterThan(Number(stored!.change.seq));
}, 60_000);
