// What the moderation tests share: an app on a real database with a manual clock, staff of each
// role signed in, a creator who reports, and files whose leading bytes are what they claim (or not).
import { expect } from "bun:test";
import { ManualClock } from "../../src/clock";
import { createTestApp, partnerWriter, signIn, type TestApp } from "../helpers";

export interface World {
  t: TestApp;
  write: Awaited<ReturnType<typeof partnerWriter>>;
  adminKey: string;
  cookies: Record<string, string>;
  /** A bot's read key, and a second key of the same account. */
  bot: { key: string; keyId: string; accountId: string; sibling: string };
}

/** Staff (boss admin, mod moderator, triager triage), a creator without a role (plain), and a reporting creator (alice). */
export async function world(config: Parameters<typeof createTestApp>[0] = {}): Promise<World> {
  const t = await createTestApp({ clock: new ManualClock(Date.now()), ...config });
  const adminKey = (await t.account({ scope: "admin", burst: 10_000 })).key;
  const write = await partnerWriter(t);
  const cookies: Record<string, string> = {};
  for (const handle of ["boss", "mod", "triager", "plain", "alice"]) {
    await write("PUT", `/v1/partner/creators/${handle}`, { display_name: handle });
    cookies[handle] = await signIn(t, handle);
  }
  for (const [handle, role] of [["boss", "admin"], ["mod", "moderator"], ["triager", "triage"]] as const) {
    expect((await t.json("PUT", `/v1/admin/staff/${handle}`, { key: adminKey, body: { role } })).status).toBe(200);
  }
  const bot = await t.account({ scope: "read", burst: 10_000 });
  const sibling = await t.services.accounts.createKey({ account: bot.accountId, scope: "read", rate_tier: "free", burst: 10_000 });
  return { t, write, adminKey, cookies, bot: { ...bot, sibling: sibling.key } };
}

export const as = (w: World, handle: string) => ({ headers: { cookie: w.cookies[handle]! } });

/** A report body about a Discord account. */
export function reportAbout(id: string, extra: Record<string, unknown> = {}) {
  return { subject: { provider: "discord", id }, reason_code: "scam_trade", description: "Took payment for a map and never delivered.", ...extra };
}

/** A bot's report relayed for a member; answers the receipt. */
export async function fileReport(w: World, body: unknown, key = w.bot.key): Promise<{ id: string; case_id: string; status: string; created_at: string }> {
  const res = await w.t.json("POST", "/v1/reports", { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** Sends a file's bytes as a report's evidence. */
export function upload(w: World, reportId: string, bytes: Uint8Array, contentType: string, auth: { key?: string; headers?: Record<string, string> } = { key: w.bot.key }) {
  const headers: Record<string, string> = { "content-type": contentType, origin: w.t.origin, ...auth.headers };
  if (auth.key) headers.authorization = `Bearer ${auth.key}`;
  return w.t.app.handle(new Request(`http://localhost/v1/reports/${reportId}/evidence`, { method: "POST", headers, body: bytes }));
}

export const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3, 4, 5, 6, 7, 8]);
export const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1]);
export const HTML = new TextEncoder().encode("<!DOCTYPE html><html><script>alert(document.cookie)</script></html>");

export function sha256(bytes: Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
}
