// What a serving process reads ahead once it listens (a single `serve` and each worker of
// `serve --workers N`): the subject filter, then the keyless answers' indexes (PublicService.warm).
import type { Database } from "../db/database";
import type { Services } from "../services";

/**
 * Runs the warm-up, then hands back the memory it used only once. The fills read every entry and
 * creator: on the bench data (1M entries, 100k creators) that left SQLite's page cache full (64 MB)
 * of pages read in order once, which stayed resident in every serving process. They are dropped
 * (`shrink_memory`), and a full collection (about 40 ms, once, on a process that has just started)
 * returns the freed memory to the system: about 78 MB per process. The cache then fills with what
 * requests read.
 */
export async function warmUp(services: Services, database: Database, onFilterReady?: () => void): Promise<void> {
  await services.blacklist.warm();
  onFilterReady?.();
  await services.public.warm();
  if (database.dialect === "sqlite") database.sqlite.exec("PRAGMA shrink_memory");
  Bun.gc(true);
}
