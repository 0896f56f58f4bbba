// One default for `appealable` wherever an entry is written: true, unless the writer says false.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cliJson, migratedWorkspace } from "../cli-helpers";
import { createTestApp } from "../helpers";

const entry = { provider: "discord", severity: "ban", reason_code: "scam" };

describe("appealable defaults to true", () => {
  test("the partner API", async () => {
    const t = await createTestApp();
    try {
      const { key } = await t.account({ scope: "write" });
      const left = await t.json("POST", "/v1/partner/blacklist", { key, body: { ...entry, provider_user_id: "1" } });
      expect(left.status).toBe(201);
      expect(left.body.appealable).toBe(true);
      const no = await t.json("POST", "/v1/partner/blacklist", { key, body: { ...entry, provider_user_id: "2", appealable: false } });
      expect(no.body.appealable).toBe(false);
      const check = await t.json("GET", "/v1/blacklist/check?provider=discord&id=1", { key });
      expect(check.body.appealable).toBe(true);
    } finally {
      t.close();
    }
  });

  test("the CLI, with --appealable and --no-appealable to choose", () => {
    const { db } = migratedWorkspace();
    const add = (id: string, ...flags: string[]) =>
      cliJson(db, "blacklist", "add", "--provider", "discord", "--id", id, "--severity", "ban", "--reason-code", "scam", ...flags);
    expect(add("1").appealable).toBe(true);
    expect(add("2", "--appealable").appealable).toBe(true);
    expect(add("3", "--no-appealable").appealable).toBe(false);
  }, 30_000);

  test("an import line without the field", () => {
    const { dir, db } = migratedWorkspace();
    const file = join(dir, "in.jsonl");
    writeFileSync(
      file,
      [
        { type: "entry", ...entry, provider_user_id: "1", scope: "global", vertical: "all" },
        { type: "entry", ...entry, provider_user_id: "2", scope: "global", vertical: "all", appealable: false },
      ]
        .map((l) => JSON.stringify(l))
        .join("\n") + "\n",
    );
    expect(cliJson(db, "import", file)).toMatchObject({ entries: 2 });
    const out = join(dir, "out.jsonl");
    cliJson(db, "export", "--out", out);
    const byId = Object.fromEntries(
      readFileSync(out, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
        .map((l) => [l.provider_user_id, l.appealable]),
    );
    expect(byId).toEqual({ "1": true, "2": false });
  }, 30_000);
});
