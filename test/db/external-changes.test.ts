// Another process's changes (the CLI's revoke, rotate, suspend, blacklist add) apply from the very
// next request: the store's one change notifier reads SQLite's data_version before the first
// request of each turn of the event loop and tells every cache. On PostgreSQL a keyed request
// reads the keys' version row (moved by a trigger in the revoking transaction) the same way, so
// key and account changes apply from the next request there too; a blacklist add reaches the
// caches by the commit's notification, a moment later (`whenCommitArrives`). Real CLI processes on
// the app's database, requests over loopback HTTP as a client sends them (so each arrives in a
// turn of its own), no sleep between.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { TransferService } from "../../src/modules/transfer/service";
import { sqliteOnly, whenCommitArrives, writeAsAnotherProcess } from "../backend";
import { trustlist } from "../cli-helpers";
import { createTestApp, expectEnvelope, type TestApp } from "../helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ http: true });
});
afterAll(() => t.close());

function cli(...args: string[]): string {
  const proc = Bun.spawnSync([trustlist(), ...args, "--db", t.dbPath], { stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0) throw new Error(`${args.join(" ")} failed: ${proc.stderr}`);
  return proc.stdout.toString();
}

const check = (key: string, id = "1") => t.json("GET", `/v1/blacklist/check?provider=discord&id=${id}`, { key });

test("a key revoked by the CLI gets 401 on the very next request", async () => {
  const { key, keyId } = await t.account();
  expect((await check(key)).status).toBe(200);
  cli("keys", "revoke", keyId);
  expectEnvelope(await check(key), 401, "unauthorized");
});

test("a key rotated by the CLI: the old secret gets 401 and the new one works on the very next request", async () => {
  const { key, keyId } = await t.account();
  expect((await check(key)).status).toBe(200);
  const rotated = JSON.parse(cli("keys", "rotate", keyId, "--json"));
  expectEnvelope(await check(key), 401, "unauthorized");
  expect((await check(rotated.key)).status).toBe(200);
});

test("an account suspended by the CLI gets 402 on the very next request, and works again once resumed", async () => {
  const name = `guild-${Math.random().toString(36).slice(2, 8)}`;
  const { key } = await t.account({ name });
  expect((await check(key)).status).toBe(200);
  cli("accounts", "update", name, "--suspend");
  expectEnvelope(await check(key), 402, "subscription_required");
  cli("accounts", "update", name, "--resume");
  expect((await check(key)).status).toBe(200);
});

test("a revoke written with plain SQL and never announced (an operator's shell) applies from the next request", async () => {
  const { key, keyId } = await t.account();
  const other = await t.account();
  for (let i = 0; i < 3; i++) expect((await check(key)).status).toBe(200);
  await writeAsAnotherProcess(t.dbPath, "UPDATE api_keys SET revoked_at = $1 WHERE id = $2", [t.clock.now(), keyId], { announce: false });
  for (let i = 0; i < 3; i++) expectEnvelope(await check(key), 401, "unauthorized");
  // Only that key: the account's other keys and other accounts' keys still work.
  expect((await check(other.key)).status).toBe(200);
});

test("a suspension written with plain SQL and never announced applies from the next request, to every key of the account", async () => {
  const { key, accountId } = await t.account();
  const second = (await t.services.accounts.createKey({ account: accountId, scope: "read", rate_tier: "free" })).key;
  expect((await check(key)).status).toBe(200);
  expect((await check(second)).status).toBe(200);
  await writeAsAnotherProcess(t.dbPath, "UPDATE accounts SET status = 'suspended' WHERE id = $1", [accountId], { announce: false });
  expectEnvelope(await check(key), 402, "subscription_required");
  expectEnvelope(await check(second), 402, "subscription_required");
});

test("an entry the CLI adds is banned on the very next check, also for a subject the filter had answered clean", async () => {
  const { key } = await t.account({ burst: 1000 });
  expect((await check(key, "31337")).body.banned).toBe(false);
  cli("blacklist", "add", "--provider", "discord", "--id", "31337", "--severity", "ban", "--reason-code", "scam");
  await whenCommitArrives(async () => expect((await check(key, "31337")).body.banned).toBe(true));
  // Unlisted subjects keep their clean answer while the filter takes the new row in.
  expect((await check(key, "31338")).body.banned).toBe(false);
});

sqliteOnly("after an import in this process (which leaves WAL for its commit and comes back), a CLI revoke still applies on the next request", async () => {
  const { key, keyId } = await t.account();
  const file = join(t.dir, "one-entry.jsonl");
  writeFileSync(
    file,
    JSON.stringify({ type: "entry", provider: "discord", provider_user_id: "4242", severity: "ban", reason_code: "scam", scope: "global", vertical: "all", appealable: true }) + "\n",
  );
  await new TransferService(t.runtime.store, t.services, t.clock).importFile(file);
  expect(t.sqlite.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()!.journal_mode).toBe("wal");
  expect((await check(key, "4242")).body.banned).toBe(true);
  cli("keys", "revoke", keyId);
  expectEnvelope(await check(key), 401, "unauthorized");
});
