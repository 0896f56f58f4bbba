// Brings what this instance holds from a source for one of its items in line with the item and the
// source's current policy: adds the entry, replaces one that no longer says the same, overturns one
// the policy or an exemption no longer admits, opens a review case once. A sync, a policy change,
// an exemption and its removal all go through here, inside the caller's transaction, so the
// entries held from a source are always its active items under its policy (docs/federation.md).
import type { Clock } from "../../clock";
import type { Actor, AuditLog } from "../audit/service";
import { accountSubject } from "../audit/service";
import type { BlacklistService, EntryRow, NewEntry } from "../blacklist/service";
import { holds, type UpstreamEntry, verdictOf } from "./policy";
import type { ExemptionRow, FederationStore, ItemRow, SourceRow } from "./store";

/** Opens a moderation case for a `review` source's item; answers the case's id. */
export type CaseOpener = (source: SourceRow, entry: UpstreamEntry) => Promise<string>;

/** The followed source as the audit log names it. */
export const sourceActor = (name: string): Actor => ({ kind: "source", id: name });

/** Exemptions, looked up by account: a sync reads them once per page. */
export class ExemptionSet {
  private readonly byAccount = new Map<string, Array<string | null>>();

  constructor(rows: ExemptionRow[]) {
    for (const row of rows) {
      const key = `${row.provider}:${row.providerUserId}`;
      const list = this.byAccount.get(key) ?? [];
      list.push(row.source);
      this.byAccount.set(key, list);
    }
  }

  covers(source: string, provider: string, providerUserId: string): boolean {
    const list = this.byAccount.get(`${provider}:${providerUserId}`);
    return !!list && list.some((name) => name === null || name === source);
  }
}

export class SourceApplier {
  /** Opens `review` cases; null until the moderation module hands one over. */
  caseOpener: CaseOpener | null = null;

  constructor(
    private readonly store: FederationStore,
    private readonly blacklist: BlacklistService,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  /**
   * Reconciles one item (null: the source no longer holds it) inside the caller's transaction.
   * `tell`: a refused item is recorded in the audit log (a new item from a sync, not a re-apply).
   * `overturnReason` is what an entry the item no longer admits is overturned with.
   */
  async reconcile(
    source: SourceRow,
    upstreamId: string,
    item: ItemRow | null,
    exemptions: ExemptionSet,
    options: { tell: boolean; overturnReason: string; actor?: Actor },
  ): Promise<"added" | "replaced" | "kept" | "overturned" | "none"> {
    const actor = options.actor ?? sourceActor(source.name);
    const held = await this.blacklist.heldFrom(source.name, upstreamId);
    if (!item) {
      if (!held) return "none";
      await this.blacklist.overturn(held.id, options.overturnReason, actor);
      return "overturned";
    }
    const entry = JSON.parse(item.entry) as UpstreamEntry;
    const now = this.clock.now();
    const verdict = verdictOf(entry, source, exemptions.covers(source.name, entry.provider, entry.provider_user_id), now);
    if (verdict.kind === "entry") {
      if (held && holds(held, verdict.input)) return "kept";
      if (held) await this.blacklist.overturn(held.id, options.overturnReason, actor);
      await this.blacklist.add(verdict.input, actor, { origin: { source: source.name, upstreamId }, details: { source: source.name, upstream_id: upstreamId } });
      return held ? "replaced" : "added";
    }
    if (held) await this.blacklist.overturn(held.id, verdict.kind === "rejected" && verdict.reason === "exempted" ? "exempted" : options.overturnReason, actor);
    if (verdict.kind === "rejected" && options.tell) {
      await this.audit.record(sourceActor(source.name), "source.item_rejected", { subject: accountSubject(entry.provider, entry.provider_user_id) }, { upstream_id: upstreamId, reason: verdict.reason }, now);
    }
    if (verdict.kind === "case" && item.caseId === null && this.caseOpener) {
      const caseId = await this.caseOpener(source, entry);
      await this.store.setItemCase(source.id, upstreamId, caseId);
    }
    return held ? "overturned" : "none";
  }

  /**
   * A sync's fresh items, each `reconcile`d to an entry with none held for it before (`fresh`
   * answers which are): their item rows and entries written in one go, in page order.
   */
  async addFresh(source: SourceRow, items: Array<{ row: ItemRow; input: NewEntry }>): Promise<void> {
    if (items.length === 0) return;
    const actor = sourceActor(source.name);
    await this.store.upsertItems(items.map((item) => item.row));
    await this.blacklist.addMany(
      items.map(({ row, input }) => ({ input, actor, refs: { origin: { source: source.name, upstreamId: row.upstreamId }, details: { source: source.name, upstream_id: row.upstreamId } } })),
    );
  }

  /**
   * The entry `reconcile` would add for an item of a sync with nothing held for it, or null when
   * the item is not one of those (a case, a refusal, a lapsed item): the sync's bulk path.
   */
  fresh(source: SourceRow, entry: UpstreamEntry, exemptions: ExemptionSet): NewEntry | null {
    const verdict = verdictOf(entry, source, exemptions.covers(source.name, entry.provider, entry.provider_user_id), this.clock.now());
    return verdict.kind === "entry" ? verdict.input : null;
  }

  /** Which of a page's item ids have an entry held from the source (one look-up for the page). */
  heldOf(source: SourceRow, upstreamIds: string[]): Promise<Set<string>> {
    return this.blacklist.heldUpstreamIds(source.name, upstreamIds);
  }

  /** The source said its item was overturned or expired: the entry held for it goes the same way. */
  async retract(source: SourceRow, upstreamId: string, type: "overturned" | "expired"): Promise<EntryRow | null> {
    await this.store.deleteItem(source.id, upstreamId);
    const held = await this.blacklist.heldFrom(source.name, upstreamId);
    if (!held) return null;
    const actor = sourceActor(source.name);
    if (type === "overturned") await this.blacklist.overturn(held.id, "source_overturned", actor);
    else await this.blacklist.expire(held.id, actor);
    return held;
  }

  async exemptions(): Promise<ExemptionSet> {
    return new ExemptionSet(await this.store.exemptions());
  }
}
