import { expect, test } from "bun:test";
import { databasesOfThisFile } from "./backend";
import { createAccountsStore } from "../src/modules/accounts/store";
import { WebhooksService } from "../src/modules/webhooks/service";
import { CursorCodec } from "../src/cursor";
import { Outbox } from "../src/outbox";
import { signatureHeaders } from "../src/modules/webhooks/signing";
import { parseDestination, resolveDestination } from "../src/modules/webhooks/url-guard";

const databases = databasesOfThisFile();
test("sections", async () => {
  const { database } = await databases.open();
  const service = new WebhooksService(database, { now: () => Date.now() }, new CursorCodec("x"), { policy: { allowPrivate: true }, retryDelaysMs: [1, 2, 3, 4, 5, 6, 7] });
  await createAccountsStore(database).insertAccount({ id: "acct_1", name: "acme", tier: "pro", dailyQuota: null, status: "active", createdAt: 1 });
  await service.store.insertEndpoint({ id: "wh_ok", accountId: "acct_1", url: "http://127.0.0.1:1/ok", events: ["blacklist.added"], secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", enabled: true, disabledReason: null, disabledAt: null, failingSince: null, createdAt: 1 });
  const N = 3000;
  const outbox = new Outbox(database);
  const at = Date.now();
  await database.write(async () => { for (let i = 0; i < N; i++) await outbox.write("blacklist.added", { id: `bl_${i}`, severity: "ban", scope: "global", vertical: "all", reason_code: "scam_trade", summary: null, issued_at: new Date(at).toISOString(), expires_at: null, appealable: true } as any, at); });
  const cpu = () => { const c = process.cpuUsage(); return c.user + c.system; };
  let c = cpu();
  while ((await service.dispatchEvents()) > 0);
  const tDispatch = cpu() - c;
  c = cpu();
  const all = [];
  for (;;) { const { claimed } = await service.claimDue(16, 60_000, { perLane: 32, held: new Map() }); if (!claimed.length) break; all.push(...claimed); }
  const tClaim = cpu() - c;
  c = cpu();
  for (let i = 0; i < all.length; i += 4) await service.stillDueOf(all.slice(i, i + 4));
  const tStill = cpu() - c;
  c = cpu();
  for (const d of all) { signatureHeaders(d.secret!, d.id, 1700000000, d.payload); await resolveDestination(parseDestination(d.url, { allowPrivate: true }), { allowPrivate: true }); }
  const tSign = cpu() - c;
  c = cpu();
  for (let i = 0; i < all.length; i += 8) await service.recordAttempts(all.slice(i, i + 8).map((delivery) => ({ delivery, result: { startedAt: Date.now(), latencyMs: 1, statusCode: 204, error: null, responseExcerpt: null } })));
  const tRecord = cpu() - c;
  console.log(JSON.stringify({ per_delivery_us: { dispatch: tDispatch / N, claim16: tClaim / N, stillDue4: tStill / N, signAndGuard: tSign / N, record8: tRecord / N } }));
  expect(all.length).toBe(N);
}, 60000);
