// What a serving process reads ahead once it listens (a single `serve` and each worker of
// `serve --workers N`): the directory index, the subject filter, then the other keyless answers'
// indexes (PublicService.warm).
import type { Database } from "../db/database";
import { releaseCachedPages } from "../db/pragmas";
import type { Services } from "../services";

/**
 * Runs the warm-up, then hands back the memory it used only once. The fills read every entry and
 * creator: on the bench data (1M entries, 100k creators) that left SQLite's page cache full (64 MB)
 * of pages read in order once, and the file's map resident over what they read (170 MB for the
 * entries alone), in every serving process. Both are dropped (`releaseCachedPages`); the collector
 * returns the rest within seconds by itself (about 150 MB less resident 3 s later). A forced full
 * collection returned it at once but held the request thread for 30-110 ms, past the 100 ms any
 * request may wait.
 */
export async function warmUp(services: Services, database: Database, onFilterReady?: () => void): Promise<void> {
  // The directory index first: until it is built a directory query scans every creator in SQLite
  // (tens of milliseconds on the request thread at 100k creators), while a check asked before the
  // subject filter is ready costs one indexed lookup.
  await services.public.warmDirectory();
  await services.blacklist.warm();
  onFilterReady?.();
  await services.public.warm();
  if (database.dialect === "sqlite") releaseCachedPages(database.sqlite);
}
