// `trustlist accounts add-member|remove-member` as an operator runs them: a member added on the
// command line manages the account in the console, a role change keeps the membership, a removal
// ends it, and bad input fails clearly without changing anything.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, cliJson, migratedWorkspace } from "../cli-helpers";

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

describe("trustlist accounts add-member|remove-member", () => {
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
    expect(cliJson(db, "accounts", "remove-member", "guild", "alice")).toEqual({ handle: "alice", removed: true });
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
});
