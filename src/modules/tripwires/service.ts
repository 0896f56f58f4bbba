// Tripwires (SPEC section 6): a signed-in creator watches a handle or a Discord account and is
// told when it is blacklisted, its Trust Score drops, or it links a new account. The events come
// from the modules that own them, inside their writing transactions: the blacklist (a ban naming a
// Discord account), the creators module's score (a drop, a creator becoming blacklisted) and its
// links (a new public account). A trip is counted, and the owner's Discord alert queued through the
// webhooks outbox, by that same transaction.
//
// What a wire on a Discord id watches: `blacklisted` when a ban names that Discord account itself;
// `trust_drop` and `new_connection` through the creator that account is publicly linked to. Private
// links never trip a wire through the link: the alert would tie the account to the creator. Each
// alert names only its own wire's subject (the handle, or the Discord id), never an entry id. A
// wire matching several triggers of one change (a ban that also drops the score) trips once; a ban
// naming a watched Discord account that is publicly linked to a creator is two events for that
// wire: the ban, and the creator's score drop.
//
// A ban on a privately linked Discord account trips a wire on that account and, as the creator
// becomes blacklisted, a wire on the creator's handle, in one transaction: whoever set both sees
// them trip together. They are not held back to hide that: the same transaction makes the
// creator's `blacklisted` flag public (profile, trust tier, badge) and the account's keyed check
// a hit, so anyone able to set both wires can poll both and see the same coincidence; delaying
// the alerts would only delay a warning to the people it protects.
import { type Clock, iso } from "../../clock";
import type { Database } from "../../db/database";
import type { TripwireTarget } from "../../domain";
import { ServiceError, conflict, notFound, unprocessable } from "../../errors";
import { newId } from "../../ids";
import { normalizeHandle } from "../../values";
import { type BlacklistService, type EntryRow, normalizeAccountId } from "../blacklist/service";
import type { ConnectionRow, CreatorRow, CreatorsService, TrustChange } from "../creators/service";
import type { Viewer } from "../sessions/service";
import type * as Model from "./model";
import { TRIGGERS, type Trigger } from "./model";
import { createTripwiresStore, type PreferencesRow, type TripwiresStore, type WireRow } from "./store";

export type Tripwire = typeof Model.Tripwire.static;
export type TripwireList = typeof Model.TripwireList.static;
export type TripwirePreferences = typeof Model.TripwirePreferences.static;

/** Wires one creator may arm. */
export const MAX_WIRES_PER_OWNER = 100;

