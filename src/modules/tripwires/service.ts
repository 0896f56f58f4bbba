// Tripwires: a signed-in creator watches a handle or a Discord account and is told when it is
// blacklisted, its Trust Score drops, or it links a new account. This file is the owner's side
// (arming, listing, deleting wires, and where alerts go); trips.ts trips the wires from the
// changes of the modules that own the events, inside their transactions.
import { type Clock, iso } from "../../clock";
import type { Database } from "../../db/database";
import type { TripwireTarget } from "../../domain";
import { ServiceError, conflict, notFound, unprocessable } from "../../errors";
import { newId } from "../../ids";
import { normalizeHandle } from "../../values";
import { type BlacklistService, normalizeAccountId } from "../blacklist/service";
import type { CreatorsService } from "../creators/service";
import type { Viewer } from "../sessions/service";
import type * as Model from "./model";
import { TRIGGERS, type Trigger } from "./model";
import { createTripwiresStore, type PreferencesRow, type TripwiresStore, type WireRow } from "./store";
import { type DiscordAlerts, TripwireTrips } from "./trips";

export type Tripwire = typeof Model.Tripwire.static;
export type TripwireList = typeof Model.TripwireList.static;
export type TripwirePreferences = typeof Model.TripwirePreferences.static;
export type NewTripwire = typeof Model.TripwireBody.static;
export type PreferencesChanges = typeof Model.PreferencesBody.static;

/** Wires one creator may arm. */
export const MAX_WIRES_PER_OWNER = 100;

const EMAIL = /^[^\s@<>",;]{1,64}@[^\s@<>",;]{1,189}\.[^\s@<>",;]{2,63}$/;

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
    creators: CreatorsService,
    blacklist: BlacklistService,
    private readonly alerts: DiscordAlerts,
  ) {
    this.store = createTripwiresStore(database);
    // Subscribes to the blacklist's and the creators' changes; the service never calls it.
    new TripwireTrips(this.store, creators, blacklist, alerts);
  }

  async list(viewer: Viewer): Promise<TripwireList> {
    const [wires, preferences] = await Promise.all([this.store.wiresOf(viewer.creatorId), this.store.preferencesOf(viewer.creatorId)]);
    return {
      tripwires: wires.map(view),
      stats: { armed: wires.length, tripped_total: wires.reduce((sum, w) => sum + w.trips, 0) },
      preferences: preferencesView(preferences),
    };
  }

  async create(viewer: Viewer, input: NewTripwire): Promise<Tripwire> {
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
  async setPreferences(viewer: Viewer, input: PreferencesChanges): Promise<TripwirePreferences> {
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
}

function preferencesView(row: PreferencesRow | null): TripwirePreferences {
  return { discord_webhook_url: row?.discordWebhookUrl ?? null, email: row?.email ?? null };
}
