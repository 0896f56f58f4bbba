// What the console's tests share: an app with one creator per role (signed in), an API account
// with a member, and helpers that read a page as a browser gets it and send a form as a browser
// sends it (urlencoded, with the page's CSRF token and this service's Origin), or as a forger does.
import { expect } from "bun:test";
import type { AccountMembers } from "../../src/modules/accounts/members";
import { createTestApp, partnerWriter, signIn, type TestApp } from "../helpers";

export const HOSTILE = `<img src=x onerror="window.__pwned=1">`;
/** A real 1x1 PNG, shown inline on a case page. */
export const PNG_1x1 = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

export interface World {
  t: TestApp;
  cookies: Record<string, string>;
  write: (method: string, path: string, body?: unknown) => Promise<any>;
  members: AccountMembers;
  /** The free account `dev` is a member of. */
  guild: { id: string; name: string };
  adminKey: string;
}

/** Creators: boss (admin), mod (moderator), triager (triage), dev (member of `guild`), plain (nothing), evil (a hostile display name). */
export async function world(config: Parameters<typeof createTestApp>[0] = {}): Promise<World> {
  const t = await createTestApp(config);
  // Each request from an address of its own (`from`): the console shares the session routes'
  // per-address bucket, which these tests would otherwise empty.
  t.runtime.config.trustProxy = 1;
  const write = await partnerWriter(t);
  const cookies: Record<string, string> = {};
  for (const handle of ["boss", "mod", "triager", "dev", "plain", "evil"]) {
    await write("PUT", `/v1/partner/creators/${handle}`, { display_name: handle === "evil" ? HOSTILE : handle });
    cookies[handle] = await signIn(t, handle);
  }
  const cli = { kind: "cli", id: "root" } as const;
  await t.services.staff.grant("boss", "admin", cli);
  await t.services.staff.grant("mod", "moderator", cli);
  await t.services.staff.grant("triager", "triage", cli);
  const members = t.services.members;
  const guild = await t.services.accounts.createAccount({ name: "guild", tier: "free" });
  await members.add("guild", "dev", "developer", cli);
  const adminKey = (await t.account({ scope: "admin" })).key;
  return { t, cookies, write, members, guild, adminKey };
}

let addresses = 0;
/** A client address of its own for one request. */
export function from(): Record<string, string> {
  addresses++;
  return { "x-forwarded-for": `10.${(addresses >> 16) & 255}.${(addresses >> 8) & 255}.${addresses & 255}` };
}

export interface PageAnswer {
  status: number;
  text: string;
  headers: Headers;
}

/** GET a console page as `handle` (null: signed out). */
export async function page(w: World, handle: string | null, path: string): Promise<PageAnswer> {
  const res = await w.t.call("GET", path, { headers: { ...from(), ...(handle ? { cookie: w.cookies[handle]! } : {}) } });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** The CSRF token a page's forms carry. */
export function tokenOf(html: string): string {
  const match = html.match(/name="csrf" value="([^"]+)"/);
  expect(match, "the page has a form with its token").not.toBeNull();
  return match![1]!;
}

/** Every POST form's action on a page, decoded. */
export function formActions(html: string): string[] {
  return [...html.matchAll(/<form method="post" action="([^"]+)"/g)].map((m) => m[1]!.replaceAll("&amp;", "&"));
}

export interface PostOptions {
  /** The token to send: the visitor's own by default, null for none. */
  token?: string | null;
  /** The Origin header: this service's by default, "" for none. */
  origin?: string;
}

/** POST a form as `handle`, urlencoded; repeated fields as arrays. */
export async function post(w: World, handle: string | null, path: string, fields: Record<string, string | string[]> = {}, options: PostOptions = {}): Promise<PageAnswer> {
  const body = new URLSearchParams();
  const token = options.token === undefined && handle ? tokenOf((await page(w, handle, "/console")).text) : options.token;
  if (token) body.set("csrf", token);
  for (const [name, value] of Object.entries(fields)) for (const v of Array.isArray(value) ? value : [value]) body.append(name, v);
  const headers: Record<string, string> = { ...from(), "content-type": "application/x-www-form-urlencoded" };
  if (handle) headers.cookie = w.cookies[handle]!;
  if (options.origin !== undefined) headers.origin = options.origin;
  const res = await w.t.call("POST", path, { headers, body: body.toString() });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** The notice a page shows (what happened, or why not). */
export function noticeOf(html: string): string | null {
  return html.match(/<p class="banner [a-z]+" role="[a-z]+">([^<]*)<\/p>/)?.[1] ?? null;
}

/** Row counts of what console forms change, to show a refused one changed nothing. */
export async function snapshot(w: World): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [name, sql] of Object.entries({
    keys: "SELECT CAST(count(*) AS INTEGER) AS n FROM api_keys",
    liveKeys: "SELECT CAST(count(*) AS INTEGER) AS n FROM api_keys WHERE revoked_at IS NULL",
    keyHashes: "SELECT CAST(count(DISTINCT hash) AS INTEGER) AS n FROM api_keys",
    webhooks: "SELECT CAST(count(*) AS INTEGER) AS n FROM webhook_endpoints",
    enabledWebhooks: "SELECT CAST(count(*) AS INTEGER) AS n FROM webhook_endpoints WHERE enabled = true",
    deliveries: "SELECT CAST(count(*) AS INTEGER) AS n FROM webhook_deliveries",
    tripwires: "SELECT CAST(count(*) AS INTEGER) AS n FROM tripwires",
    staff: "SELECT CAST(count(*) AS INTEGER) AS n FROM staff",
    members: "SELECT CAST(count(*) AS INTEGER) AS n FROM account_members",
    audit: "SELECT CAST(count(*) AS INTEGER) AS n FROM audit_events",
    appeals: "SELECT CAST(count(*) AS INTEGER) AS n FROM appeals",
    activeEntries: "SELECT CAST(count(*) AS INTEGER) AS n FROM blacklist_entries WHERE status = 'active'",
    comments: "SELECT CAST(count(*) AS INTEGER) AS n FROM moderation_comments",
    mutes: "SELECT CAST(count(*) AS INTEGER) AS n FROM moderation_mutes",
    sessions: "SELECT CAST(count(*) AS INTEGER) AS n FROM sessions",
  })) {
    counts[name] = (await w.t.rows<{ n: number }>(sql))[0]!.n;
  }
  return counts;
}
