// The command line and the server process as an operator meets them: real processes, real
// SQLite files, real HTTP on loopback.
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import packageJson from "../../package.json" with { type: "json" };
import { cli, cliJson, migratedWorkspace, startServer, trustlist, workspace } from "../cli-helpers";

function countEntries(db: string): number {
  const sqlite = new Database(db, { readonly: true });
  const n = (sqlite.query("SELECT count(*) AS n FROM blacklist_entries").get() as { n: number }).n;
  sqlite.close();
  return n;
}

describe("accounts and keys", () => {
  test("create, list, revoke and rotate print JSON and never a stored secret", () => {
    const { db } = migratedWorkspace();
    const account = cliJson(db, "accounts", "create", "--name", "guild", "--tier", "pro");
    expect(account).toMatchObject({ name: "guild", tier: "pro", daily_quota: 1000, status: "active" });
    expect(account.id).toStartWith("acct_");

    const key = cliJson(db, "keys", "create", "--account", "guild", "--scope", "write", "--rate-tier", "verified", "--name", "bot");
    expect(key.key).toMatch(/^tl_live_[A-Za-z0-9]{32}$/);
    expect(key).toMatchObject({ account_id: account.id, scope: "write", rate_tier: "verified", name: "bot" });

    const listed = cli(db, "keys", "list", "--account", "guild", "--json");
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(key.key);
    expect(listed.stdout).not.toContain(new Bun.CryptoHasher("sha256").update(key.key).digest("hex"));
    expect(JSON.parse(listed.stdout).data).toHaveLength(1);

    const rotated = cliJson(db, "keys", "rotate", key.id);
    expect(rotated.id).toBe(key.id);
    expect(rotated.key).not.toBe(key.key);

    const revoked = cliJson(db, "keys", "revoke", key.id);
    expect(revoked.revoked_at).not.toBeNull();

    const updated = cliJson(db, "accounts", "update", "guild", "--daily-quota", "42", "--suspend");
    expect(updated).toMatchObject({ daily_quota: 42, daily_quota_override: 42, status: "suspended" });
  }, 30_000);

  test("the plan's key cap is enforced with a clear message", () => {
    const { db } = migratedWorkspace();
    cliJson(db, "accounts", "create", "--name", "small", "--tier", "free");
    cliJson(db, "keys", "create", "--account", "small");
    cliJson(db, "keys", "create", "--account", "small");
    const third = cli(db, "keys", "create", "--account", "small");
    expect(third.code).not.toBe(0);
    expect(third.stderr).toContain("free plan allows (2)");
  }, 30_000);

  test("bad flags and values exit non-zero with one line", () => {
    const { db } = migratedWorkspace();
    const cases = [
      ["accounts", "create", "--name", "x", "--tier", "gold"],
      ["accounts", "create", "--tier", "free"],
      ["keys", "create", "--account", "nobody", "--bogus"],
      ["keys", "create", "--account", "x", "--burst", "-3"],
      ["blacklist", "add", "--provider", "myspace", "--id", "1", "--severity", "ban", "--reason-code", "x"],
      ["accounts", "update", "x", "--daily-quota", "lots"],
      ["frobnicate"],
      ["serve", "--port", "99999"],
    ];
    for (const args of cases) {
      const result = cli(db, ...args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr.trim().split("\n"), args.join(" ")).toHaveLength(1);
      expect(result.stderr).toStartWith("trustlist ");
    }
    const missing = cli(db, "keys", "revoke", "key_doesnotexist");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("No key key_doesnotexist");
  }, 30_000);
});

