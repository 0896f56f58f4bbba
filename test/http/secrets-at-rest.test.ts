// Secrets stay secret at rest: one of every secret the product issues (API keys from the CLI and
// the admin route, a rotated key, a webhook signing secret and its rotation, sign-in links from
// the partner route and the CLI, session cookies), each write sent with an Idempotency-Key as the
// SDK sends it and repeated once. Then nothing at rest may hold one in clear: not the SQLite file
// nor its WAL (raw bytes), not a backup, not an export, not the log lines, not /metrics. Only
// hashes of keys, links and sessions are kept; a webhook's signing secret lives in its endpoint's
// row alone (deliveries are signed with it). On PostgreSQL, every text column of every table is
// searched through SQL instead of a file.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Logger } from "../../src/logger";
import { backend, sqliteOnly } from "../backend";
import { run } from "../cli-helpers";
import { createTestApp, repeatUntilReplayed, type TestApp } from "../helpers";

let t: TestApp;
let logged = "";
/** Every clear secret issued, by what it is. */
const secrets: Record<string, string> = {};
/** Webhook signing secrets: the current one is in its endpoint's row; a rotated-away one nowhere. */
let currentWebhookSecret = "";
let exportText = "";
let backupPath: string | null = null;

const cli = (...args: string[]) => {
  const ran = run([...args, "--db", t.dbPath, "--json"]);
  if (ran.code !== 0) throw new Error(`${args.join(" ")}: ${ran.stderr}`);
  return JSON.parse(ran.stdout);
};
const tokenOf = (url: string) => new URL(url).searchParams.get("token")!;

beforeAll(async () => {
  t = await createTestApp({ config: { allowPrivateWebhooks: true } });
  // Checkpoints off: whatever a write put in the WAL stays there to be read below.
  if (backend === "sqlite") t.sqlite.exec("PRAGMA wal_autocheckpoint = 0");
  t.runtime.log = new Logger({ access: true }, (text) => void (logged += text));
  let idempotencyKeys = 0;
  // A write as the SDK sends it (with an Idempotency-Key), then its repeat, which must issue nothing.
  const write = async (method: string, path: string, key: string, body?: unknown) => {
    const headers = { "idempotency-key": `write-${++idempotencyKeys}` };
    const first = await t.json(method, path, { key, body, headers });
    expect(first.status, JSON.stringify(first.body)).toBeLessThan(300);
    const again = await repeatUntilReplayed(() => t.json(method, path, { key, body, headers }));
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    return first.body;
  };

  const admin = await t.account({ tier: "enterprise", scope: "admin", burst: 10_000, dailyQuota: 100_000 });
  secrets.adminKeyByService = admin.key;
  const writer = await t.account({ tier: "pro", scope: "write", burst: 10_000, dailyQuota: 100_000 });
  secrets.writeKeyByService = writer.key;

  // The CLI's way: `keys create` and `login-link`, on the same database.
  cli("accounts", "create", "--name", "bots", "--tier", "pro");
  secrets.keyByCli = cli("keys", "create", "--account", "bots", "--scope", "read").key;

  // The admin routes: a key issued, then rotated.
  const issued = await write("POST", `/v1/admin/accounts/${writer.accountId}/keys`, admin.key, { scope: "read" });
  secrets.keyByAdminRoute = issued.key;
  const rotated = await write("POST", `/v1/admin/keys/${issued.id}/rotate`, admin.key);
  secrets.rotatedKey = rotated.key;

  // Webhooks: a secret at creation, another at rotation.
  const hook = await write("POST", "/v1/webhooks", writer.key, { url: "http://127.0.0.1:9/hook", events: ["blacklist.added"] });
  secrets.webhookSecretRotatedAway = hook.secret;
  currentWebhookSecret = (await write("POST", `/v1/webhooks/${hook.id}/rotate-secret`, writer.key)).secret;

  // An event in the outbox, signed later with the webhook secret.
  await write("POST", "/v1/partner/blacklist", writer.key, { provider: "discord", provider_user_id: "80351110224678912", severity: "ban", reason_code: "scam_trade" });

  // Sign-in links (partner route and CLI), each used once for a session cookie.
  await write("PUT", "/v1/partner/creators/alicemakes", writer.key, {});
  const link = await write("POST", "/v1/partner/login-links", writer.key, { handle: "alicemakes" });
  secrets.linkByRoute = tokenOf(link.url);
  secrets.linkByCli = tokenOf(cli("login-link", "alicemakes").url);
  for (const name of ["linkByRoute", "linkByCli"]) {
    const signedIn = await t.call("GET", `/auth/magic?token=${secrets[name]}`);
    expect(signedIn.status).toBe(302);
    const session = signedIn.headers.get("set-cookie")!.match(/session=([^;]+)/)![1]!;
    secrets[`sessionFrom_${name}`] = session;
    expect((await t.json("GET", "/v1/me", { headers: { cookie: `session=${session}` } })).status).toBe(200);
  }
  // A link not used yet, and every key used once more, so the access log has seen each.
  secrets.linkUnused = tokenOf((await write("POST", "/v1/partner/login-links", writer.key, { handle: "alicemakes" })).url);
  for (const key of [secrets.keyByCli, secrets.rotatedKey, admin.key, writer.key]) {
    expect((await t.json("GET", "/v1/account/usage", { key })).status).toBe(200);
  }
  const metrics = await t.call("GET", "/metrics", { key: admin.key });
  expect(metrics.status).toBe(200);
  logged += await metrics.text();
  t.runtime.log.flush();

  const out = join(t.dir, "export.jsonl");
  const exported = run(["export", "--out", out, "--db", t.dbPath]);
  expect(exported.code, exported.stderr).toBe(0);
  exportText = readFileSync(out, "utf8");
  if (backend === "sqlite") {
    backupPath = join(t.dir, "backup.db");
    const backedUp = run(["backup", backupPath, "--db", t.dbPath]);
    expect(backedUp.code, backedUp.stderr).toBe(0);
  }
}, 60_000);

