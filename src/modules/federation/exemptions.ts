// Exemptions: accounts no followed source's item applies to (every source's, or one's). One acts at
// once: an entry already applied for the account is overturned when it is made, and the source's
// later items for it are refused (the policy reads exemptions on every apply). Removing one
// re-applies the sources' items for the account.
import { type Clock, iso } from "../../clock";
import { notFound, unprocessable } from "../../errors";
import { newId } from "../../ids";
import type { Actor, AuditLog } from "../audit/service";
import { accountSubject, actorText } from "../audit/service";
import { type BlacklistService, normalizeAccountId } from "../blacklist/service";
import type { SourceApplier } from "./apply";
import type { Exemption, NewExemptionBody } from "./model";
import type { ExemptionRow, FederationStore } from "./store";

export type ExemptionView = typeof Exemption.static;

function toView(row: ExemptionRow): ExemptionView {
  return {
    id: row.id,
    provider: row.provider,
    provider_user_id: row.providerUserId,
    source: row.source,
    reason: row.reason,
    created_by: row.createdBy,
    created_at: iso(row.createdAt)!,
  };
}

export class FederationExemptions {
  constructor(
    private readonly store: FederationStore,
    private readonly applier: SourceApplier,
    private readonly blacklist: BlacklistService,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  async list(): Promise<ExemptionView[]> {
    return (await this.store.exemptions()).map(toView);
  }

  async add(input: typeof NewExemptionBody.static, actor: Actor): Promise<ExemptionView & { entries_overturned: number }> {
    const providerUserId = normalizeAccountId(input.provider, input.provider_user_id);
    if (providerUserId === null) throw unprocessable(`'${input.provider_user_id.slice(0, 64)}' is not a valid ${input.provider} user id.`);
    const source = input.source ?? null;
    if (source !== null && !(await this.store.sourceByName(source))) throw notFound(`No source '${source}'.`);
    const now = this.clock.now();
    const row: ExemptionRow = { id: newId("exm", now), provider: input.provider, providerUserId, source, reason: input.reason, createdBy: actorText(actor), createdAt: now };
    let overturned = 0;
    await this.store.transaction(async () => {
      await this.store.insertExemption(row);
      await this.audit.record(actor, "exemption.added", { subject: accountSubject(row.provider, providerUserId) }, { id: row.id, source, reason: row.reason }, now);
      for (const held of await this.blacklist.heldOfSubject(row.provider, providerUserId)) {
        if (source !== null && held.source !== source) continue;
        await this.blacklist.overturn(held.id, "exempted", actor);
        overturned++;
      }
    });
    return { ...toView(row), entries_overturned: overturned };
  }

  async remove(id: string, actor: Actor): Promise<{ id: string; removed: true; entries_applied: number }> {
    const row = await this.store.exemption(id);
    if (!row) throw notFound(`No exemption '${id.slice(0, 64)}'.`);
    let applied = 0;
    await this.store.transaction(async () => {
      await this.store.deleteExemption(id);
      await this.audit.record(actor, "exemption.removed", { subject: accountSubject(row.provider, row.providerUserId) }, { id, source: row.source }, this.clock.now());
      const exemptions = await this.applier.exemptions();
      const sources = new Map((await this.store.sources()).map((source) => [source.id, source]));
      for (const item of await this.store.itemsOfSubject(row.provider, row.providerUserId)) {
        const source = sources.get(item.sourceId);
        if (!source) continue;
        const outcome = await this.applier.reconcile(source, item.upstreamId, item, exemptions, { tell: false, overturnReason: "source_policy" });
        if (outcome === "added" || outcome === "replaced") applied++;
      }
    });
    return { id, removed: true, entries_applied: applied };
  }
}
