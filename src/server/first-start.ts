// A first `serve` on an empty database makes the operator account and its admin key.
import type { IssuedKey } from "../modules/accounts/service";
import type { Services } from "../services";

/** The admin key of a first start (to print once), or null when the database has accounts. */
export async function firstStartKey(services: Services): Promise<IssuedKey | null> {
  if ((await services.accounts.countAccounts()) !== 0) return null;
  await services.accounts.createAccount({ name: "operator", tier: "enterprise", daily_quota: 1_000_000_000 });
  return services.accounts.createKey({ account: "operator", scope: "admin", rate_tier: "partner", burst: 1_000_000, name: "first admin key" });
}

/** The lines `serve` prints on stderr once it listens. */
export function announce(address: string, dbPath: string, firstKey: IssuedKey | null, workers = 1): void {
  const served = workers > 1 ? `, ${workers} workers` : "";
  console.error(`trustlist listening on ${address}  (docs: ${address}/docs, database: ${dbPath}${served})`);
  if (firstKey) {
    console.error(`First start: created account 'operator' and this admin key (shown once, store it now):`);
    console.error(`  ${firstKey.key}`);
  }
}
