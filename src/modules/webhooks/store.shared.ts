// What both databases' webhooks stores share: the fields each read names, the endpoint's decoded
// event list, a patch's columns, and the claim's bookkeeping.
import { getTableColumns } from "drizzle-orm";
import type { ClaimedDelivery, ClaimLanes, EndpointPatch, LeasedRow } from "./store";
import { webhookEndpoints } from "./tables";

/** A delivery's fields but the lease: what the deliveries route reads. */
export const DELIVERY_FIELDS = ["id", "endpointId", "eventId", "type", "url", "payload", "status", "attempts", "nextAttemptAt", "createdAt", "finishedAt"] as const;

/** What a claim reads of a delivery (the endpoint's URL and secret come beside). */
export const LEASED_FIELDS = ["id", "endpointId", "type", "url", "payload", "attempts", "createdAt", "nextAttemptAt"] as const;

/** The fan-out's candidates: which endpoint, what it subscribed to, since when. */
export const SUBSCRIBER_FIELDS = ["id", "events", "createdAt"] as const;

/** An endpoint's row with its JSON list of event names decoded. */
export function withEvents<R extends { events: string }>(row: R): Omit<R, "events"> & { events: string[] } {
  return { ...row, events: JSON.parse(row.events) as string[] };
}

const PATCH_FIELDS = ["url", "events", "secret", "enabled", "disabledReason", "disabledAt", "failingSince"] as const;

/** Column assignments of a patch, in a fixed order: [column, value]. */
export function patchColumns(patch: EndpointPatch): [string, unknown][] {
  const columns = getTableColumns(webhookEndpoints);
  return PATCH_FIELDS.filter((field) => patch[field] !== undefined).map((field) => [
    columns[field].name,
    field === "events" ? JSON.stringify(patch.events) : patch[field],
  ]);
}

/** The ids of `claimed` found still pending with the attempts they were claimed with. */
export function stillDueIds(claimed: { id: string; attempts: number }[], found: { id: string; attempts: number | string }[]): Set<string> {
  const attemptsNow = new Map(found.map((r) => [r.id, Number(r.attempts)]));
  return new Set(claimed.filter((r) => attemptsNow.get(r.id) === r.attempts).map((r) => r.id));
}

/** Lane keys without room: for Discord messages, whose lanes are their URLs. */
export function fullLanes(lanes: ClaimLanes): string[] {
  return [...lanes.held].filter(([, n]) => n >= lanes.perLane).map(([key]) => key);
}

/** Oldest due first; ids (time-sortable) break ties. */
export function byDue(a: LeasedRow, b: LeasedRow): number {
  return a.nextAttemptAt - b.nextAttemptAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** A leased row with the URL it goes to and the secret that signs it. */
export function leased(r: LeasedRow, url: string, secret: string | null): ClaimedDelivery {
  return {
    id: r.id,
    endpointId: r.endpointId,
    type: r.type,
    url,
    secret,
    payload: r.payload,
    attempts: r.attempts,
    createdAt: r.createdAt,
    nextAttemptAt: r.nextAttemptAt,
  };
}
