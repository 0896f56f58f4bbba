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
    this.feed = new SignedFeed(this.identity, blacklist, accounts, cursors);
    this.applier = new SourceApplier(this.store, blacklist, audit, clock);
    this.sources = new FederationSources(this.store, this.applier, blacklist, audit, clock);
    this.syncer = new SourceSync(this.store, this.applier, audit, clock);
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

  updateSource(name: string, input: typeof SourcePatchBody.static, actor: Actor) {
    return this.sources.update(name, input, actor);
  }

  removeSource(name: string, keep: boolean, actor: Actor) {
    return this.sources.remove(name, keep, actor);
  }

  /**
   * Syncs one source now, whatever its interval. With `waitMs`, answers by then even when the sync
   * goes on (a large first sync outlasts an HTTP request): `running` says so.
   */
  async syncSource(name: string, waitMs?: number): Promise<SyncOutcome> {
    const source = await this.sources.source(name);
    const sync = this.syncer.sync(source);
    if (waitMs === undefined) return sync;
    const timer = new Promise<null>((resolve) => setTimeout(resolve, waitMs, null).unref?.());
    const outcome = await Promise.race([sync, timer]);
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
