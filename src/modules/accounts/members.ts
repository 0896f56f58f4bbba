// Account members: the creators who manage an API account in the console (its keys, usage and
// webhooks), added and removed by the operator (`trustlist accounts add-member|remove-member`) or
// an admin in the console, each change in one transaction with its audit event (it gives or takes
// the power to make and revoke the account's keys). Also the console's view of an account's usage: calls per UTC day and
// per endpoint, the persisted counts plus what the meter has not flushed yet.
import { type Clock, iso } from "../../clock";
import type { Database } from "../../db/database";
import type { AccountMemberRole } from "../../domain";
import { notFound } from "../../errors";
import type { Actor, AuditLog } from "../audit/service";
import type { AccountsService, AccountView, PendingUsage, QuotaUsed } from "./service";
import { createMembersStore, type MembersStore } from "./store.members";

export interface MemberView {
  handle: string;
  role: AccountMemberRole;
  added_at: string;
}

export interface Membership {
  account: AccountView;
  role: AccountMemberRole;
}

export interface AccountUsage {
  /** Calls per UTC day, oldest first, every day of the window (0 for none). */
  days: { day: string; count: number }[];
  /** Calls per endpoint over the window, most first. */
  by_endpoint: { endpoint: string; count: number }[];
}

/** What members need of the creators module: a creator by handle. */
export interface CreatorLookup {
  find(handle: string): Promise<{ id: string; handle: string } | null>;
}

export class AccountMembers {
  private readonly store: MembersStore;

  constructor(
    database: Database,
    private readonly clock: Clock,
    private readonly accounts: AccountsService,
    private readonly creators: CreatorLookup,
    private readonly meter: PendingUsage,
    private readonly quota: QuotaUsed,
    private readonly audit: AuditLog,
  ) {
    this.store = createMembersStore(database);
  }

  /** Makes the creator a member of the account (id or name), or changes their role. */
  async add(account: string, handle: string, role: AccountMemberRole, actor: Actor): Promise<MemberView> {
    const owner = await this.accounts.getAccount(account);
    const creator = await this.creators.find(handle);
    if (!creator) throw notFound(`No creator @${handle.replace(/^@/, "").slice(0, 64)}: members are creators, who sign in with links.`);
    const now = this.clock.now();
    const addedAt = await this.store.transaction(async () => {
      const existing = (await this.store.membershipsOf(creator.id)).find((m) => m.accountId === owner.id);
      const since = existing?.addedAt ?? now;
      await this.store.putMember({ accountId: owner.id, creatorId: creator.id, role, addedAt: since });
      const details = { account_id: owner.id, account: owner.name, handle: creator.handle, role, previous: existing?.role ?? null };
      await this.audit.record(actor, "account.member_added", { subject: `creator:${creator.handle}` }, details, now);
      return since;
    });
    return { handle: creator.handle, role, added_at: iso(addedAt) };
  }

  /** Ends the creator's membership; `removed` is false when they were none (nothing is recorded then). */
  async remove(account: string, handle: string, actor: Actor): Promise<{ handle: string; removed: boolean }> {
    const owner = await this.accounts.getAccount(account);
    const creator = await this.creators.find(handle);
    if (!creator) throw notFound(`No creator @${handle.replace(/^@/, "").slice(0, 64)}.`);
    const now = this.clock.now();
    const removed = await this.store.transaction(async () => {
      if (!(await this.store.deleteMember(owner.id, creator.id))) return false;
      await this.audit.record(actor, "account.member_removed", { subject: `creator:${creator.handle}` }, { account_id: owner.id, account: owner.name, handle: creator.handle }, now);
      return true;
    });
    return { handle: creator.handle, removed };
  }

  async list(account: string): Promise<MemberView[]> {
    const owner = await this.accounts.getAccount(account);
    return (await this.store.membersOf(owner.id)).map((m) => ({ handle: m.handle, role: m.role, added_at: iso(m.addedAt) }));
  }

  /** The accounts the creator manages. */
  async accountsOf(creatorId: string): Promise<Membership[]> {
    const rows = await this.store.membershipsOf(creatorId);
    return Promise.all(rows.map(async (m) => ({ account: await this.accounts.getAccount(m.accountId), role: m.role })));
  }

  /** The creator's membership of one account, or null. */
  async membershipOf(creatorId: string, accountId: string): Promise<Membership | null> {
    return (await this.accountsOf(creatorId)).find((m) => m.account.id === accountId) ?? null;
  }

  /** The last UTC day each key of the account was used on (calls not yet flushed included). */
  async lastUsed(accountId: string): Promise<Map<string, string>> {
    const days = await this.store.lastUsedDays(accountId);
    for (const key of await this.accounts.listKeys(accountId)) {
      for (const pending of this.meter.pendingFor(key.id)) if (pending.day > (days.get(key.id) ?? "")) days.set(key.id, pending.day);
    }
    return days;
  }

  /** The account's calls for the last `days` UTC days (today included) and by endpoint over them. */
  async usage(accountId: string, days = 30): Promise<AccountUsage> {
    const now = this.clock.now();
    const today = iso(now).slice(0, 10);
    const from = iso(now - (days - 1) * 86_400_000).slice(0, 10);
    const perDay = new Map((await this.store.usageDays(accountId, from)).map((d) => [d.day, d.count]));
    // Today's count is the quota's, which includes what the meter has not flushed.
    perDay.set(today, Math.max(perDay.get(today) ?? 0, this.quota.used(accountId)));
    const series = Array.from({ length: days }, (_, i) => {
      const day = iso(now - (days - 1 - i) * 86_400_000).slice(0, 10);
      return { day, count: perDay.get(day) ?? 0 };
    });
    const endpoints = new Map((await this.store.endpointCounts(accountId, from)).map((e) => [e.endpoint, e.count]));
    for (const key of await this.accounts.listKeys(accountId)) {
      for (const pending of this.meter.pendingFor(key.id)) {
        if (pending.day >= from) endpoints.set(pending.endpoint, (endpoints.get(pending.endpoint) ?? 0) + pending.count);
      }
    }
    return {
      days: series,
      by_endpoint: [...endpoints].map(([endpoint, count]) => ({ endpoint, count })).sort((a, b) => b.count - a.count || a.endpoint.localeCompare(b.endpoint)),
    };
  }
}
