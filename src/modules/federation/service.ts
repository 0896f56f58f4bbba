// Federation, as the rest of the app sees it: the instance's identity (identity.ts), the signed feed
// (feed.ts), followed sources (sources.ts) and their sync (sync.ts), exemptions (exemptions.ts),
// all applying items through one applier (apply.ts) over the federation store (store.ts).
import type { Clock } from "../../clock";
import type { CursorCodec } from "../../cursor";
import type { Database } from "../../db/database";
import type { MetaStore } from "../../db/meta-store";
import type { AccountsService } from "../accounts/service";
import type { Actor, AuditLog } from "../audit/service";
import type { BlacklistService } from "../blacklist/service";
import { type CaseOpener, SourceApplier } from "./apply";
import { FederationExemptions } from "./exemptions";
import { CryptoThreads } from "./crypto-threads";
import { SignedFeed } from "./feed";
import { InstanceIdentity } from "./identity";
import type { NewSourceBody, SourcePatchBody } from "./model";
import { FederationSources } from "./sources";
import { createFederationStore, type FederationStore } from "./store";
import { SourceSync, type SyncOutcome } from "./sync";

export type { SourceView } from "./sources";
export type { ExemptionView } from "./exemptions";
export type { InstanceSummary } from "./identity";
export type { SyncOutcome } from "./sync";

export class FederationService {
  private readonly store: FederationStore;
  readonly identity: InstanceIdentity;
  private readonly feed: SignedFeed;
  private readonly applier: SourceApplier;
  private readonly sources: FederationSources;
  private readonly syncer: SourceSync;
  readonly exemptions: FederationExemptions;

  constructor(database: Database, clock: Clock, cursors: CursorCodec, meta: MetaStore, blacklist: BlacklistService, accounts: AccountsService, audit: AuditLog, baseUrl: string) {
    this.store = createFederationStore(database);
    this.identity = new InstanceIdentity(this.store, meta, audit, clock, baseUrl);
    // One pool of signing and verifying threads for the feed this instance serves and the ones it reads.
    const crypto = new CryptoThreads();
    this.feed = new SignedFeed(this.identity, blacklist, accounts, cursors, crypto);
    this.applier = new SourceApplier(this.store, blacklist, audit, clock);
    this.sources = new FederationSources(this.store, this.applier, blacklist, audit, clock);
    this.syncer = new SourceSync(this.store, this.applier, audit, clock, crypto);
    this.exemptions = new FederationExemptions(this.store, this.applier, blacklist, audit, clock);
  }

  /** How a `review` source's item opens a moderation case (the moderation module hands it over). */
  openCasesWith(opener: CaseOpener): void {
    this.applier.caseOpener = opener;
  }

  wellKnown() {
    return this.identity.wellKnown();
  }

  changes(accountId: string, options: { cursor?: string; limit?: number }) {
    return this.feed.changes(accountId, options);
  }

  listSources() {
    return this.sources.list();
  }

  async getSource(name: string) {
    return this.sources.view(await this.sources.source(name));
  }

  addSource(input: typeof NewSourceBody.static, actor: Actor) {
    return this.sources.add(input, actor);
  }

  /**
   * Changes a source and re-applies its policy to what is held. With `waitMs`, answers by then even
   * when the re-apply goes on (a large source outlasts an HTTP request); a re-apply that fails
   * afterwards is told in the source's `last_error`.
   */
  async updateSource(name: string, input: typeof SourcePatchBody.static, actor: Actor, waitMs?: number) {
    const { row, reapplying } = await this.sources.update(name, input, actor);
    if (reapplying) {
      const failed = reapplying.catch(async (error) => {
        await this.store.updateSource(row.id, { lastError: `could not re-apply the policy: ${(error as Error).message}` });
        throw error;
      });
      if (waitMs === undefined) await failed;
      else await Promise.race([failed, sleep(waitMs)]);
    }
    return this.sources.view(row);
  }

  /** Stops following a source; with `waitMs`, answers by then even when the retraction goes on (`running`). */
  async removeSource(name: string, keep: boolean, actor: Actor, waitMs?: number) {
    const progress = { overturned: 0 };
    const removal = this.sources.remove(name, keep, actor, progress);
    if (waitMs === undefined) return { ...(await removal), running: false };
    const done = await Promise.race([removal, sleep(waitMs)]);
    if (done) return { ...done, running: false };
    removal.catch(() => {});
    return { name, removed: true as const, entries_overturned: progress.overturned, running: true };
  }

  /**
   * Syncs one source now, whatever its interval. With `waitMs`, answers by then even when the sync
   * goes on (a large first sync outlasts an HTTP request): `running` says so.
   */
  async syncSource(name: string, waitMs?: number): Promise<SyncOutcome> {
    const source = await this.sources.source(name);
    const sync = this.syncer.sync(source);
    if (waitMs === undefined) return sync;
    const outcome = await Promise.race([sync, sleep(waitMs)]);
    return outcome ?? { name, applied: 0, cursor: source.cursor, has_more: true, error: null, running: true };
  }

  /** The job: every source whose interval has passed. */
  syncDue(): Promise<number> {
    return this.syncer.syncDue();
  }

  /** Items refused by verification since start. */
  get refusedItems(): number {
    return this.syncer.refusedItems;
  }

  /** Sources whose last sync stopped on an error. */
  async failingSources(): Promise<number> {
    return (await this.store.sources()).filter((source) => source.lastError !== null).length;
  }
}

/** Resolves with nothing after `ms`, without keeping the process alive. */
function sleep(ms: number): Promise<undefined> {
  // Bun's timers have unref; the DOM's (the SDK's type check) answer a number, so it is looked up.
  return new Promise((resolve) => (setTimeout(resolve, ms) as { unref?: () => void }).unref?.());
}
