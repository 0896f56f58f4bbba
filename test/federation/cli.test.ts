// The operator's commands, as child processes on a real SQLite file: instance show and rotate-key
// (fingerprints, never the private key), accounts update --federation, sources add|list|sync|
// update|remove against a publisher served on loopback, and exemptions add|list|remove.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect } from "bun:test";
import { sqliteOnly } from "../backend";
import { cli, cliJson, migratedWorkspace, type Ran, trustlist } from "../cli-helpers";
import { addEntry, followerKey, type Instance, instance, sharedClock } from "./kit";

let publisher: Instance;
beforeAll(async () => {
  publisher = await instance(sharedClock());
});
afterAll(() => publisher.close());

const privateKeys = (db: string) => {
  const sqlite = new Database(db, { readonly: true });
  try {
    return sqlite.query<{ private_key: string }, []>("SELECT private_key FROM federation_keys").all().map((row) => row.private_key);
  } finally {
    sqlite.close();
  }
};

sqliteOnly("instance show and rotate-key print ids and fingerprints, never a private key", () => {
  const { db } = migratedWorkspace();
  const shown = cliJson(db, "instance", "show");
  expect(shown.id).toMatch(/^inst_/);
  expect(shown.keys).toHaveLength(1);
  expect(shown.keys[0]).toMatchObject({ current: true, retired_at: null, endorsed_by: null });
  expect(shown.keys[0].fingerprint).toMatch(/^[0-9a-f]{64}$/);
  const rotated = cliJson(db, "instance", "rotate-key");
  expect(rotated.id).toBe(shown.id);
  expect(rotated.keys).toHaveLength(2);
  expect(rotated.keys[1]).toMatchObject({ current: true, endorsed_by: shown.keys[0].kid });
  const human = cli(db, "instance", "show");
  expect(human.code).toBe(0);
  expect(human.stdout).toContain(`sha256:${rotated.keys[1].fingerprint}`);
  for (const secret of privateKeys(db)) {
    expect(human.stdout + JSON.stringify(shown) + JSON.stringify(rotated)).not.toContain(secret);
  }
});

sqliteOnly("accounts update --federation on|off", () => {
  const { db } = migratedWorkspace();
  cliJson(db, "accounts", "create", "--name", "next-door", "--tier", "pro");
  expect(cliJson(db, "accounts", "update", "next-door", "--federation", "on").federation).toBe(true);
  expect(cli(db, "accounts", "list").stdout).toContain("federation=on");
  expect(cliJson(db, "accounts", "update", "next-door", "--federation", "off").federation).toBe(false);
  const bad = cli(db, "accounts", "update", "next-door", "--federation", "maybe");
  expect(bad.code).not.toBe(0);
});

/** `trustlist ARGS --db DB` without blocking: the publisher answers from this same process. */
async function cliAsync(db: string, ...args: string[]): Promise<Ran> {
  const proc = Bun.spawn([trustlist(), ...args, "--db", db], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

async function cliAsyncJson(db: string, ...args: string[]) {
  const ran = await cliAsync(db, ...args, "--json");
  if (ran.code !== 0) throw new Error(`${args.join(" ")} failed: ${ran.stderr}`);
  return JSON.parse(ran.stdout);
}

sqliteOnly("sources add|list|sync|update|remove and exemptions add|list|remove, on a publisher on loopback", async () => {
  const { db } = migratedWorkspace();
  const key = await followerKey(publisher);
  const entry = await addEntry(publisher, { severity: "ban" });
  const account = (await publisher.rows<{ provider_user_id: string }>("SELECT provider_user_id FROM blacklist_entries WHERE id = ?", entry.id))[0]!.provider_user_id;

  const added = await cliAsync(db, "sources", "add", "alpha", "--url", publisher.url, "--key", key, "--max-severity", "restrict", "--interval", "30");
  expect(added.code, added.stderr).toBe(0);
  expect(added.stdout).toMatch(/sha256:[0-9a-f]{64}/);
  expect(added.stdout).not.toContain(key);
  expect((await cliAsync(db, "sources", "add", "beta", "--url", publisher.url, "--key", key, "--interval", "2")).code).not.toBe(0);

  const synced = await cliAsyncJson(db, "sources", "sync", "alpha");
  expect(synced).toMatchObject({ name: "alpha", error: null });
  expect(synced.applied).toBeGreaterThanOrEqual(1);
  const [listed] = cliJson(db, "sources", "list");
  expect(listed).toMatchObject({ name: "alpha", policy: "apply", max_severity: "restrict", interval_s: 30, entries_held: synced.applied, last_error: null });
  expect(JSON.stringify(listed)).not.toContain(key);
  expect(Object.keys(listed)).toEqual(expect.arrayContaining(["name", "url", "policy", "max_severity", "verticals", "reason_codes", "interval_s", "cursor", "last_synced_at", "entries_held", "last_error"]));

  const exempted = cliJson(db, "exemptions", "add", "--provider", "discord", "--id", account, "--reason", "cleared here");
  expect(exempted.entries_overturned).toBe(1);
  expect(cliJson(db, "exemptions", "list").data).toHaveLength(1);
  expect(cliJson(db, "exemptions", "remove", exempted.id)).toMatchObject({ removed: true, entries_applied: 1 });

  expect(cliJson(db, "sources", "update", "alpha", "--policy", "watch").policy).toBe("watch");
  expect(cli(db, "sources", "update", "alpha").code).not.toBe(0);
  const removed = cliJson(db, "sources", "remove", "alpha");
  expect(removed.entries_overturned).toBe(synced.applied);
  expect(cliJson(db, "sources", "list")).toEqual([]);
  expect((await cliAsync(db, "sources", "sync", "alpha")).code).not.toBe(0);
});