describe("blacklist from the command line", () => {
  test("add and overturn follow the API's rules", () => {
    const { db } = migratedWorkspace();
    const entry = cliJson(db, "blacklist", "add", "--provider", "discord", "--id", " 80351110224678912 ", "--severity", "ban", "--reason-code", "scam_trade", "--summary", "Took payment", "--appealable", "--username", "Scammer");
    expect(entry).toMatchObject({ provider: "discord", provider_user_id: "80351110224678912", severity: "ban", scope: "global", vertical: "all", appealable: true, username: "Scammer" });
    const bad = cli(db, "blacklist", "add", "--provider", "discord", "--id", "not-digits", "--severity", "ban", "--reason-code", "x");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("not a valid discord user id");
    const mismatch = cli(db, "blacklist", "add", "--provider", "roblox", "--id", "1", "--severity", "warn", "--scope", "vertical", "--reason-code", "x");
    expect(mismatch.code).toBe(1);
    expect(mismatch.stderr).toContain("names one vertical");

    const overturned = cliJson(db, "blacklist", "overturn", entry.id, "--reason", "appeal upheld");
    expect(overturned).toMatchObject({ id: entry.id, status: "overturned" });
    const again = cli(db, "blacklist", "overturn", entry.id);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("not active");
  }, 30_000);
});

