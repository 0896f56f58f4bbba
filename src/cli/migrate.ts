// `trustlist migrate`: create the database if needed and apply this build's migrations.
import { resolveDbPath } from "../config";
import { migrate as applyMigrations, openStore } from "../db/client";
import { isPostgresUrl, redactUrl } from "../db/location";
import { openPostgres } from "../db/postgres";
import { type Command, print } from "./args";

export const migrate: Command = {
  name: "migrate",
  summary: "create the database if it is missing and apply this build's migrations (serve does too)",
  flags: [],
  examples: ["trustlist migrate --db /var/lib/trustlist/trustlist.db"],
  async run({ values }) {
    const location = resolveDbPath(values);
    let applied: number;
    if (isPostgresUrl(location)) {
      // Applied under an advisory lock: instances starting meanwhile wait for it, then find none due.
      const opened = await openPostgres(location, { migrations: "apply" });
      applied = opened.applied;
      await opened.database.close();
    } else {
      const store = openStore(location, { create: true, migrations: "leave" });
      try {
        applied = applyMigrations(store.sqlite);
      } finally {
        store.close();
      }
    }
    const dbPath = isPostgresUrl(location) ? redactUrl(location) : location;
    print(values.json, { applied, db: dbPath }, applied ? `applied ${applied} migration(s) to ${dbPath}` : `${dbPath} is up to date`);
  },
};