afterAll(() => t.close());

/** `table.column` of every text column on the app's database that holds `secret`. */
async function columnsHolding(secret: string): Promise<string[]> {
  const columns =
    backend === "sqlite"
      ? await t.rows<{ table_name: string; column_name: string }>(
          `SELECT m.name AS table_name, p.name AS column_name FROM sqlite_master m, pragma_table_info(m.name) p
           WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'`,
        )
      : await t.rows<{ table_name: string; column_name: string }>(
          `SELECT c.table_name, c.column_name FROM information_schema.columns c
           JOIN information_schema.tables s ON s.table_schema = c.table_schema AND s.table_name = c.table_name AND s.table_type = 'BASE TABLE'
           WHERE c.table_schema = current_schema() AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb')`,
        );
  expect(columns.length).toBeGreaterThan(20);
  const holding: string[] = [];
  for (const { table_name, column_name } of columns) {
    // On SQLite any column may hold text, whatever its declared type.
    const where = backend === "sqlite" ? `instr(CAST("${column_name}" AS TEXT), ?) > 0` : `position(? in "${column_name}"::text) > 0`;
    const [row] = await t.rows<{ n: number }>(`SELECT CAST(count(*) AS INTEGER) AS n FROM "${table_name}" WHERE ${where}`, secret);
    if (row!.n > 0) holding.push(`${table_name}.${column_name}`);
  }
  return holding;
}

const occurrences = (haystack: Buffer | string, needle: string) => {
  let count = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) count++;
  return count;
};

describe("secrets at rest", () => {
  test("every kind of secret was issued, each one distinct", () => {
    expect(Object.keys(secrets).sort()).toEqual([
      "adminKeyByService",
      "keyByAdminRoute",
      "keyByCli",
      "linkByCli",
      "linkByRoute",
      "linkUnused",
      "rotatedKey",
      "sessionFrom_linkByCli",
      "sessionFrom_linkByRoute",
      "webhookSecretRotatedAway",
      "writeKeyByService",
    ]);
    expect(new Set([...Object.values(secrets), currentWebhookSecret]).size).toBe(12);
    expect(currentWebhookSecret).toMatch(/^whsec_/);
  });

  test("no table holds a key, link or session in clear; the webhook secret is only in its endpoint's row", async () => {
    for (const [name, secret] of Object.entries(secrets)) expect({ name, holding: await columnsHolding(secret) }).toEqual({ name, holding: [] });
    expect(await columnsHolding(currentWebhookSecret)).toEqual(["webhook_endpoints.secret"]);
    const [endpoints] = await t.rows<{ n: number }>("SELECT CAST(count(*) AS INTEGER) AS n FROM webhook_endpoints WHERE secret = ?", currentWebhookSecret);
    expect(endpoints!.n).toBe(1);
    // The search itself finds what is there: the key's hash, which is stored.
    const [hashes] = await t.rows<{ n: number }>("SELECT CAST(count(*) AS INTEGER) AS n FROM api_keys");
    expect(hashes!.n).toBeGreaterThanOrEqual(4);
  });

  sqliteOnly("the raw bytes of the SQLite file and its WAL hold none of them", () => {
    const files = [t.dbPath, `${t.dbPath}-wal`].filter((file) => existsSync(file)).map((file) => readFileSync(file));
    expect(files).toHaveLength(2);
    // The files hold what was written: a handle, the webhook's current secret.
    expect(files.some((bytes) => bytes.includes("alicemakes"))).toBe(true);
    expect(files.some((bytes) => bytes.includes(currentWebhookSecret))).toBe(true);
    for (const [name, secret] of Object.entries(secrets)) {
      // A rotated-away webhook secret was legitimately in its endpoint's row: old page copies may remain.
      if (name === "webhookSecretRotatedAway") continue;
      expect({ name, found: files.map((bytes) => occurrences(bytes, secret)) }).toEqual({ name, found: [0, 0] });
    }
  });

  sqliteOnly("a backup holds the webhook secret once (its endpoint's row) and nothing else", () => {
    const bytes = readFileSync(backupPath!);
    expect(occurrences(bytes, currentWebhookSecret)).toBe(1);
    for (const [name, secret] of Object.entries(secrets)) expect({ name, found: occurrences(bytes, secret) }).toEqual({ name, found: 0 });
  });

  test("an export holds none of them, not even the webhook secret", () => {
    expect(exportText).toContain('"type":"account"');
    for (const secret of [...Object.values(secrets), currentWebhookSecret]) expect(occurrences(exportText, secret)).toBe(0);
  });

  test("the log lines (access log included) and /metrics hold none of them", () => {
    // The requests were logged, the sign-in link's path without its query.
    expect(logged).toContain('"path":"/v1/admin/keys/');
    expect(logged).toContain('"path":"/auth/magic"');
    expect(logged).toContain("http_requests_total");
    for (const secret of [...Object.values(secrets), currentWebhookSecret]) expect(occurrences(logged, secret)).toBe(0);
    expect(logged).not.toMatch(/tl_live_[A-Za-z0-9]{32}|whsec_|token=/);
  });
});
