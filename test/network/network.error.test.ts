// The creator network refusing what it must, and losing nothing when it refuses or fails: self-vouches,
// repeat vouches, reviews and referrals, unknown creators and deals, deal transitions out of order
// (409), malformed or wrong-typed bodies (400, 422), and writes that are one transaction with their
// score change and their events (a failed write changes nothing a caller can see, nor the outbox).
// Creators are made through the partner route; nothing is written straight into the tables.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { expectEnvelope } from "../helpers";
import { act, completedDeal, creators, deleteServer, events, eventTypes, expectNoChange, getDeal, leaderboard, openDeal, pendingDeal, profile, putServer, refer, review, score, send, SERVER_ID, setup, stats, t, T0, teardown, vouch, vouchesPage } from "./kit";

/** Makes every write to `table` fail in the database, for the duration of `body`. */
async function failingWrites<T>(table: string, op: "INSERT" | "UPDATE", when: string, body: () => Promise<T>): Promise<T> {
  const restore = await t.failWrites(table, op, when);
  try {
    return await body();
  } finally {
    await restore();
  }
}

beforeEach(setup);
afterEach(teardown);

// ---- vouches ------------------------------------------------------------------------------------

describe("POST /v1/partner/vouches", () => {
  test("a self-vouch is 422 unprocessable and changes nothing, whatever the spelling", async () => {
    await creators("alice");
    await expectNoChange(["alice"], async () => {
      expectEnvelope(await vouch("alice", "alice"), 422, "unprocessable");
      expectEnvelope(await vouch("@ALICE", "alice"), 422, "unprocessable");
    });
    expect(await score("alice")).toBe(100);
  });

  test("a second vouch for the same creator is 409 conflict; the count and score stay", async () => {
    await creators("alice", "bob");
    expect((await vouch("alice", "bob")).status).toBe(201);
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await vouch("alice", "bob", { message: "again" }), 409, "conflict");
      expectEnvelope(await vouch("@ALICE", "Bob"), 409, "conflict");
    });
    expect((await vouchesPage("bob")).body.count).toBe(1);
    expect(await score("bob")).toBe(102);
    // The other direction is a different vouch.
    expect((await vouch("bob", "alice")).status).toBe(201);
    expect(await score("alice")).toBe(102);
  });

  test("an unknown creator on either side is 404 not_found", async () => {
    await creators("alice");
    await expectNoChange(["alice"], async () => {
      expectEnvelope(await vouch("alice", "ghost"), 404, "not_found");
      expectEnvelope(await vouch("ghost", "alice"), 404, "not_found");
    });
  });

  test("an unknown body field is 422; a missing `to` or `from` is 400 invalid_request (house rule for missing values)", async () => {
    await creators("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await send("POST", "/v1/partner/vouches", { from: "alice", to: "bob", weight: 10 }), 422, "unprocessable");
      expectEnvelope(await send("POST", "/v1/partner/vouches", { from: "alice" }), 400, "invalid_request");
      expectEnvelope(await send("POST", "/v1/partner/vouches", { to: "bob" }), 400, "invalid_request");
      expectEnvelope(await send("POST", "/v1/partner/vouches", {}), 400, "invalid_request");
    });
  });

  test("message maxLength is 500: 500 characters are kept, 501 are 422", async () => {
    await creators("alice", "bob", "carol");
    expectEnvelope(await vouch("alice", "bob", { message: "m".repeat(501) }), 422, "unprocessable");
    const ok = await vouch("alice", "bob", { message: "m".repeat(500) });
    expect(ok.status).toBe(201);
    expect(ok.body.message).toHaveLength(500);
  });
});

// ---- deals --------------------------------------------------------------------------------------

