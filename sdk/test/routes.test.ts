// Every route group the SDK wraps, once each against a live server, with typed answers: blacklist
// reads, creators, the public routes, the partner writes (creators, links, vouches, a deal from
// opening to completion, a review, a referral, an entry and its overturn), the account's usage,
// and appeals (filed for the account an entry names, read back, refused as the server refuses).
import { beforeAll, expect, test } from "bun:test";
import { ConflictError, createTrustlist, NotFoundError, type Trustlist } from "../src/index";
import { liveServer } from "./live";

const live = liveServer();
let writer: Trustlist;
let reader: Trustlist;
let anonymous: Trustlist;

beforeAll(() => {
  writer = createTrustlist({ baseUrl: live.base, apiKey: live.key("--scope", "write") });
  reader = createTrustlist({ baseUrl: live.base, apiKey: live.key() });
  anonymous = createTrustlist({ baseUrl: live.base });
});

test("partner writes and the creator reads they feed", async () => {
  expect(await writer.upsertCreator("alicemakes", { display_name: "Alice Makes" })).toMatchObject({ handle: "alicemakes" });
  await writer.upsertCreator("bobbuilds", { display_name: "Bob Builds" });
  expect(await writer.addConnection("alicemakes", { provider: "roblox", provider_user_id: "6001", provider_username: "alice_rbx" })).toMatchObject({ provider: "roblox" });
  expect(await writer.addVouch({ from: "bobbuilds", to: "alicemakes", message: "Delivered on time." })).toMatchObject({ from: "bobbuilds", to: "alicemakes" });
  const deal = await writer.createDeal({ from: "alicemakes", to: "bobbuilds" });
  expect(deal.status).toBe("pending");
  expect((await writer.confirmDeal(deal.id)).status).toBe("confirmed");
  expect((await writer.completeDeal(deal.id)).status).toBe("completed");
  expect((await writer.getDeal(deal.id)).status).toBe("completed");
  const declined = await writer.createDeal({ from: "bobbuilds", to: "alicemakes" });
  expect((await writer.declineDeal(declined.id)).status).toBe("declined");
  expect(await writer.addReview({ from: "bobbuilds", to: "alicemakes", rating: 5 })).toMatchObject({ rating: 5, deal_id: deal.id });
  expect(await writer.addReferral({ referrer: "alicemakes", referred: "bobbuilds" })).toMatchObject({ referrer: "alicemakes" });

  expect(await reader.getUser("alicemakes")).toMatchObject({ handle: "alicemakes", completed_deals: 1, blacklisted: false });
  expect((await reader.getTrust("alicemakes")).trust_score).toBeGreaterThan(0);
  expect((await reader.getConnections("alicemakes")).connections.map((c) => c.provider)).toContain("roblox");
  expect(await reader.usage()).toMatchObject({ rate_limit: { limit: 1000 } });
});

test("blacklist writes and reads, and the public routes without a key", async () => {
  const entry = await writer.addEntry({ provider: "roblox", provider_user_id: "6001", username: "alice_rbx", severity: "warn", reason_code: "spam", creator: "alicemakes" });
  expect((await reader.getEntry(entry.id)).id).toBe(entry.id);
  expect((await reader.listEntries({ limit: 10 })).data.map((e) => e.id)).toContain(entry.id);
  expect((await anonymous.searchPublic("alice_rbx")).found).toBe(true);
  expect(await anonymous.resolve({ provider: "roblox", id: "6001" })).toMatchObject({ handle: "alicemakes" });
  expect((await anonymous.publicTrust("alicemakes")).handle).toBe("alicemakes");
  expect((await anonymous.directory({ limit: 5 })).items.map((c) => c.handle)).toContain("alicemakes");
  expect(await anonymous.publicStats()).toBeObject();
  expect(await writer.overturnEntry(entry.id, { reason: "mistaken identity" })).toMatchObject({ id: entry.id, status: "overturned" });
  expect(await reader.getEntry(entry.id).catch((e) => e)).toBeInstanceOf(NotFoundError);
});

test("appeals: filed for the account an entry names, read back, refused while open and when not appealable", async () => {
  const entry = await writer.addEntry({ provider: "discord", provider_user_id: "6101", severity: "ban", reason_code: "scam" });
  const filed = await writer.createAppeal({ entry_id: entry.id, provider: "discord", provider_user_id: "6101", statement: "I delivered the map." });
  expect(filed).toMatchObject({ status: "open" });
  expect(filed.id).toMatch(/^apl_/);
  expect(await writer.getAppeal(filed.id)).toMatchObject({ id: filed.id, entry_id: entry.id, status: "open" });
  const again = await writer.createAppeal({ entry_id: entry.id, provider: "discord", provider_user_id: "6101", statement: "again" }).catch((e) => e);
  expect(again).toBeInstanceOf(ConflictError);
  expect(again).toMatchObject({ status: 409, code: "conflict" });

  const final = await writer.addEntry({ provider: "discord", provider_user_id: "6102", severity: "ban", reason_code: "scam", appealable: false });
  const refused = await writer.createAppeal({ entry_id: final.id, provider: "discord", provider_user_id: "6102", statement: "please" }).catch((e) => e);
  expect(refused).toBeInstanceOf(ConflictError);
  expect(refused).toMatchObject({ code: "not_appealable" });
  // The entry must name the account the bot talks for.
  expect(await writer.createAppeal({ entry_id: entry.id, provider: "discord", provider_user_id: "6999", statement: "x" }).catch((e) => e)).toBeInstanceOf(NotFoundError);
});
