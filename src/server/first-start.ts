// A first `serve` on an empty database makes the operator account and its admin key. The key is
// shown once: on stderr for a person at a terminal (`make run`), or, with `--admin-key-file`, only
// in a new file readable by the service's user, so that a service manager's journal or a
// container's log (which keep stderr, and are shipped and kept far longer) never holds it.
import { closeSync, constants, existsSync, fsyncSync, openSync, unlinkSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { IssuedKey } from "../modules/accounts/service";
import type { Services } from "../services";

/** What a first start made: the key, and the file it went to (null: it is printed). */
export interface FirstStart {
  key: IssuedKey;
  file: string | null;
}

/**
 * Refuses, before the server listens, a first start whose key file cannot be written: it already
 * exists (a key of another database, or one the operator has not moved yet: never overwritten) or
 * its folder is missing. Nothing to check when the database has accounts, since no key is made.
 */
export async function checkAdminKeyFile(services: Services, file: string | null): Promise<void> {
  if (file === null || (await services.accounts.countAccounts()) !== 0) return;
  if (existsSync(file)) {
    throw new Error(
      `--admin-key-file ${file} already exists, and this database is new: its first admin key would not fit that file. Move the file away (or delete it) and start again.`,
    );
  }
  if (!existsSync(dirname(file))) throw new Error(`--admin-key-file ${file}: the folder ${dirname(file)} does not exist`);
}

/** The admin key of a first start (written to `file` when given), or null when the database has accounts. */
export async function firstStartKey(services: Services, file: string | null = null): Promise<FirstStart | null> {
  if ((await services.accounts.countAccounts()) !== 0) return null;
  // Created before the key exists, exclusively and owner-only: a key is never made that cannot be
  // kept, and never written into a file someone else made or can read.
  const fd = file === null ? null : openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    await services.accounts.createAccount({ name: "operator", tier: "enterprise", daily_quota: 1_000_000_000 });
    const key = await services.accounts.createKey({ account: "operator", scope: "admin", rate_tier: "partner", burst: 1_000_000, name: "first admin key" });
    if (fd !== null) {
      writeSync(fd, `${key.key}\n`);
      fsyncSync(fd);
    }
    return { key, file };
  } catch (error) {
    if (fd !== null) unlinkSync(file!);
    throw error;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** The lines `serve` prints on stderr once it listens. */
export function announce(address: string, dbPath: string, first: FirstStart | null, workers = 1): void {
  const served = workers > 1 ? `, ${workers} workers` : "";
  console.error(`trustlist listening on ${address}  (docs: ${address}/docs, database: ${dbPath}${served})`);
  if (!first) return;
  if (first.file !== null) {
    console.error(`First start: created account 'operator'; its admin key is in ${first.file} (readable by this user only; it is printed nowhere).`);
    return;
  }
  console.error(`First start: created account 'operator' and this admin key (shown once, store it now):`);
  console.error(`  ${first.key.key}`);
}