describe("import and export", () => {
  const good = [
    { type: "account", name: "guild-a", tier: "max", daily_quota: 7000 },
    { type: "entry", provider: "discord", provider_user_id: "111", severity: "ban", scope: "global", vertical: "all", reason_code: "scam", appealable: true, issued_at: "2026-01-01T00:00:00Z" },
    { type: "entry", id: "bl_01kdvdna009aqnt2ae7ejrkvaj", provider: "roblox", provider_user_id: "222", username: "Trader", severity: "warn", scope: "vertical", vertical: "roblox", reason_code: "spam", summary: "Spam", appealable: false, high_risk: true, issued_at: "2026-02-01T00:00:00Z", expires_at: "2027-02-01T00:00:00Z" },
    { type: "entry", provider: "epic", provider_user_id: "ABCDEF", severity: "restrict", scope: "global", vertical: "all", reason_code: "chargeback", appealable: true, watchlist: true, status: "active" },
  ];

  test("a file with one bad line changes nothing and names the line", () => {
    const { dir, db } = workspace();
    cliJson(db, "migrate");
    const file = join(dir, "bad.jsonl");
    const lines = good.map((l) => JSON.stringify(l));
    lines.splice(2, 0, JSON.stringify({ type: "entry", provider: "discord", provider_user_id: "12x", severity: "ban", scope: "global", vertical: "all", reason_code: "scam", appealable: true }));
    writeFileSync(file, lines.join("\n") + "\n");
    const result = cli(db, "import", file);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("line 3");
    expect(countEntries(db)).toBe(0);
    const accounts = cliJson(db, "accounts", "list");
    expect(accounts.data).toHaveLength(0);

    for (const [bad, message] of [
      ["{not json", "line 1: not valid JSON"],
      [JSON.stringify({ type: "entry", provider: "discord" }), "line 1: missing field"],
      [JSON.stringify({ type: "spaceship" }), "line 1: unknown type 'spaceship'"],
      [JSON.stringify({ ...good[1], colour: "red" }), "line 1: field 'colour'"],
    ] as const) {
      writeFileSync(file, bad + "\n");
      const r = cli(db, "import", file);
      expect(r.code, bad).not.toBe(0);
      expect(r.stderr, bad).toContain(message);
    }
    expect(countEntries(db)).toBe(0);
  }, 30_000);

  test("export then import into an empty database round-trips", () => {
    const a = workspace();
    const file = join(a.dir, "in.jsonl");
    writeFileSync(file, good.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const imported = cliJson(a.db, "import", file);
    expect(imported).toMatchObject({ lines: 4, accounts: 1, entries: 3 });
    // Importing the same ids again is refused, whole.
    const again = cli(a.db, "import", file);
    expect(again.code).not.toBe(0);
    expect(countEntries(a.db)).toBe(3);

    const exported = join(a.dir, "out.jsonl");
    cliJson(a.db, "export", "--out", exported);
    const first = Bun.spawnSync(["cat", exported]).stdout.toString();
    expect(first.trim().split("\n")).toHaveLength(4);
    expect(first).toContain('"high_risk":true');
    expect(first).toContain('"watchlist":true');

    const b = workspace();
    cliJson(b.db, "import", exported);
    const second = cli(b.db, "export").stdout;
    expect(second).toBe(first);
  }, 30_000);

  test("a file large enough for the bulk path leaves an intact database that answers like any other", async () => {
    // Over 8 MB: the entries are prepared on a second thread, the indexes are rebuilt at the end
    // with SQLite's sorter in runs on temporary files, and 1,200 creators are scored before the
    // entries are stored, then rescored where the entries penalise them.
    const { dir, db } = workspace();
    const rows: object[] = [];
    for (let i = 0; i < 1_200; i++) {
      rows.push({ type: "creator", handle: `maker${i}`, verification_level: 1, joined_at: "2026-01-01T00:00:00Z" });
      rows.push({ type: "connection", creator: `maker${i}`, provider: "roblox", provider_user_id: String(70_000 + i), provider_username: `rbx_maker${i}`, public: true });
    }
    const entry = { type: "entry", severity: "warn", scope: "global", vertical: "all", reason_code: "scam", appealable: true, summary: "Took the payment and never delivered the commissioned map." };
    const entries = 40_000;
    for (let i = 0; i < entries; i++) rows.push({ ...entry, provider: "discord", provider_user_id: String(1_000_000 + i), username: `suspect_${i % 9_000}` });
    // Named by linked account near the file's end (prepared on the import thread) and by handle.
    rows.push({ ...entry, provider: "roblox", provider_user_id: "70007", severity: "ban" });
    rows.push({ ...entry, provider: "epic", provider_user_id: "EPIC11", creator: "maker11", severity: "ban" });
    const file = join(dir, "large.jsonl");
    writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    expect(Bun.file(file).size).toBeGreaterThan(8 * 1024 * 1024);
    expect(cliJson(db, "import", file)).toMatchObject({ creators: 1_200, connections: 1_200, entries: entries + 2 });

    const sqlite = new Database(db, { readonly: true });
    try {
      // Every index holds exactly the table's rows.
      expect(sqlite.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
      const count = (sql: string) => (sqlite.query(sql).get() as { n: number }).n;
      expect(count("SELECT count(*) AS n FROM blacklist_entries INDEXED BY blacklist_subject_idx WHERE provider = 'discord'")).toBe(entries);
      expect(count("SELECT count(*) AS n FROM blacklist_entries INDEXED BY blacklist_username_idx WHERE lower(username) = 'suspect_42' AND username IS NOT NULL")).toBe(5);
      expect(count("SELECT count(*) AS n FROM search_names WHERE entry_refs > 0")).toBe(9_000);
      expect(count("SELECT count(*) AS n FROM blacklist_changes")).toBe(entries + 2);
      const blacklisted = sqlite.query("SELECT handle FROM creators WHERE blacklisted ORDER BY handle").all();
      expect(blacklisted).toEqual([{ handle: "maker11" }, { handle: "maker7" }]);
    } finally {
      sqlite.close();
    }
    // The server answers from it: a keyed check and a keyless search.
    cliJson(db, "accounts", "create", "--name", "bulk", "--tier", "pro");
    const key = cliJson(db, "keys", "create", "--account", "bulk").key as string;
    // Not a first start: a key exists, so no admin key is printed.
    const server = await startServer([trustlist()], db, undefined, false);
    try {
      const check = await (await fetch(`${server.base}/v1/blacklist/check?provider=discord&id=1000042`, { headers: { authorization: `Bearer ${key}` } })).json();
      expect(check).toMatchObject({ banned: false, severity: "warn" });
      const search = (await (await fetch(`${server.base}/v1/public/blacklist/check?q=rbx_maker7`)).json()) as { platforms: Array<{ id: string }> };
      expect(search.platforms.map((p) => p.id)).toEqual(["70007"]);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 60_000);
});

describe("import and export of every record type", () => {
  const fixture = [
    { type: "account", name: "guild-b", tier: "pro", status: "suspended" },
    { type: "creator", id: "crt_01kdvdna009aqnt2ae7ejrkvaa", handle: "alice", display_name: "Alice <Makes>", verification_level: 3, karma: 12, joined_at: "2025-06-01T00:00:00.000Z", avatar_r2_key: "avatars/alice.png" },
    { type: "creator", handle: "bob", verification_level: 1, joined_at: "2026-01-01T00:00:00.000Z" },
    { type: "creator", handle: "carol", verification_level: 0, joined_at: "2026-03-01T00:00:00.000Z" },
    { type: "connection", creator: "alice", provider: "discord", provider_user_id: "80351110224678912", provider_username: "alice", verified_at: "2026-01-02T00:00:00.000Z", public: true },
    { type: "connection", creator: "alice", provider: "github", provider_user_id: "alice-gh", provider_url: "https://github.com/alice-gh", public: false },
    { type: "connection", creator: "bob", provider: "roblox", provider_user_id: "1234567", provider_username: "BobRBX", public: true },
    { type: "entry", id: "bl_01kdvdna009aqnt2ae7ejrkvab", provider: "roblox", provider_user_id: "1234567", username: "BobRBX", severity: "ban", scope: "global", vertical: "all", reason_code: "scam", appealable: true, issued_at: "2026-04-01T00:00:00.000Z" },
    { type: "entry", provider: "discord", provider_user_id: "5", severity: "warn", scope: "global", vertical: "all", reason_code: "spam", appealable: true, creator: "carol", issued_at: "2026-04-02T00:00:00.000Z" },
    { type: "deal", id: "deal_01kdvdna009aqnt2ae7ejrkvac", from: "alice", to: "carol", status: "completed", created_at: "2026-05-01T00:00:00.000Z" },
    { type: "deal", id: "deal_01kdvdna009aqnt2ae7ejrkvad", from: "carol", to: "bob", status: "declined", created_at: "2026-05-02T00:00:00.000Z" },
    { type: "review", from: "carol", to: "alice", rating: 5, created_at: "2026-05-03T00:00:00.000Z" },
    { type: "vouch", from: "bob", to: "alice", message: "Great builder", created_at: "2026-05-04T00:00:00.000Z" },
    { type: "referral", referrer: "alice", referred: "carol", created_at: "2026-05-05T00:00:00.000Z" },
    { type: "server", platform: "discord", server_id: "1042345678901234567", name: "Builders Hub", created_at: "2026-05-06T00:00:00.000Z" },
  ];

  const creatorRow = (db: string, handle: string) => {
    const sqlite = new Database(db, { readonly: true });
    try {
      return sqlite.query("SELECT trust_score, trust_band, blacklisted, deal_count, vouch_count, review_count FROM creators WHERE handle = ?").get(handle) as Record<string, number | string>;
    } finally {
      sqlite.close();
    }
  };

  test("a fixture with every type imports, computes scores, and round-trips through export", () => {
    const a = workspace();
    const file = join(a.dir, "all.jsonl");
    writeFileSync(file, fixture.map((l) => JSON.stringify(l)).join("\n") + "\n");
    expect(cliJson(a.db, "import", file)).toMatchObject({
      lines: 15, accounts: 1, creators: 3, connections: 3, entries: 2, deals: 2, reviews: 1, vouches: 1, referrals: 1, servers: 1,
    });
    // Scores are computed from the imported rows: bob's Roblox account is banned, carol has a warn.
    expect(creatorRow(a.db, "bob")).toMatchObject({ blacklisted: 1, trust_band: "banned", trust_score: 0 });
    expect(creatorRow(a.db, "carol")).toMatchObject({ blacklisted: 0, deal_count: 1, trust_score: 100 + 3 - 25 + Math.min(Math.floor((Date.now() - Date.parse("2026-03-01")) / 86_400_000 / 30), 12) });
    expect(creatorRow(a.db, "alice")).toMatchObject({ deal_count: 1, vouch_count: 1, review_count: 1 });

    const exported = join(a.dir, "out.jsonl");
    expect(cliJson(a.db, "export", "--out", exported)).toMatchObject({ lines: 15 });
    const first = Bun.spawnSync(["cat", exported]).stdout.toString();
    const lines = first.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(["account", "creator", "creator", "creator", "connection", "connection", "connection", "entry", "entry", "deal", "deal", "review", "vouch", "referral", "server"]);
    // Ids are kept, and every fixture line comes back with the values it went in with.
    for (const line of fixture) expect(lines).toContainEqual(expect.objectContaining(line));

    const b = workspace();
    cliJson(b.db, "import", exported);
    expect(cli(b.db, "export").stdout).toBe(first);
    expect(creatorRow(b.db, "bob")).toEqual(creatorRow(a.db, "bob"));
  }, 30_000);

  test("a line that breaks a rule aborts the whole import with its line number", () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: "connection", creator: "nobody", provider: "discord", provider_user_id: "1", public: true }, "creator 'nobody' is not defined"],
      [{ type: "review", from: "bob", to: "carol", rating: 4 }, "no completed deal"],
      [{ type: "vouch", from: "alice", to: "alice" }, "cannot vouch for themselves"],
      [{ type: "vouch", from: "bob", to: "alice" }, "already vouched"],
      [{ type: "creator", handle: "alice", verification_level: 0, joined_at: "2026-01-01T00:00:00Z" }, "appears twice"],
      [{ type: "deal", from: "alice", to: "bob", status: "lost" }, "field 'status'"],
    ];
    for (const [bad, message] of cases) {
      const { dir, db } = workspace();
      const file = join(dir, "bad.jsonl");
      writeFileSync(file, [...fixture, bad].map((l) => JSON.stringify(l)).join("\n") + "\n");
      const result = cli(db, "import", file);
      expect(result.code, message).toBe(1);
      expect(result.stderr, message).toContain(`line ${fixture.length + 1}`);
      expect(result.stderr, message).toContain(message);
      const sqlite = new Database(db, { readonly: true });
      expect((sqlite.query("SELECT count(*) AS n FROM creators").get() as { n: number }).n, message).toBe(0);
      sqlite.close();
    }
  }, 30_000);
});