const EMAIL = /^[^\s@<>",;]{1,64}@[^\s@<>",;]{1,189}\.[^\s@<>",;]{2,63}$/;

/** Where alerts are posted: the webhooks module's Discord messages (same worker, retries and guard). */
export interface DiscordAlerts {
  checkDiscordUrl(url: string): Promise<string>;
  queueDiscordMessage(url: string, content: string, at: number): Promise<string>;
}

/** One event on a watched thing, with the alert text for each trigger it matches. */
interface Tripping {
  target: TripwireTarget;
  watched: string;
  /** By trigger, in order of precedence: a wire matching several trips once, alerted with the first. */
  messages: Partial<Record<Trigger, string>>;
  at: number;
}

function whoOf(row: WireRow): string {
  return row.target === "handle" ? `@${row.watched}` : row.watched;
}

function view(row: WireRow): Tripwire {
  return {
    id: row.id,
    who: whoOf(row),
    triggers: row.triggers.split(",") as Trigger[],
    created_at: iso(row.createdAt),
    trips: row.trips,
    last_tripped_at: iso(row.lastTrippedAt),
  };
}

/** A handle with @, or a Discord id (17-20 digits); 422 otherwise. */
function parseWho(raw: string): { target: TripwireTarget; watched: string } {
  const text = raw.trim();
  if (/^\d{17,20}$/.test(text)) return { target: "discord", watched: normalizeAccountId("discord", text)! };
  const handle = normalizeHandle(text);
  if (handle === null || /^\d+$/.test(handle)) {
    throw unprocessable(`who: '${text.slice(0, 40)}' is neither a handle (2-32 of a-z, 0-9, '_', '.') nor a Discord id (17-20 digits).`);
  }
  return { target: "handle", watched: handle };
}

export class TripwiresService {
  private readonly store: TripwiresStore;

  constructor(
    database: Database,
    private readonly clock: Clock,
    private readonly creators: CreatorsService,
    blacklist: BlacklistService,
    private readonly alerts: DiscordAlerts,
  ) {
    this.store = createTripwiresStore(database);
    blacklist.onEntryChange((row, change, emit) => (emit && change === "added" ? this.afterEntryAdded(row) : undefined));
    creators.onTrustChange((change) => this.afterTrustChange(change));
    creators.onConnectionAdded((creator, connection, at) => this.afterConnectionAdded(creator, connection, at));
  }

  // ---- the owner's routes -----------------------------------------------------------------------

  async list(viewer: Viewer): Promise<TripwireList> {
    const [wires, preferences] = await Promise.all([this.store.wiresOf(viewer.creatorId), this.store.preferencesOf(viewer.creatorId)]);
    return {
      tripwires: wires.map(view),
      stats: { armed: wires.length, tripped_total: wires.reduce((sum, w) => sum + w.trips, 0) },
      preferences: preferencesView(preferences),
    };
  }

  async create(viewer: Viewer, input: { who: string; triggers?: Trigger[] }): Promise<Tripwire> {
    const { target, watched } = parseWho(input.who);
    const triggers = TRIGGERS.filter((name) => (input.triggers ?? TRIGGERS).includes(name));
    const now = this.clock.now();
    const row: WireRow = { id: newId("tw", now), ownerId: viewer.creatorId, target, watched, triggers: triggers.join(","), trips: 0, lastTrippedAt: null, createdAt: now };
    await this.store.transaction(async () => {
      const existing = await this.store.wiresOf(viewer.creatorId);
      if (existing.length >= MAX_WIRES_PER_OWNER) throw new ServiceError("limit", `You have ${MAX_WIRES_PER_OWNER} tripwires armed, the most one creator may; delete one first.`);
      if (existing.some((w) => w.target === target && w.watched === watched)) {
        throw conflict(`You already have a tripwire on ${whoOf(row)}; delete it to arm another with different triggers.`);
      }
      await this.store.insertWire(row);
    });
    return view(row);
  }

  /** Deletes one of the viewer's wires; another creator's wire is 404, as if it did not exist. */
  async delete(viewer: Viewer, id: string): Promise<Tripwire> {
    const row = await this.store.deleteWire(viewer.creatorId, id);
    if (!row) throw notFound(`You have no tripwire ${id.slice(0, 64)}.`);
    return view(row);
  }

  /** Sets where alerts go; fields left out keep their value. The Discord URL passes the webhook guard. */
  async setPreferences(viewer: Viewer, input: { discord_webhook_url?: string | null; email?: string | null }): Promise<TripwirePreferences> {
    const current = (await this.store.preferencesOf(viewer.creatorId)) ?? { discordWebhookUrl: null, email: null };
    const next: PreferencesRow = { ...current };
    if (input.discord_webhook_url !== undefined) {
      next.discordWebhookUrl = input.discord_webhook_url === null ? null : await this.alerts.checkDiscordUrl(input.discord_webhook_url.trim());
    }
    if (input.email !== undefined) {
      const email = input.email?.trim() ?? null;
      if (email !== null && !EMAIL.test(email)) throw unprocessable("email: not an e-mail address.");
      next.email = email;
    }
    await this.store.setPreferences(viewer.creatorId, next, this.clock.now());
    return preferencesView(next);
  }

  // ---- events from the owning modules, inside their transactions --------------------------------

  private afterEntryAdded(row: EntryRow): Promise<void> | undefined {
    if (row.provider !== "discord" || row.status !== "active" || row.watchlist || row.severity !== "ban") return;
    return this.trip({
      target: "discord",
      watched: row.provider_user_id,
      messages: { blacklisted: `Tripwire: Discord account ${row.provider_user_id} was blacklisted (${row.reason_code}).` },
      at: row.created_at,
    });
  }

  private async afterTrustChange(change: TrustChange): Promise<void> {
    const handle = `\`@${change.handle}\``;
    const messages: Tripping["messages"] = {};
    if (change.becameBlacklisted) messages.blacklisted = `Tripwire: ${handle} was blacklisted.`;
    if (change.after < change.before) messages.trust_drop = `Tripwire: the Trust Score of ${handle} dropped from ${change.before} to ${change.after}.`;
    await this.trip({ target: "handle", watched: change.handle, messages, at: change.at });
    if (messages.trust_drop === undefined) return;
    for (const id of await this.creators.publicAccountIds(change.creatorId, "discord")) {
      await this.trip({
        target: "discord",
        watched: id,
        messages: { trust_drop: `Tripwire: the Trust Score of ${handle}, who linked Discord account ${id}, dropped from ${change.before} to ${change.after}.` },
        at: change.at,
      });
    }
  }

  private async afterConnectionAdded(creator: CreatorRow, connection: ConnectionRow, at: number): Promise<void> {
    if (!connection.public) return;
    const handle = `\`@${creator.handle}\``;
    await this.trip({ target: "handle", watched: creator.handle, messages: { new_connection: `Tripwire: ${handle} linked a new ${connection.provider} account.` }, at });
    if (connection.provider === "discord") {
      await this.trip({
        target: "discord",
        watched: connection.provider_user_id,
        messages: { new_connection: `Tripwire: Discord account ${connection.provider_user_id} was linked to ${handle}.` },
        at,
      });
    }
  }

  /** Counts one trip on every wire whose triggers match, and queues each owner's Discord alert. */
  private async trip(event: Tripping): Promise<void> {
    if (Object.keys(event.messages).length === 0) return;
    const matched: Array<{ wire: WireRow; message: string }> = [];
    for (const wire of await this.store.wiresWatching(event.target, event.watched)) {
      const triggers = wire.triggers.split(",") as Trigger[];
      const trigger = TRIGGERS.find((name) => event.messages[name] !== undefined && triggers.includes(name));
      if (trigger) matched.push({ wire, message: event.messages[trigger]! });
    }
    if (matched.length === 0) return;
    await this.store.recordTrips(
      matched.map((m) => m.wire.id),
      event.at,
    );
    for (const { wire, message } of matched) {
      const url = (await this.store.preferencesOf(wire.ownerId))?.discordWebhookUrl;
      if (url) await this.alerts.queueDiscordMessage(url, message, event.at);
    }
  }
}

function preferencesView(row: PreferencesRow | null): TripwirePreferences {
  return { discord_webhook_url: row?.discordWebhookUrl ?? null, email: row?.email ?? null };
}
