// A consistent copy of a live SQLite database into a new file (`trustlist backup`).
import { rmSync } from "node:fs";
import type { Store } from "./client";

/**
 * Copies the database into `out`, which must be absent or empty (a file that is not empty is
 * refused, so nothing is overwritten). VACUUM INTO reads one consistent snapshot, and WAL keeps the
 * server's writers going meanwhile. A failed copy leaves no file behind.
 */
export function copyInto(store: Store, out: string): void {
  try {
    store.sqlite.run("VACUUM INTO ?", [out]);
  } catch (error) {
    rmSync(out, { force: true });
    throw error;
  }
}
