// PostgreSQL migrations: `make migrations` generates them from src/db/schema.pg.ts beside SQLite's.
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema.pg.ts",
  out: "./migrations/postgres",
});
