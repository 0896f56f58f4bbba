// The audit log (docs/moderation.md, "The audit log"): every path that changes an entry, case,
// report, appeal or staff role calls `record` inside the transaction of its change, so an event
// exists exactly when its change committed. Nothing updates or deletes an event; the export writes
// them all and an import of that export restores them unchanged. This module owns `audit_events`.
import { iso } from "../../clock";
import type { CursorCodec } from "../../cursor";
import type { Database } from "../../db/database";
import { AUDIT_ACTOR_KINDS, type AuditActorKind } from "../../domain";
import { invalid, ServiceError } from "../../errors";
import { newId } from "../../ids";
import type { Actor, AuditEvent, AuditQuery } from "./model";
import { type AuditFilters, type AuditRow, type AuditStore, createAuditStore } from "./store";

export type { Actor } from "./model";
export type { AuditRow } from "./store";

/** What an event is about, beside its action: the ids it names. */
export interface AuditRefs {
  entryId?: string | null;
  caseId?: string | null;
  appealId?: string | null;
  /** `provider:id` of a platform account, or `creator:handle`. */
  subject?: string | null;
}

type AuditEventView = typeof AuditEvent.static;

/** `provider:id`, the subject an audit event and a case name a platform account by. */
export function accountSubject(provider: string, providerUserId: string): string {
  return `${provider}:${providerUserId}`;
}

/** `kind:id`, how a table that keeps who acted names the actor. */
export function actorText(actor: Actor): string {
  return `${actor.kind}:${actor.id}`;
}

/** The actor `actorText` wrote, or null when the text is not one. */
export function parseActor(text: string): Actor | null {
  const colon = text.indexOf(":");
  if (colon <= 0) return null;
  const kind = text.slice(0, colon);
  const id = text.slice(colon + 1);
  if (!(AUDIT_ACTOR_KINDS as readonly string[]).includes(kind) || id === "") return null;
  return { kind: kind as AuditActorKind, id };
}

export function toAuditEvent(row: AuditRow): AuditEventView {
  const event: AuditEventView = {
    id: row.id,
    at: iso(row.at),
    actor: { kind: row.actorKind, id: row.actorId },
    action: row.action,
    details: JSON.parse(row.details) as Record<string, unknown>,
  };
  if (row.entryId !== null) event.entry_id = row.entryId;
  if (row.caseId !== null) event.case_id = row.caseId;
  if (row.appealId !== null) event.appeal_id = row.appealId;
  if (row.subject !== null) event.subject = row.subject;
  return event;
}

/** One event to record: who, what, what it is about, its details and when. */
export interface EventToRecord {
  actor: Actor;
  action: string;
  refs: AuditRefs;
  details: object;
  at: number;
}

function auditRow({ actor, action, refs, details, at }: EventToRecord): Omit<AuditRow, "seq"> {
  return {
    id: newId("aud", at),
    at,
    actorKind: actor.kind,
    actorId: actor.id,
    action,
    entryId: refs.entryId ?? null,
    caseId: refs.caseId ?? null,
    appealId: refs.appealId ?? null,
    subject: refs.subject ?? null,
    details: JSON.stringify(details),
  };
}

export class AuditLog {
  private readonly store: AuditStore;

  constructor(
    database: Database,
    private readonly cursors: CursorCodec,
  ) {
    this.store = createAuditStore(database);
  }

  /** Appends one event at `at`; call it inside the transaction of the change it records. */
  async record(actor: Actor, action: string, refs: AuditRefs, details: object, at: number): Promise<void> {
    await this.store.insert(auditRow({ actor, action, refs, details, at }));
  }

  /** Appends events in order, as `record` would each (a sync's page of entries). */
  async recordMany(events: EventToRecord[]): Promise<void> {
    if (events.length > 0) await this.store.insertMany(events.map(auditRow));
  }

  /** One page of the log, newest first, narrowed by the query's filters. */
  async list(query: typeof AuditQuery.static): Promise<{ data: AuditEventView[]; next_cursor: string | null; has_more: boolean }> {
    const limit = query.limit ?? 50;
    let before = Number.MAX_SAFE_INTEGER;
    if (query.cursor !== undefined) {
      const position = this.cursors.decode(query.cursor);
      if (!position || position.k !== "audit" || typeof position.s !== "number") {
        throw new ServiceError("invalid_cursor", "The cursor is malformed or was not issued by this server.");
      }
      before = position.s;
    }
    const filters: AuditFilters = {};
    if (query.entry !== undefined) filters.entryId = query.entry;
    if (query.subject !== undefined) filters.subject = query.subject;
    if (query.action !== undefined) filters.action = query.action;
    if (query.actor !== undefined) {
      const actor = parseActor(query.actor);
      if (!actor) throw invalid(`actor must be kind:id with kind one of ${AUDIT_ACTOR_KINDS.join(", ")} (staff:alicemod, job:expiry).`);
      filters.actorKind = actor.kind;
      filters.actorId = actor.id;
    }
    const rows = await this.store.page(filters, before, limit + 1);
    const hasMore = rows.length > limit;
    const page = hasMore ? rows.slice(0, limit) : rows;
    const last = page[page.length - 1];
    return {
      data: page.map(toAuditEvent),
      next_cursor: hasMore && last ? this.cursors.encode({ k: "audit", s: last.seq }) : null,
      has_more: hasMore,
    };
  }

  /** A case's history: every event about it, oldest first. */
  async ofCase(caseId: string): Promise<AuditEventView[]> {
    return (await this.store.ofCase(caseId)).map(toAuditEvent);
  }
}