describe("the server process", () => {
  test("first serve prints one admin key; metering and quota survive a SIGTERM restart", async () => {
    const { db } = workspace();
    const server = await startServer([trustlist()], db);
    const adminKey = server.stderr.match(/tl_live_\w{32}/)![0];
    const auth = { authorization: `Bearer ${adminKey}` };
    const created = await fetch(`${server.base}/v1/admin/accounts`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ name: "bot-owner", tier: "free" }),
    });
    expect(created.status).toBe(201);
    const account = (await created.json()) as { id: string };
    const keyRes = await fetch(`${server.base}/v1/admin/accounts/${account.id}/keys`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: "{}" });
    const { key } = (await keyRes.json()) as { key: string };
    for (let i = 0; i < 7; i++) {
      const r = await fetch(`${server.base}/v1/blacklist/check?provider=discord&id=${1000 + i}`, { headers: { authorization: `Bearer ${key}` } });
      expect(r.status).toBe(200);
      expect(r.headers.get("x-ratelimit-remaining")).toBe(String(100 - (i + 1)));
    }
    // SIGTERM right away: the flush on shutdown, not the one-second timer, has to persist these.
    expect(await server.stop()).toBe(0);

    const restarted = await startServer([trustlist()], db, undefined, false);
    expect(restarted.stderr).not.toContain("tl_live_");
    const usage = await fetch(`${restarted.base}/v1/account/usage`, { headers: { authorization: `Bearer ${key}` } });
    const stats = (await usage.json()) as any;
    expect(stats.rate_limit.used).toBe(8);
    expect(stats.total_requests).toBe(8);
    expect(stats.by_endpoint).toEqual([
      { endpoint: "GET /v1/blacklist/check", count: 7 },
      { endpoint: "GET /v1/account/usage", count: 1 },
    ]);
    expect(usage.headers.get("x-ratelimit-remaining")).toBe("92");
    expect(await restarted.stop()).toBe(0);
  }, 30_000);

  test("backup while the server runs gives a readable copy; CLI revocation reaches the server", async () => {
    const { dir, db } = workspace();
    const server = await startServer([trustlist()], db);
    const adminKey = server.stderr.match(/tl_live_\w{32}/)![0];
    const headers = { authorization: `Bearer ${adminKey}`, "content-type": "application/json" };
    for (let i = 0; i < 25; i++) {
      const r = await fetch(`${server.base}/v1/partner/blacklist`, {
        method: "POST",
        headers,
        body: JSON.stringify({ provider: "roblox", provider_user_id: String(5000 + i), severity: "ban", reason_code: "scam" }),
      });
      expect(r.status).toBe(201);
    }
    const out = join(dir, "copy.db");
    const backup = cli(db, "backup", out);
    expect(backup.code).toBe(0);
    const copy = new Database(out, { readonly: true });
    expect((copy.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check).toBe("ok");
    expect((copy.query("SELECT count(*) AS n FROM blacklist_entries").get() as { n: number }).n).toBe(25);
    copy.close();
    expect(cli(db, "backup", out).code).toBe(2);

    // A key revoked by another process stops working from the very next request.
    const key = cliJson(db, "keys", "create", "--account", "operator", "--json");
    const ok = await fetch(`${server.base}/v1/blacklist/check?provider=discord&id=1`, { headers: { authorization: `Bearer ${key.key}` } });
    expect(ok.status).toBe(200);
    cliJson(db, "keys", "revoke", key.id);
    const refused = await fetch(`${server.base}/v1/blacklist/check?provider=discord&id=1`, { headers: { authorization: `Bearer ${key.key}` } });
    expect(refused.status).toBe(401);

    // An entry added from the command line is seen by the very next check, without waiting.
    const probe = () => fetch(`${server.base}/v1/blacklist/check?provider=discord&id=424242`, { headers: { authorization: `Bearer ${adminKey}` } });
    expect(((await (await probe()).json()) as { banned: boolean }).banned).toBe(false);
    cliJson(db, "blacklist", "add", "--provider", "discord", "--id", "424242", "--severity", "ban", "--reason-code", "scam");
    expect(((await (await probe()).json()) as { banned: boolean }).banned).toBe(true);
    expect(await server.stop()).toBe(0);
  }, 30_000);

  test("the compiled binary runs from any directory with nothing beside it", async () => {
    const { db } = workspace();
    const binary = trustlist();
    const { dir: elsewhere } = workspace("trustlist-cwd-");
    const server = await startServer([binary], db, elsewhere);
    const health = await fetch(`${server.base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    const adminKey = server.stderr.match(/tl_live_\w{32}/)![0];
    const check = await fetch(`${server.base}/v1/blacklist/check?provider=discord&id=1`, { headers: { authorization: `Bearer ${adminKey}` } });
    expect(check.status).toBe(200);
    expect(check.headers.get("x-request-id")).toBeTruthy();
    const docs = await fetch(`${server.base}/docs`);
    expect(docs.status).toBe(200);
    const script = await fetch(`${server.base}/docs/assets/scalar.js`);
    expect(script.status).toBe(200);
    expect((await script.text()).length).toBeGreaterThan(100_000);
    const spec = (await (await fetch(`${server.base}/openapi.json`)).json()) as any;
    expect(spec.info.version).toBe("1.0.0");
    // The binary carries package.json's version and the commit it was built from, with neither
    // package.json nor a checkout around it (src/version.ts).
    const head = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"]).stdout.toString().trim();
    expect(Bun.spawnSync([binary, "--version"], { cwd: elsewhere }).stdout.toString().trim()).toBe(`trustlist ${packageJson.version} (commit ${head})`);
    expect(await server.stop()).toBe(0);
  }, 60_000);
});