describe("deals", () => {
  test("confirming a declined deal is 409; the deal stays declined and no event is written", async () => {
    await creators("alice", "bob");
    const id = await pendingDeal("alice", "bob");
    await act(id, "decline");
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await act(id, "confirm"), 409, "conflict");
      expectEnvelope(await act(id, "complete"), 409, "conflict");
      expectEnvelope(await act(id, "decline"), 409, "conflict");
    });
    expect((await getDeal(id)).body.status).toBe("declined");
    expect(await eventTypes()).toEqual(["deal.declined"]);
  });

  test("completing a pending deal is 409 and moves no score", async () => {
    await creators("alice", "bob");
    const id = await pendingDeal("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await act(id, "complete"), 409, "conflict");
    });
    expect((await getDeal(id)).body.status).toBe("pending");
  });

  test("repeated transitions are 409: confirm twice, decline a confirmed deal, complete twice", async () => {
    await creators("alice", "bob");
    const id = await pendingDeal("alice", "bob");
    expect((await act(id, "confirm")).status).toBe(200);
    expectEnvelope(await act(id, "confirm"), 409, "conflict");
    expectEnvelope(await act(id, "decline"), 409, "conflict");
    expect((await act(id, "complete")).status).toBe(200);
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await act(id, "complete"), 409, "conflict");
      expectEnvelope(await act(id, "confirm"), 409, "conflict");
      expectEnvelope(await act(id, "decline"), 409, "conflict");
    });
    expect((await getDeal(id)).body.status).toBe("completed");
    expect(await eventTypes()).toEqual(["deal.confirmed"]);
  });

  test("an unknown deal id is 404 for GET and for every transition; an over-long one is 422", async () => {
    const unknown = "deal_01jd5x8q3m7k2c9v4n6p8r0s1t";
    expectEnvelope(await getDeal(unknown), 404, "not_found");
    for (const action of ["confirm", "decline", "complete"] as const) expectEnvelope(await act(unknown, action), 404, "not_found");
    expectEnvelope(await getDeal(`deal_${"a".repeat(100)}`), 422, "unprocessable");
    expectEnvelope(await act(`deal_${"a".repeat(100)}`, "confirm"), 422, "unprocessable");
    expect(await events()).toEqual([]);
  });

  test("a self-deal is 422; unknown parties are 404; missing and unknown fields are 400 and 422", async () => {
    await creators("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await openDeal("alice", "@ALICE"), 422, "unprocessable");
      expectEnvelope(await openDeal("alice", "ghost"), 404, "not_found");
      expectEnvelope(await openDeal("ghost", "alice"), 404, "not_found");
      expectEnvelope(await send("POST", "/v1/partner/deals", { from: "alice" }), 400, "invalid_request");
      expectEnvelope(await send("POST", "/v1/partner/deals", { from: "alice", to: "bob", status: "completed" }), 422, "unprocessable");
    });
    expect(await t.rows("SELECT CAST(count(*) AS INTEGER) AS n FROM deals")).toEqual([{ n: 0 }]);
  });
});

// ---- reviews ------------------------------------------------------------------------------------

describe("POST /v1/partner/reviews", () => {
  test("without a completed deal between the two: 409 and nothing changes", async () => {
    await creators("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await review("alice", "bob", 5), 409, "conflict");
    });
    // A pending or merely confirmed deal is not enough.
    const id = await pendingDeal("alice", "bob");
    expectEnvelope(await review("alice", "bob", 5), 409, "conflict");
    await act(id, "confirm");
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await review("alice", "bob", 5), 409, "conflict");
    });
    expect((await profile("bob")).reviews).toEqual({ count: 0, average: null });
  });

  test("a declined deal is not enough either", async () => {
    await creators("alice", "bob");
    const id = await pendingDeal("alice", "bob");
    await act(id, "decline");
    expectEnvelope(await review("alice", "bob", 5), 409, "conflict");
  });

  test("a second review of the same deal by the same reviewer is 409; the other party may review too", async () => {
    await creators("alice", "bob");
    await completedDeal("alice", "bob");
    expect((await review("alice", "bob", 5)).status).toBe(201);
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await review("alice", "bob", 1), 409, "conflict");
    });
    expect((await profile("bob")).reviews).toEqual({ count: 1, average: 5 });
    // bob reviews alice with 1 star: R = round(20 × (1 − 3)/2 × 1/10) = −2.
    const back = await review("bob", "alice", 1);
    expect(back.status).toBe(201);
    expect(await profile("alice")).toMatchObject({ reviews: { count: 1, average: 1 }, trust_score: 101 });
    expectEnvelope(await review("bob", "alice", 5), 409, "conflict");
  });

  test("a creator outside the deal cannot review either party", async () => {
    await creators("alice", "bob", "carol");
    await completedDeal("alice", "bob");
    await expectNoChange(["alice", "bob", "carol"], async () => {
      expectEnvelope(await review("carol", "bob", 5), 409, "conflict");
      expectEnvelope(await review("bob", "carol", 5), 409, "conflict");
    });
  });

  test.each([
    ["0", 0],
    ["6", 6],
    ["4.5", 4.5],
    ['"5" (a JSON string, the wrong type per docs/api.md, "Conventions")', "5"],
    ["null", null],
    ["-1", -1],
  ])("rating %s is 422 and changes nothing", async (_label, rating) => {
    await creators("alice", "bob");
    await completedDeal("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await review("alice", "bob", rating), 422, "unprocessable");
    });
  });

  test("self-review is 422, unknown creators 404, missing rating 400, unknown field 422", async () => {
    await creators("alice", "bob");
    await completedDeal("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await review("alice", "alice", 5), 422, "unprocessable");
      expectEnvelope(await review("alice", "ghost", 5), 404, "not_found");
      expectEnvelope(await send("POST", "/v1/partner/reviews", { from: "alice", to: "bob" }), 400, "invalid_request");
      expectEnvelope(await send("POST", "/v1/partner/reviews", { from: "alice", to: "bob", rating: 5, deal_id: "x" }), 422, "unprocessable");
    });
  });
});

// ---- referrals ----------------------------------------------------------------------------------

describe("referrals and the leaderboard", () => {
  test("an unknown period is 422", async () => {
    expectEnvelope(await leaderboard("?period=week"), 422, "unprocessable");
    expectEnvelope(await leaderboard("?period="), 422, "unprocessable");
  });
});

// ---- servers ------------------------------------------------------------------------------------

