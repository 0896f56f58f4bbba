// One `serve` per SQLite file: a second server on the same file would run every job twice and keep
// limits of its own (several instances share a PostgreSQL database, never a file). The lock is an
// abstract Unix socket named after the file: the kernel frees it when the process ends however it
// ends, so no stale lock survives a crash.
import { realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

export interface ServeLock {
  release(): void;
}

/** Takes the file's serve lock, or throws naming the file when another `serve` holds it. */
export function lockDatabaseFile(path: string): ServeLock {
  const absolute = canonical(path);
  const name = `\0trustlist-serve-${new Bun.CryptoHasher("sha256").update(absolute).digest("hex").slice(0, 40)}`;
  try {
    const listener = Bun.listen({ unix: name, socket: { data() {} } });
    return { release: () => listener.stop(true) };
  } catch (error) {
    if ((error as { code?: string }).code === "EADDRINUSE") {
      throw new Error(`another trustlist serve is running on ${absolute}; stop it, or use --workers N to serve on more cores`);
    }
    throw error;
  }
}

/** The file's path with every link resolved, also before the file exists (its folder's links then). */
function canonical(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    try {
      return join(realpathSync(dirname(absolute)), basename(absolute));
    } catch {
      return absolute;
    }
  }
}
