// `trustlist migrate`: create the database if needed and apply this build's migrations.
import { resolveDbPath } from "../config";
import { migrate as applyMigrations, openStore } from "../db/client";
import { type Command, print } from "./args";

export const migrate: Command = {
  name: "migrate",
  summary: "create the database if it is missing and apply this build's migrations (serve does too)",
  flags: [],
  examples: ["trustlist migrate --db /var/lib/trustlist/trustlist.db"],
  async run({ values }) {
    const dbPath = resolveDbPath(values);
    const store = openStore(dbPath, { create: true, migrations: "leave" });
    let applied: number;
    try {
      applied = applyMigrations(store.db);
    } finally {
      store.close();
    }
    print(values.json, { applied, db: dbPath }, applied ? `applied ${applied} migration(s) to ${dbPath}` : `${dbPath} is up to date`);
  },
};
