// Followed sources: adding one (its well-known document read, its instance id and keys pinned),
// listing them (the stored key never shown), changing a policy (re-applied at once to everything
// held from it) and removing one (its entries overturned with `source_removed`, or kept). Long
// walks run a page at a time, each page one transaction, yielding to requests between them.
import { type Clock, iso } from "../../clock";
import { UniqueViolation } from "../../db/errors";
import { conflict, notFound, unprocessable } from "../../errors";
import { newId } from "../../ids";
import { yieldToRequests } from "../../yield";
import type { Actor, AuditLog } from "../audit/service";
import type { BlacklistService } from "../blacklist/service";
import { OWN_ANSWER_SOURCES } from "../public/disclosure";
import type { SourceApplier } from "./apply";
import type { NewSourceBody, Source, SourcePatchBody } from "./model";
import { fingerprint } from "./signing";
import type { FederationStore, SourcePatch, SourceRow } from "./store";
import { readWellKnown, SYNC_PAGE_ITEMS } from "./sync";

export type SourceView = typeof Source.static;
export const DEFAULT_INTERVAL_S = 60;

function baseUrlOf(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw unprocessable(`'${raw.slice(0, 100)}' is not a URL.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw unprocessable("A source's URL is http or https.");
  if (url.username || url.password || url.search || url.hash) throw unprocessable("A source's URL is its base URL, with no credentials, query or fragment.");
  return url.toString().replace(/\/+$/, "");
}

const listText = (list: string[] | null | undefined) => (list === undefined ? undefined : list === null || list.length === 0 ? null : JSON.stringify([...new Set(list)]));

export class FederationSources {
  constructor(
    private readonly store: FederationStore,
    private readonly applier: SourceApplier,
    private readonly blacklist: BlacklistService,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  async source(name: string): Promise<SourceRow> {
    const row = await this.store.sourceByName(name);
    if (!row) throw notFound(`No source '${name.slice(0, 64)}'.`);
    return row;
  }

  async view(row: SourceRow): Promise<SourceView> {
    const [held, keys] = await Promise.all([this.blacklist.heldCount(row.name), this.store.sourceKeys(row.id)]);
    return {
      name: row.name,
      url: row.url,
      instance_id: row.instanceId,
      policy: row.policy,
      max_severity: row.maxSeverity,
      verticals: row.verticals === null ? null : JSON.parse(row.verticals),
      reason_codes: row.reasonCodes === null ? null : JSON.parse(row.reasonCodes),
      interval_s: row.intervalS,
      cursor: row.cursor,
      last_synced_at: iso(row.lastSyncedAt),
      entries_held: held,
      last_error: row.lastError,
      fingerprints: keys.map((key) => fingerprint(key.publicKey)),
    };
  }

  async list(): Promise<SourceView[]> {
    return Promise.all((await this.store.sources()).map((row) => this.view(row)));
  }

  async add(input: typeof NewSourceBody.static, actor: Actor): Promise<SourceView> {
    if (OWN_ANSWER_SOURCES.includes(input.name)) throw unprocessable(`'${input.name}' names this instance's own answers; give the source another name.`);
    const url = baseUrlOf(input.url);
    if (await this.store.sourceByName(input.name)) throw conflict(`A source named '${input.name}' already exists.`);
    let doc;
    try {
      doc = await readWellKnown(url);
    } catch (error) {
      throw unprocessable(`Could not read the source's identity: ${(error as Error).message}.`);
    }
    const keys = doc.keys.filter((key) => key && typeof key.kid === "string" && typeof key.public_key === "string" && key.alg === "Ed25519");
    if (keys.length === 0) throw unprocessable("The source's identity document names no Ed25519 key.");
    const now = this.clock.now();
    const row: SourceRow = {
      id: newId("src", now),
      name: input.name,
      url,
      apiKey: input.key,
      instanceId: doc.instance.id,
      policy: input.policy ?? "apply",
      maxSeverity: input.max_severity ?? null,
      verticals: listText(input.verticals) ?? null,
      reasonCodes: listText(input.reason_codes) ?? null,
      intervalS: input.interval_s ?? DEFAULT_INTERVAL_S,
      cursor: null,
      lastSyncedAt: null,
      nextSyncAt: now,
      lastError: null,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.store.transaction(async () => {
        await this.store.insertSource(row);
        for (const key of keys) await this.store.insertSourceKey({ sourceId: row.id, kid: key.kid, publicKey: key.public_key, endorsedBy: null, createdAt: now });
        await this.audit.record(actor, "source.added", {}, { name: row.name, url, instance_id: row.instanceId, policy: row.policy, fingerprints: keys.map((key) => fingerprint(key.public_key)) }, now);
      });
    } catch (error) {
      if (error instanceof UniqueViolation) throw conflict(`A source named '${input.name}' already exists.`);
      throw error;
    }
    return this.view(row);
  }

  /**
   * Changes a source; a change of policy, cap or filters is applied at once to what is held from
   * it: `reapplying` settles when that is done.
   */
  async update(name: string, input: typeof SourcePatchBody.static, actor: Actor): Promise<{ row: SourceRow; reapplying: Promise<void> | null }> {
    const row = await this.source(name);
    const now = this.clock.now();
    const patch: SourcePatch = {
      url: input.url === undefined ? undefined : baseUrlOf(input.url),
      apiKey: input.key,
      policy: input.policy,
      maxSeverity: input.max_severity,
      verticals: listText(input.verticals),
      reasonCodes: listText(input.reason_codes),
      intervalS: input.interval_s,
    };
    const changed = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
    if (Object.keys(changed).length === 0) return { row, reapplying: null };
    const updated: SourceRow = { ...row, ...changed, updatedAt: now };
    if (input.interval_s !== undefined) updated.nextSyncAt = Math.min(row.nextSyncAt, now + input.interval_s * 1000);
    await this.store.transaction(async () => {
      await this.store.updateSource(row.id, { ...changed, updatedAt: now, nextSyncAt: updated.nextSyncAt });
      const shown = { ...input, key: input.key === undefined ? undefined : "(changed)" };
      await this.audit.record(actor, "source.updated", {}, { name, ...shown }, now);
    });
    const policyChanged = ["policy", "maxSeverity", "verticals", "reasonCodes"].some((key) => key in changed);
    return { row: updated, reapplying: policyChanged ? this.reapply(updated, actor) : null };
  }

  /** Every item of the source reconciled under its current policy, a page at a time. */
  async reapply(source: SourceRow, actor?: Actor): Promise<void> {
    const exemptions = await this.applier.exemptions();
    let after = "";
    for (;;) {
      const items = await this.store.transaction(async () => {
        const page = await this.store.itemsAfter(source.id, after, SYNC_PAGE_ITEMS);
        for (const item of page) await this.applier.reconcile(source, item.upstreamId, item, exemptions, { tell: false, overturnReason: "source_policy", actor });
        return page;
      });
      if (items.length < SYNC_PAGE_ITEMS) break;
      after = items.at(-1)!.upstreamId;
      await yieldToRequests();
    }
  }

  /**
   * Stops following; unless `keep`, every entry held from it is overturned with `source_removed`
   * (counted in `progress` as it goes). The source is deleted once that is done.
   */
  async remove(name: string, keep: boolean, actor: Actor, progress = { overturned: 0 }): Promise<{ name: string; removed: true; entries_overturned: number }> {
    const row = await this.source(name);
    if (!keep) {
      for (;;) {
        const done = await this.blacklist.transaction(async () => {
          const held = await this.blacklist.heldPage(row.name, "", SYNC_PAGE_ITEMS);
          for (const entry of held) await this.blacklist.overturn(entry.id, "source_removed", actor);
          return held.length;
        });
        progress.overturned += done;
        if (done < SYNC_PAGE_ITEMS) break;
        await yieldToRequests();
      }
    }
    await this.store.transaction(async () => {
      await this.store.deleteSource(row.id);
      await this.audit.record(actor, "source.removed", {}, { name, keep, entries_overturned: progress.overturned }, this.clock.now());
    });
    return { name, removed: true, entries_overturned: progress.overturned };
  }
}
