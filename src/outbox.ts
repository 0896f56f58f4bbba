// The write side of the webhook outbox: an event row is written by the transaction that makes the
// change it describes, so an event exists exactly when its change committed.
import type { Database, Statement } from "bun:sqlite";
import { newId } from "./ids";

/** Event names of seed section 6. */
export const EVENT_TYPES = ["blacklist.added", "blacklist.overturned", "deal.confirmed", "deal.declined", "creator.blacklisted"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export class Outbox {
  private readonly insert: Statement;

  constructor(sqlite: Database) {
    this.insert = sqlite.prepare("INSERT INTO outbox_events (id, type, payload, created_at) VALUES (?1, ?2, ?3, ?4)");
  }

  /** Records one event; the caller holds the transaction of the change. */
  write(type: EventType, data: unknown, at: number): void {
    this.insert.run(newId("evt", at), type, JSON.stringify(data), at);
  }
}
