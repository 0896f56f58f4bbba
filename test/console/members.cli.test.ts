// `trustlist accounts add-member|remove-member|members` as an operator runs them: a member added on
// the command line is listed, a role change keeps the membership, a removal ends it, each is
// audited, members travel in the export, and bad input fails clearly without changing anything.
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, cliJson, migratedWorkspace, workspace } from "../cli-helpers";

function setUp() {
  const ws = migratedWorkspace();
  const file = join(ws.dir, "seed.jsonl");
  writeFileSync(
    file,
    [
      { type: "account", name: "guild", tier: "free" },
      { type: "creator", handle: "alice", verification_level: 1, joined_at: "2026-01-01T00:00:00Z" },
    ]
      .map((l) => JSON.stringify(l))
      .join("\n") + "\n",
  );
  cliJson(ws.db, "import", file);
  return ws;
}

describe("trustlist accounts add-member|remove-member|members", () => {
  test("adds a developer by default, changes the role, removes; each says what it did", () => {
    const { db } = setUp();
    const added = cliJson(db, "accounts", "add-member", "guild", "@Alice");
    expect(added).toMatchObject({ handle: "alice", role: "developer" });
    expect(Date.parse(added.added_at)).toBeGreaterThan(0);
    const owner = cli(db, "accounts", "add-member", "guild", "alice", "--role", "owner");
    expect(owner.code).toBe(0);
    expect(owner.stdout.trim()).toBe("@alice is owner of guild");
    // A role change keeps when the membership began.
    expect(cliJson(db, "accounts", "add-member", "guild", "alice", "--role", "owner").added_at).toBe(added.added_at);
    expect(cliJson(db, "accounts", "members", "guild").data).toEqual([{ handle: "alice", role: "owner", added_at: added.added_at }]);
    expect(cli(db, "accounts", "members", "guild").stdout.trim()).toBe(`@alice  owner  since ${added.added_at}`);
    expect(cliJson(db, "accounts", "remove-member", "guild", "alice")).toEqual({ handle: "alice", removed: true });
    expect(cli(db, "accounts", "members", "guild").stdout.trim()).toBe("no members");
    // Each change is audited under the operator's CLI; a removal that removed nothing is not.
    const audit = cliJson(db, "audit", "--subject", "creator:alice").data;
    expect(audit.map((e: { action: string; actor: { kind: string } }) => `${e.actor.kind} ${e.action}`)).toEqual([
      "cli account.member_removed",
      "cli account.member_added",
      "cli account.member_added",
      "cli account.member_added",
    ]);
    const again = cli(db, "accounts", "remove-member", "guild", "alice");
    expect(again.code).toBe(0);
    expect(again.stdout.trim()).toBe("@alice was not a member of guild");
  });

  test("an unknown account or creator fails naming it; a bad role is a usage error", () => {
    const { db } = setUp();
    const noAccount = cli(db, "accounts", "add-member", "nope", "alice");
    expect(noAccount.code).toBe(1);
    expect(noAccount.stderr).toContain("nope");
    const noCreator = cli(db, "accounts", "add-member", "guild", "bob");
    expect(noCreator.code).toBe(1);
    expect(noCreator.stderr).toContain("@bob");
    const badRole = cli(db, "accounts", "add-member", "guild", "alice", "--role", "admin");
    expect(badRole.code).toBe(2);
    expect(cliJson(db, "accounts", "remove-member", "guild", "alice")).toEqual({ handle: "alice", removed: false });
  });

  test("members travel in the export, by account name and handle, and come back with an import", () => {
    const { dir, db } = setUp();
    const added = cliJson(db, "accounts", "add-member", "guild", "alice", "--role", "owner");
    const file = join(dir, "out.jsonl");
    expect(cli(db, "export", "--out", file).code).toBe(0);
    const lines = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.type === "account_member")).toEqual([{ type: "account_member", account: "guild", handle: "alice", role: "owner", added_at: added.added_at }]);
    const copy = workspace();
    expect(cli(copy.db, "import", file).code).toBe(0);
    const rows = new Database(copy.db, { readonly: true })
      .query("SELECT a.name AS account, c.handle AS handle, m.role AS role, m.added_at AS added_at FROM account_members m JOIN accounts a ON a.id = m.account_id JOIN creators c ON c.id = m.creator_id")
      .all();
    expect(rows).toEqual([{ account: "guild", handle: "alice", role: "owner", added_at: Date.parse(added.added_at) }]);
  });

  test("an import whose member names an account or creator no earlier line defines fails naming the line, and imports nothing", () => {
    for (const [line, problem] of [
      [{ type: "account_member", account: "nope", handle: "alice", role: "developer" }, "line 3: account 'nope' is not defined on an earlier line"],
      [{ type: "account_member", account: "guild", handle: "bob", role: "developer" }, "line 3: creator 'bob' is not defined on an earlier line"],
      [{ type: "account_member", account: "guild", handle: "alice", role: "admin" }, "line 3: field 'role'"],
    ] as const) {
      const { dir, db } = workspace();
      const file = join(dir, "in.jsonl");
      writeFileSync(file, [{ type: "account", name: "guild", tier: "free" }, { type: "creator", handle: "alice", verification_level: 1, joined_at: "2026-01-01T00:00:00Z" }, line].map((l) => JSON.stringify(l)).join("\n") + "\n");
      const result = cli(db, "import", file);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(problem);
      expect(new Database(db, { readonly: true }).query("SELECT count(*) AS n FROM accounts").get()).toEqual({ n: 0 });
    }
  });
});
