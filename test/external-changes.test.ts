// Another process's changes (the CLI's revoke, rotate, suspend, blacklist add) apply from the very
// next request: the store's one change notifier reads SQLite's data_version before the first
// request of each turn of the event loop and tells every cache (on PostgreSQL, the commit's
// notification does). Real CLI processes on the app's database, requests over loopback HTTP as a
// client sends them (so each arrives in a turn of its own), no sleep between.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { TransferService } from "../src/modules/transfer/service";
import { sqliteOnly, whenCommitArrives } from "./backend";
import { createTestApp, expectEnvelope, type TestApp } from "./helpers";

const MAIN = join(import.meta.dir, "..", "src", "main.ts");
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ http: true });
});
afterAll(() => t.close());

function cli(...args: string[]): string {
  const proc = Bun.spawnSync([process.execPath, MAIN, ...args, "--db", t.dbPath], { stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0) throw new Error(`${args.join(" ")} failed: ${proc.stderr}`);
  return proc.stdout.toString();
}

const check = (key: string, id = "1") => t.json("GET", `/v1/blacklist/check?provider=discord&id=${id}`, { key });

test("a key revoked by the CLI gets 401 on the very next request", async () => {
  const { key, keyId } = await t.account();
  expect((await check(key)).status).toBe(200);
  cli("keys", "revoke", keyId);
  await whenCommitArrives(async () => expectEnvelope(await check(key), 401, "unauthorized"));
});

test("a key rotated by the CLI: the old secret gets 401 and the new one works on the very next request", async () => {
  const { key, keyId } = await t.account();
  expect((await check(key)).status).toBe(200);
  const rotated = JSON.parse(cli("keys", "rotate", keyId, "--json"));
  await whenCommitArrives(async () => expectEnvelope(await check(key), 401, "unauthorized"));
  expect((await check(rotated.key)).status).toBe(200);
});

test("an account suspended by the CLI gets 402 on the very next request, and works again once resumed", async () => {
  const name = `guild-${Math.random().toString(36).slice(2, 8)}`;
  const { key } = await t.account({ name });
  expect((await check(key)).status).toBe(200);
  cli("accounts", "update", name, "--suspend");
  await whenCommitArrives(async () => expectEnvelope(await check(key), 402, "subscription_required"));
  cli("accounts", "update", name, "--resume");
  await whenCommitArrives(async () => expect((await check(key)).status).toBe(200));
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
  await whenCommitArrives(async () => expectEnvelope(await check(key), 401, "unauthorized"));
});