describe("servers and servers_protected", () => {
  test("bad platform, server id, name or body field is 422 and registers nothing", async () => {
    expectEnvelope(await putServer(SERVER_ID, {}, "myspace"), 422, "unprocessable");
    expectEnvelope(await putServer("has spaces%20x"), 422, "unprocessable");
    expectEnvelope(await putServer("<script>"), 422, "unprocessable");
    expectEnvelope(await putServer("9".repeat(65)), 422, "unprocessable");
    expectEnvelope(await putServer(SERVER_ID, { name: "n".repeat(101) }), 422, "unprocessable");
    expectEnvelope(await putServer(SERVER_ID, { name: 42 }), 422, "unprocessable");
    expectEnvelope(await putServer(SERVER_ID, { name: "Hub", owner: "me" }), 422, "unprocessable");
    expectEnvelope(await deleteServer(SERVER_ID, "myspace"), 422, "unprocessable");
    expect((await stats()).servers_protected).toBe(0);
  });
});

// ---- wrong types (the describe keeps the name it had beside the security tests) -----------------

describe("security of the partner routes", () => {
  test("wrong types are 422 and store nothing", async () => {
    await creators("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      expectEnvelope(await vouch("alice", 123 as unknown as string), 422, "unprocessable");
      expectEnvelope(await vouch(["alice"] as unknown as string, "bob"), 422, "unprocessable");
      expectEnvelope(await vouch("alice", "bob", { message: { html: "<b>" } }), 422, "unprocessable");
      expectEnvelope(await vouch("alice", "bob", { message: 7 }), 422, "unprocessable");
      expectEnvelope(await openDeal({ handle: "alice" } as unknown as string, "bob"), 422, "unprocessable");
      expectEnvelope(await refer(true as unknown as string, "bob"), 422, "unprocessable");
      expectEnvelope(await send("POST", "/v1/partner/vouches", ["alice", "bob"]), 422, "unprocessable");
    });
  });
});

// ---- atomicity ----------------------------------------------------------------------------------

describe("every write is one transaction with its score change and its events", () => {
  test("a vouch whose score recomputation fails stores no vouch and moves no score", async () => {
    await creators("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      const res = await failingWrites("trust_snapshots", "INSERT", "true", () => vouch("alice", "bob"));
      expectEnvelope(res, 500, "internal");
    });
    // Once the fault is gone the same vouch goes through: nothing was half-written.
    expect((await vouch("alice", "bob")).status).toBe(201);
    expect(await score("bob")).toBe(102);
  });

  test("a confirm whose event cannot be written leaves the deal pending", async () => {
    await creators("alice", "bob");
    const id = await pendingDeal("alice", "bob");
    const res = await failingWrites("outbox_events", "INSERT", "true", () => act(id, "confirm"));
    expectEnvelope(res, 500, "internal");
    expect((await getDeal(id)).body).toMatchObject({ status: "pending", updated_at: T0 });
    expect(await events()).toEqual([]);
    expect((await act(id, "confirm")).status).toBe(200);
    expect(await eventTypes()).toEqual(["deal.confirmed"]);
  });

  test("a completion that fails on the second party rolls back the first party's score and the status", async () => {
    await creators("alice", "bob");
    const id = await pendingDeal("alice", "bob");
    await act(id, "confirm");
    const bobId = (await t.rows<{ id: string }>("SELECT id FROM creators WHERE handle = 'bob'"))[0]!.id;
    await expectNoChange(["alice", "bob"], async () => {
      const res = await failingWrites("creators", "UPDATE", `NEW.id = '${bobId}'`, () => act(id, "complete"));
      expectEnvelope(res, 500, "internal");
    });
    expect((await getDeal(id)).body.status).toBe("confirmed");
    expect(await profile("alice")).toMatchObject({ completed_deals: 0, trust_score: 100 });
    expect((await act(id, "complete")).status).toBe(200);
    expect(await profile("alice")).toMatchObject({ completed_deals: 1, trust_score: 103 });
    expect(await profile("bob")).toMatchObject({ completed_deals: 1, trust_score: 103 });
  });

  test("a review whose recomputation fails is not stored and can be written afterwards", async () => {
    await creators("alice", "bob");
    await completedDeal("alice", "bob");
    await expectNoChange(["alice", "bob"], async () => {
      const res = await failingWrites("trust_snapshots", "INSERT", "true", () => review("alice", "bob", 5));
      expectEnvelope(res, 500, "internal");
    });
    expect((await review("alice", "bob", 5)).status).toBe(201);
    expect(await profile("bob")).toMatchObject({ reviews: { count: 1, average: 5 }, trust_score: 105 });
  });

  test("refused writes (409, 422, 404) leave no outbox row", async () => {
    await creators("alice", "bob");
    const id = await pendingDeal("alice", "bob");
    await act(id, "decline");
    const before = await events();
    await act(id, "confirm");
    await act("deal_01jd5x8q3m7k2c9v4n6p8r0s1t", "confirm");
    await openDeal("alice", "alice");
    await vouch("alice", "alice");
    expect(await events()).toEqual(before);
  });
});
