// Tripping the wires. The events come from the modules that own them, inside their writing
// transactions: the blacklist (a ban naming a Discord account), the creators module's score (a
// drop, a creator becoming blacklisted) and its links (a new public account). A trip is counted,
// and the owner's Discord alert queued through the webhooks outbox, by that same transaction.
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
import type { TripwireTarget } from "../../domain";
import type { BlacklistService, EntryRow } from "../blacklist/service";
import type { ConnectionRow, CreatorRow, CreatorsService, TrustChange } from "../creators/service";
import { TRIGGERS, type Trigger } from "./model";
import type { TripwiresStore, WireRow } from "./store";

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

/** Listens to the owning modules' changes from construction on, and trips the wires they match. */
export class TripwireTrips {
  constructor(
    private readonly store: TripwiresStore,
    private readonly creators: CreatorsService,
    blacklist: BlacklistService,
    private readonly alerts: DiscordAlerts,
  ) {
    blacklist.onEntryChange(
      (row, change, emit) => (emit && change === "added" ? this.afterEntryAdded(row) : undefined),
      (rows, change, emit) => (emit && change === "added" ? this.afterEntriesAdded(rows) : undefined),
    );
    creators.onTrustChange((change) => this.afterTrustChange(change));
    creators.onConnectionAdded((creator, connection, at) => this.afterConnectionAdded(creator, connection, at));
  }

  /** A sync's page: the accounts any wire watches are looked up at once, and only those trip. */
  private async afterEntriesAdded(rows: EntryRow[]): Promise<void> {
    const candidates = rows.filter(trips);
    if (candidates.length === 0) return;
    const watched = await this.store.watchedAmong("discord", [...new Set(candidates.map((row) => row.providerUserId))]);
    for (const row of candidates) if (watched.has(row.providerUserId)) await this.afterEntryAdded(row);
  }

  private afterEntryAdded(row: EntryRow): Promise<void> | undefined {
    if (!trips(row)) return;
    return this.trip({
      target: "discord",
      watched: row.providerUserId,
      messages: { blacklisted: `Tripwire: Discord account ${row.providerUserId} was blacklisted (${row.reasonCode}).` },
      at: row.createdAt,
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
        watched: connection.providerUserId,
        messages: { new_connection: `Tripwire: Discord account ${connection.providerUserId} was linked to ${handle}.` },
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

/** An entry a Discord account's wire trips on: an active, confirmed ban of that account. */
function trips(row: EntryRow): boolean {
  return row.provider === "discord" && row.status === "active" && !row.watchlist && row.severity === "ban";
}
