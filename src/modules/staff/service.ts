// Staff roles (docs/moderation.md, "Staff"): creators the operator makes `triage`, `moderator` or
// `admin`, from the CLI or the admin API. Each grant and revocation is one transaction with its
// audit event. The guards ask `roleOf` on every staff request. This module owns `staff`.
import { type Clock, iso } from "../../clock";
import type { Database } from "../../db/database";
import type { StaffRole } from "../../domain";
import { notFound } from "../../errors";
import { type Actor, type AuditLog, actorText } from "../audit/service";
import type { CreatorsService } from "../creators/service";
import type { StaffList, StaffMember } from "./model";
import { createStaffStore, type StaffMemberRow, type StaffStore } from "./store";

function toMember(row: StaffMemberRow): typeof StaffMember.static {
  return { handle: row.handle, role: row.role, granted_at: iso(row.grantedAt), granted_by: row.grantedBy };
}

export class StaffService {
  private readonly store: StaffStore;

  constructor(
    database: Database,
    private readonly clock: Clock,
    private readonly creators: CreatorsService,
    private readonly audit: AuditLog,
  ) {
    this.store = createStaffStore(database);
  }

  roleOf(creatorId: string): Promise<StaffRole | null> {
    return this.store.roleOf(creatorId);
  }

  async list(): Promise<typeof StaffList.static> {
    return { data: (await this.store.list()).map(toMember) };
  }

  /** Gives the creator `handle` a role (replacing the one it had). */
  async grant(handle: string, role: StaffRole, actor: Actor): Promise<typeof StaffMember.static> {
    const creator = await this.creators.find(handle);
    if (!creator) throw notFound(`No creator @${handle}: staff are creators, who sign in with links.`);
    const now = this.clock.now();
    const grantedBy = actorText(actor);
    await this.store.transaction(async () => {
      const previous = await this.store.roleOf(creator.id);
      await this.store.put({ creatorId: creator.id, role, grantedAt: now, grantedBy });
      await this.audit.record(actor, "staff.granted", { subject: `creator:${creator.handle}` }, { handle: creator.handle, role, previous }, now);
    });
    return { handle: creator.handle, role, granted_at: iso(now), granted_by: grantedBy };
  }

  /** Takes the creator's role away; `revoked` is false when it had none (nothing is recorded then). */
  async revoke(handle: string, actor: Actor): Promise<{ handle: string; revoked: boolean }> {
    const creator = await this.creators.find(handle);
    if (!creator) throw notFound(`No creator @${handle}.`);
    const now = this.clock.now();
    const revoked = await this.store.transaction(async () => {
      const previous = await this.store.roleOf(creator.id);
      if (previous === null) return false;
      await this.store.remove(creator.id);
      await this.audit.record(actor, "staff.revoked", { subject: `creator:${creator.handle}` }, { handle: creator.handle, previous }, now);
      return true;
    });
    return { handle: creator.handle, revoked };
  }
}
