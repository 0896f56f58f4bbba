// `trustlist backup OUT.db`: a consistent copy of a live database, readable by its owner only.
import { closeSync, openSync } from "node:fs";
import { resolveDbPath } from "../config";
import { copyInto } from "../db/backup";
import { openStore } from "../db/client";
import { isPostgresUrl } from "../db/location";
import { type Command, print, UsageError } from "./args";

export const backup: Command = {
  name: "backup",
  summary: "copy the database consistently, also while the server runs",
  args: ["OUT.db"],
  flags: [],
  examples: ["trustlist backup /var/backups/trustlist/$(date +%F).db --db /var/lib/trustlist/trustlist.db"],
  async run({ values, positionals }) {
    const out = positionals[0]!;
    const dbPath = resolveDbPath(values);
    if (isPostgresUrl(dbPath)) {
      throw new UsageError("backup copies a SQLite file; back PostgreSQL up with its own tools (pg_dump), or move the data with 'trustlist export'");
    }
    // A backup of an older schema is still a good backup (take one before migrating).
    const store = openStore(dbPath, { create: false, migrations: "leave" });
    try {
      // Made owner-only before SQLite writes into it (VACUUM INTO accepts an empty file, and a
      // file that is not empty is refused, so nothing is overwritten).
      try {
        closeSync(openSync(out, "wx", 0o600));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new UsageError(`${out} already exists; choose a new file`);
        throw error;
      }
      copyInto(store, out);
    } finally {
      store.close();
    }
    print(values.json, { out }, `backed up ${dbPath} to ${out}`);
  },
};
