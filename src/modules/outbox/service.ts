// The outbox: an event row is written by the transaction that makes the change it describes, so an
// event exists exactly when its change committed; the webhooks' fan-out takes the events from here
// and marks them dispatched in the transaction that writes their deliveries. This module owns
// `outbox_events`: its SQL lives only in this module's store files.
//
// Every event leaves the server through `Outbox.write`, so what an event may say is decided here,
// once, whoever built it: an account a creator linked privately never shows (the rule of keyless
// answers, public/disclosure.ts). Blacklist events carry the public-safe entry view and nothing
// more. `creator.blacklisted` names its entry only when the entry ties to the creator in public
// (its `creator` field or a public link): announced with the entry id, a ban on a private account
// would let any subscriber read the ban and confirm with a keyed check of a suspected account that
// the account is the creator's. Such a ban is announced by the creator's handle and id alone.
import type { Database } from "../../db/database";
import { newId } from "../../ids";
import { BlacklistEntry } from "../blacklist/model";
import { createOutboxStore, type EntryTie, type OutboxEventRow, type OutboxStore } from "./store";

/** The events a webhook endpoint may subscribe to. */
export const EVENT_TYPES = ["blacklist.added", "blacklist.overturned", "deal.confirmed", "deal.declined", "creator.blacklisted"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The fields of the public-safe entry view: all a blacklist event's data may hold. */
const PUBLIC_ENTRY_FIELDS = Object.keys(BlacklistEntry.properties);

/** Whether an event may name the entry beside the creator: a public tie, and no private link. */
function tiedInPublic(tie: EntryTie | null): boolean {
  return tie !== null && tie.link !== false && (tie.named || tie.link === true);
}

export class Outbox {
  private readonly store: OutboxStore;

  constructor(database: Database) {
    this.store = createOutboxStore(database);
  }

  /**
   * Records one event, as much of `data` as may leave the server (the rule at the top of this
   * file); the caller holds the transaction of the change.
   */
  async write(type: EventType, data: object, at: number): Promise<void> {
    await this.store.insert(newId("evt", at), type, JSON.stringify(await this.disclosed(type, data)), at);
  }

  /** Several events of one write, in order. */
  async writeMany(events: Array<{ type: EventType; data: object; at: number }>): Promise<void> {
    const rows = [];
    for (const { type, data, at } of events) rows.push({ id: newId("evt", at), type, payload: JSON.stringify(await this.disclosed(type, data)), at });
    await this.store.insertMany(rows);
  }

  private async disclosed(type: EventType, data: object): Promise<object> {
    switch (type) {
      case "blacklist.added":
      case "blacklist.overturned":
        return Object.fromEntries(Object.entries(data).filter(([field]) => PUBLIC_ENTRY_FIELDS.includes(field)));
      case "creator.blacklisted": {
        const { creator_id, handle, entry_id } = data as { creator_id: string; handle: string; entry_id?: string | null };
        const shown = typeof entry_id === "string" && tiedInPublic(await this.store.entryTie(entry_id, creator_id));
        return { creator_id, handle, entry_id: shown ? entry_id : null };
      }
      case "deal.confirmed":
      case "deal.declined":
        return data;
    }
  }

  /** Events waiting for delivery (the `trustlist_outbox_pending_events` gauge). */
  pendingCount(): Promise<number> {
    return this.store.pendingCount();
  }

  /** Whether any event waits to be fanned out: the fan-out's cheap look before its transaction. */
  hasPending(): Promise<boolean> {
    return this.store.hasPending();
  }

  /**
   * Takes up to `limit` pending events, oldest first, marked dispatched at `at`: call it inside the
   * transaction that writes their deliveries (OutboxStore.take).
   */
  take(limit: number, at: number): Promise<OutboxEventRow[]> {
    return this.store.take(limit, at);
  }

  /** Deletes up to `limit` dispatched events older than `cutoff`; returns how many. */
  pruneDispatched(cutoff: number, limit: number): Promise<number> {
    return this.store.pruneDispatched(cutoff, limit);
  }

  /** Time of the oldest event not dispatched yet; null when none. */
  oldestPendingAt(): Promise<number | null> {
    return this.store.oldestPendingAt();
  }
}
