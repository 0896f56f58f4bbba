// Staff roles through the admin routes and the CLI's service: who may grant, list and revoke (an
// admin-scoped key or a signed-in staff admin; nobody else), and the audit event of each change.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, expectEnvelope, partnerWriter, signIn, type TestApp } from "../helpers";

let t: TestApp;
let adminKey: string;
const cookies: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestApp();
  adminKey = (await t.account({ scope: "admin" })).key;
  const write = await partnerWriter(t);
  for (const handle of ["boss", "mod", "triager", "plain"]) {
    await write("PUT", `/v1/partner/creators/${handle}`, { display_name: handle });
    cookies[handle] = await signIn(t, handle);
  }
});

afterAll(() => t.close());

const asCookie = (handle: string) => ({ headers: { cookie: cookies[handle]! } });

describe("granting and listing", () => {
  test("an admin key grants roles; the list shows them with who granted them", async () => {
    for (const [handle, role] of [["boss", "admin"], ["mod", "moderator"], ["triager", "triage"]] as const) {
      const res = await t.json("PUT", `/v1/admin/staff/${handle}`, { key: adminKey, body: { role } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ handle, role });
      expect(res.body.granted_by).toStartWith("key:key_");
    }
    const list = await t.json("GET", "/v1/admin/staff", { key: adminKey });
    expect(list.body.data.map((m: any) => [m.handle, m.role])).toEqual([["boss", "admin"], ["mod", "moderator"], ["triager", "triage"]]);
  });

  test("a signed-in staff admin manages staff; the audit log names them", async () => {
    const res = await t.json("PUT", "/v1/admin/staff/plain", { ...asCookie("boss"), body: { role: "triage" } });
    expect(res.status).toBe(200);
    expect(res.body.granted_by).toBe("staff:boss");
    const revoked = await t.json("DELETE", "/v1/admin/staff/plain", asCookie("boss"));
    expect(revoked.body).toEqual({ handle: "plain", revoked: true });
    const again = await t.json("DELETE", "/v1/admin/staff/plain", asCookie("boss"));
    expect(again.body).toEqual({ handle: "plain", revoked: false });
    const audit = await t.services.audit.list({ subject: "creator:plain" });
    expect(audit.data.map((e) => [e.action, e.actor])).toEqual([
      ["staff.revoked", { kind: "staff", id: "boss" }],
      ["staff.granted", { kind: "staff", id: "boss" }],
    ]);
    expect(audit.data[1]!.details).toEqual({ handle: "plain", role: "triage", previous: null });
  });
});

describe("who may not", () => {
  test("a moderator, a triager and a creator without a role get 403; nobody signed in gets 401", async () => {
    for (const handle of ["mod", "triager", "plain"]) {
      expectEnvelope(await t.json("GET", "/v1/admin/staff", asCookie(handle)), 403, "forbidden");
      expectEnvelope(await t.json("PUT", "/v1/admin/staff/plain", { ...asCookie(handle), body: { role: "admin" } }), 403, "forbidden");
    }
    expectEnvelope(await t.json("GET", "/v1/admin/staff"), 401, "unauthorized");
    expect((await t.json("GET", "/v1/admin/staff", asCookie("plain"))).status).toBe(403);
  });

  test("read and write keys get 403; a staff admin's write from another origin gets 403 and changes nothing", async () => {
    for (const scope of ["read", "write"] as const) {
      const { key } = await t.account({ scope });
      expectEnvelope(await t.json("GET", "/v1/admin/staff", { key }), 403, "forbidden");
    }
    const foreign = await t.json("PUT", "/v1/admin/staff/plain", { headers: { cookie: cookies.boss!, origin: "https://evil.example" }, body: { role: "admin" } });
    expectEnvelope(foreign, 403, "forbidden");
    const list = await t.json("GET", "/v1/admin/staff", { key: adminKey });
    expect(list.body.data.some((m: any) => m.handle === "plain")).toBe(false);
  });

  test("bad input: an unknown role is 422, an unknown creator 404, and nothing changes", async () => {
    expect((await t.json("PUT", "/v1/admin/staff/mod", { key: adminKey, body: { role: "owner" } })).status).toBe(422);
    expectEnvelope(await t.json("PUT", "/v1/admin/staff/nobody_here", { key: adminKey, body: { role: "admin" } }), 404, "not_found");
    const list = await t.json("GET", "/v1/admin/staff", { key: adminKey });
    expect(list.body.data.find((m: any) => m.handle === "mod").role).toBe("moderator");
  });
});

describe("the CLI", () => {
  test("trustlist staff grant, list and revoke, each recorded as the operator at the command line", async () => {
    const { cli, cliJson } = await import("../cli-helpers");
    const granted = cliJson(t.dbPath, "staff", "grant", "@Plain", "--role", "moderator");
    expect(granted).toMatchObject({ handle: "plain", role: "moderator" });
    expect(granted.granted_by).toStartWith("cli:");
    expect(cliJson(t.dbPath, "staff", "list").data.find((m: any) => m.handle === "plain").role).toBe("moderator");
    // The API sees the role at once: the creator's session now reads the audit log.
    expect((await t.json("GET", "/v1/admin/audit", asCookie("plain"))).status).toBe(200);
    const human = cli(t.dbPath, "staff", "revoke", "plain");
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("@plain is no longer staff");
    expect((await t.json("GET", "/v1/admin/audit", asCookie("plain"))).status).toBe(403);
    const unknown = cli(t.dbPath, "staff", "grant", "nobody_here", "--role", "admin");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No creator @nobody_here");
    const badRole = cli(t.dbPath, "staff", "grant", "plain", "--role", "owner");
    expect(badRole.code).toBe(2);
    const events = cliJson(t.dbPath, "audit", "--subject", "creator:plain", "--action", "staff.granted").data;
    expect(events[0].actor.kind).toBe("cli");
  });
});
