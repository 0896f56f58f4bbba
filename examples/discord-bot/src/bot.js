// @ts-check
// The bot itself, on any client shaped like discord.js's: main.js hands it the real one, the tests
// a fake gateway client. It checks each member who joins (through the join queue, so a raid cannot
// spend the day's quota at once) and retries the ones it could not check; sweeps a server's current
// members on demand within the key's quota; follows trustlist's change feed and lifts its own
// ban, timeout or quarantine when the entry behind it is overturned; and answers /trustcheck,
// /trustlist (per-server settings) and /appeal. What it decides comes from policy.js, what it asks
// trustlist goes through checker.js and the SDK, what it remembers lives in state.js.
import { createChecker, BATCH_SIZE } from "./checker.js";
import { APPEAL, GLOBAL_COMMANDS, GUILD_COMMANDS, MANAGE_GUILD, TRUSTCHECK, TRUSTLIST } from "./commands.js";
import { JoinQueue } from "./join-queue.js";
import { ALLOWED_ACTIONS, decide, describeFailure, describeSearch, DOING, duration, explain, failureKind, LIFTABLE, verdictOf } from "./policy.js";
import { VERTICALS } from "./state.js";

/** Discord's flag for an answer only its asker sees. */
const EPHEMERAL = 64;
/** A member whose check failed this many times is reported and dropped. */
const MAX_ATTEMPTS = 20;
/** Longest wait between two tries during an outage. */
const MAX_OUTAGE_WAIT_MS = 15 * 60_000;

/** The event names of discord.js v14 (its `Events`); main.js passes the library's own. */
export const DEFAULT_EVENTS = { ready: "clientReady", guildCreate: "guildCreate", memberAdd: "guildMemberAdd", interaction: "interactionCreate" };

/**
 * @typedef {{ id: string, name?: string, members: any, channels: any, commands?: any }} GuildLike
 * @typedef {{ id: string, user: { id: string, tag: string, bot?: boolean }, guild: GuildLike, ban: Function, kick: Function, timeout: Function, roles: any }} MemberLike
 * @typedef {{ member: MemberLike, attempt: number }} Join
 * @typedef {{
 *   cacheTtlMs?: number, joinBatch?: boolean, joinIntervalMs?: number, maxPendingJoins?: number,
 *   followPollMs?: number, sweepReserve?: number, follow?: boolean,
 * }} BotOptions
 */

/**
 * @param {{
 *   client: any,
 *   tl: import("@trustlist/sdk").Trustlist,
 *   state: import("./state.js").BotState,
 *   options?: BotOptions,
 *   events?: typeof DEFAULT_EVENTS,
 *   log?: Pick<Console, "log" | "warn" | "error">,
 *   schedule?: (run: () => void, ms: number) => { cancel: () => void },
 *   wait?: (ms: number) => Promise<void>,
 *   random?: () => number,
 * }} deps
 */
export function createBot(deps) {
  const { client, tl, state, log = console, random = Math.random } = deps;
  const options = deps.options ?? {};
  const events = deps.events ?? DEFAULT_EVENTS;
  const checker = createChecker({ tl, ttlMs: options.cacheTtlMs, batch: options.joinBatch });
  const stopping = new AbortController();
  /** The failure last reported per server, so an outage is one message, not one per join. @type {Map<string, string>} */
  const reported = new Map();

  const who = (/** @type {MemberLike} */ member) => `${member.user.tag} (${member.id})`;

  /** Posts to the server's own mod-log channel; without one, to the bot's log. */
  async function modLog(/** @type {GuildLike} */ guild, /** @type {string} */ text) {
    const { modLogChannelId } = state.settings(guild.id);
    const channel = modLogChannelId ? await guild.channels.fetch(modLogChannelId).catch(() => null) : null;
    if (channel?.isSendable?.()) {
      await channel.send({ content: text.slice(0, 2000), allowedMentions: { parse: [] } }).catch((/** @type {Error} */ error) => log.warn(`could not post in ${guild.name}'s mod-log: ${error.message}`));
    } else {
      log.log(`[${guild.name ?? guild.id}] ${modLogChannelId ? "the mod-log channel is gone or closed to the bot; " : "no mod-log channel set (/trustlist channel); "}${text}`);
    }
  }

  /**
   * What the server's settings say to do about `member`, done and reported. Undoable actions are
   * recorded with the entry behind them.
   * @param {MemberLike} member
   * @param {import("./policy.js").CheckLike} check
   */
  async function act(member, check) {
    const guild = member.guild;
    const settings = state.settings(guild.id);
    const decision = decide(check, { actions: settings.actions, who: who(member) });
    if (decision.action === "none") return decision;
    const lines = explain(check, who(member));
    const action = decision.action;
    if (action === "quarantine" && !settings.quarantineRoleId) {
      lines.push("The bot took no action: quarantine is chosen but no quarantine role is set (/trustlist quarantine-role); moderators were alerted.");
      await modLog(guild, lines.join("\n"));
      return decision;
    }
    const reason = `trustlist: ${decision.reason ?? decision.verdict}`.slice(0, 500);
    // The entry behind an undoable action, so its overturn lifts it; a batch row does not name it.
    let entryId = check.entry?.id;
    if (!entryId && LIFTABLE.includes(action)) entryId = (await checker.discordUser(member.id, settings.vertical).catch(() => null))?.entry?.id;
    try {
      if (action === "ban") await member.ban({ reason });
      if (action === "kick") await member.kick(reason);
      if (action === "timeout") await member.timeout(settings.timeoutMinutes * 60_000, reason);
      if (action === "quarantine") await member.roles.add(settings.quarantineRoleId, reason);
    } catch (error) {
      lines.push(`But the ${action} failed: ${/** @type {Error} */ (error).message}. Check the bot's role (above the member's) and its permissions.`);
      await modLog(guild, lines.join("\n"));
      return decision;
    }
    if (action === "ban" || action === "timeout" || action === "quarantine") {
      if (entryId) state.recordAction({ guildId: guild.id, userId: member.id, entryId, action, roleId: action === "quarantine" ? settings.quarantineRoleId : null, at: new Date().toISOString() });
      else lines.push("The bot could not learn which entry this is, so it will not lift this by itself if the entry is overturned.");
    }
    lines.push(DOING[action]);
    await modLog(guild, lines.join("\n"));
    return decision;
  }

  /** When to try a failed check again: the quota's reset or the rate limit's wait, else a growing backoff. */
  function retryDelay(/** @type {unknown} */ error, /** @type {number} */ attempt) {
    const e = /** @type {{ retryAfter?: number | null }} */ (error);
    const kind = failureKind(error);
    if ((kind === "quota" || kind === "rate") && e.retryAfter) return e.retryAfter * 1000 + Math.floor(random() * 30_000);
    const step = Math.min(MAX_OUTAGE_WAIT_MS, 30_000 * 2 ** (attempt - 1));
    return step / 2 + Math.floor(random() * (step / 2));
  }

  /** A check that failed: queued again for later, reported once per kind of failure and server. */
  async function failed(/** @type {Join} */ join, /** @type {unknown} */ error) {
    const guild = join.member.guild;
    const kind = failureKind(error);
    if (kind === "refused" || join.attempt >= MAX_ATTEMPTS) {
      const gaveUp = join.attempt >= MAX_ATTEMPTS ? ` The bot tried ${join.attempt} times and stops here.` : "";
      return modLog(guild, describeFailure(error, { who: who(join.member), retryInMs: null }) + gaveUp);
    }
    const ms = retryDelay(error, join.attempt);
    joins.retry({ member: join.member, attempt: join.attempt + 1 }, ms);
    if (reported.get(guild.id) === kind) return;
    reported.set(guild.id, kind);
    await modLog(guild, `${describeFailure(error, { who: who(join.member), retryInMs: ms })} Members who join meanwhile wait too, and are checked when trustlist answers.`);
  }

  const joins = new JoinQueue({
    key: (/** @type {Join} */ join) => `${join.member.guild.id}:${join.member.id}`,
    batchSize: options.joinBatch ? BATCH_SIZE : 1,
    intervalMs: options.joinIntervalMs ?? 2000,
    maxPending: options.maxPendingJoins ?? 1000,
    schedule: deps.schedule,
    wait: deps.wait,
    async process(/** @type {Join[]} */ batch) {
      // One call per vertical: servers in one step may count different games.
      /** @type {Map<string, Join[]>} */
      const byVertical = new Map();
      for (const join of batch) {
        const vertical = state.settings(join.member.guild.id).vertical;
        byVertical.set(vertical, [...(byVertical.get(vertical) ?? []), join]);
      }
      for (const [vertical, group] of byVertical) {
        const results = await checker.discordUsers(group.map((j) => j.member.id), vertical);
        for (const join of group) {
          const result = results.get(join.member.id);
          if (!result || result instanceof Error) {
            await failed(join, result);
            continue;
          }
          if (reported.delete(join.member.guild.id)) await modLog(join.member.guild, "trustlist answers again: the members who waited are being checked.");
          await act(join.member, result);
        }
      }
    },
    onError: (error, batch) => void Promise.all(batch.map((join) => failed(join, error))),
    onOverflow: (join, pending) => void modLog(join.member.guild, `Raid? ${pending} joins are waiting to be checked, so ${who(join.member)} was not queued and is not checked.`),
  });

  /**
   * Checks every current member of `guild` (bots aside) and acts as on a join, within the key's
   * quota: it reads what is left today, keeps `sweepReserve` calls for joins, and checks as many
   * members as the rest allows (50 a call with batches). Answers a summary for the asker.
   * @param {GuildLike} guild
   */
  async function sweep(guild) {
    const settings = state.settings(guild.id);
    const members = [...(await guild.members.fetch()).values()].filter((/** @type {MemberLike} */ m) => !m.user.bot);
    const usage = await tl.usage();
    const reserve = options.sweepReserve ?? 20;
    const calls = Math.max(0, usage.rate_limit.remaining - reserve);
    const perCall = options.joinBatch ? BATCH_SIZE : 1;
    const reach = Math.min(members.length, calls * perCall);
    const resetIn = duration(usage.rate_limit.reset * 1000 - Date.now());
    if (reach === 0 && members.length > 0) {
      return `Not swept: the key has ${usage.rate_limit.remaining} calls left today and the bot keeps ${reserve} for joins. The quota resets in ${resetIn}.`;
    }
    const swept = members.slice(0, reach);
    const results = await checker.discordUsers(swept.map((m) => m.id), settings.vertical);
    /** @type {Record<string, number>} */
    const counts = { banned: 0, restricted: 0, warned: 0, watchlist: 0, clean: 0 };
    let failures = 0;
    /** @type {unknown} */
    let lastError = null;
    for (const member of swept) {
      const result = results.get(member.id);
      if (!result || result instanceof Error) {
        failures++;
        lastError = result;
        continue;
      }
      counts[verdictOf(result)]++;
      await act(member, result);
    }
    const lines = [
      `Swept ${swept.length} of ${members.length} members (vertical ${settings.vertical}): ${Object.entries(counts).map(([v, n]) => `${v} ${n}`).join(", ")}.`,
      ...(failures ? [`${failures} could not be checked: ${describeFailure(lastError).replace(/^not checked: /, "")}`] : []),
      ...(reach < members.length ? [`The other ${members.length - reach} need more of the daily quota than is left; run the sweep again after it resets in ${resetIn}.`] : []),
    ];
    await modLog(guild, lines.join("\n"));
    return lines.join("\n");
  }

  /** Lifts what the bot did because of `entryId` (now overturned), in every server, and says so in each mod-log. */
  async function lift(/** @type {string} */ entryId) {
    for (const taken of state.actionsFor(entryId)) {
      checker.forget(taken.userId);
      const guild = client.guilds.cache.get(taken.guildId) ?? (await client.guilds.fetch(taken.guildId).catch(() => null));
      if (!guild) {
        state.forgetAction(taken);
        continue;
      }
      const reason = `trustlist: entry ${entryId} was overturned`;
      const noun = { ban: "ban", timeout: "timeout", quarantine: "quarantine role" }[taken.action];
      try {
        if (taken.action === "ban") await guild.members.unban(taken.userId, reason);
        else {
          const member = await guild.members.fetch(taken.userId);
          if (taken.action === "timeout") await member.timeout(null, reason);
          else await member.roles.remove(taken.roleId, reason);
        }
        await modLog(guild, `Entry ${entryId} was overturned on trustlist: the bot lifted its ${noun} of <@${taken.userId}> (${taken.userId}).`);
      } catch (error) {
        await modLog(guild, `Entry ${entryId} was overturned on trustlist, but the bot could not lift its ${noun} of <@${taken.userId}> (${taken.userId}): ${/** @type {Error} */ (error).message}. Lift it by hand.`);
      }
      state.forgetAction(taken);
    }
  }

  /** Follows the change feed from where the bot left off until `stop`. */
  async function follow() {
    const start = state.feed;
    let saved = start.cursor;
    try {
      for await (const { change, cursor } of tl.followChanges({ cursor: start.cursor, afterSeq: start.seq, pollMs: options.followPollMs ?? 30_000, signal: stopping.signal, onError: (error) => log.warn(`change feed: ${describeFailure(error).replace(/^not checked: /, "")}`) })) {
        const acted = change.type === "overturned" && state.actionsFor(change.entry_id).length > 0;
        if (acted) await lift(change.entry_id);
        // Saved at each page's end and after each lift, not at every change of a long history.
        if (acted || cursor !== saved) {
          state.feed = { cursor, seq: Number(change.seq) };
          saved = cursor;
        }
      }
    } catch (error) {
      log.error(`stopped following trustlist's changes: ${describeFailure(error).replace(/^not checked: /, "")}`);
    }
  }

  // Interactions.

  /** @param {any} interaction */
  async function trustcheck(interaction) {
    const user = interaction.options.getUser("user");
    const account = interaction.options.getString("account");
    if (!user && !account) return void (await interaction.reply({ content: "Give a `user`, an `account` (id or username), or both.", flags: EPHEMERAL }));
    // The answer may wait out a rate limit: acknowledge now, answer within Discord's 15 minutes.
    await interaction.deferReply({ flags: EPHEMERAL });
    const vertical = state.settings(interaction.guildId).vertical;
    const parts = [];
    if (user) {
      try {
        parts.push(explain(await checker.discordUser(user.id, vertical), `${user.tag} (${user.id})`).join("\n"));
      } catch (error) {
        parts.push(describeFailure(error, { who: user.tag }).replace(/ No action taken\.$/, ""));
      }
    }
    if (account) {
      try {
        parts.push(describeSearch(await checker.search(account)));
      } catch (error) {
        parts.push(describeFailure(error, { who: account }).replace(/ No action taken\.$/, ""));
      }
    }
    await interaction.editReply({ content: parts.join("\n\n").slice(0, 2000), allowedMentions: { parse: [] } });
  }

  function describeSettings(/** @type {string} */ guildId) {
    const s = state.settings(guildId);
    return [
      `Mod-log: ${s.modLogChannelId ? `<#${s.modLogChannelId}>` : "not set (/trustlist channel)"}`,
      `Vertical: ${s.vertical}`,
      `Actions: ${Object.entries(s.actions).map(([verdict, action]) => `${verdict} → ${action}`).join(", ")}`,
      `Quarantine role: ${s.quarantineRoleId ? `<@&${s.quarantineRoleId}>` : "not set"}; timeout: ${duration(s.timeoutMinutes * 60_000)}`,
    ].join("\n");
  }

  /** @param {any} interaction */
  async function settingsCommand(interaction) {
    const reply = (/** @type {string} */ content) => interaction.reply({ content, flags: EPHEMERAL, allowedMentions: { parse: [] } });
    if (!interaction.guildId || !interaction.memberPermissions?.has(MANAGE_GUILD)) return reply("Only members with Manage Server can change the bot's settings or sweep.");
    const guildId = interaction.guildId;
    const sub = interaction.options.getSubcommand();
    if (sub === "sweep") {
      await interaction.deferReply({ flags: EPHEMERAL });
      const summary = await sweep(interaction.guild).catch((error) => `The sweep stopped: ${describeFailure(error).replace(/^not checked: /, "")}`);
      return interaction.editReply({ content: summary.slice(0, 2000), allowedMentions: { parse: [] } });
    }
    if (sub === "channel") {
      const channel = interaction.options.getChannel("channel", true);
      state.update(guildId, { modLogChannelId: channel.id });
    } else if (sub === "vertical") {
      const vertical = interaction.options.getString("vertical", true);
      if (!VERTICALS.includes(vertical)) return reply(`The vertical is one of ${VERTICALS.join(", ")}.`);
      state.update(guildId, { vertical });
    } else if (sub === "action") {
      const answer = /** @type {keyof typeof ALLOWED_ACTIONS} */ (interaction.options.getString("answer", true));
      const action = interaction.options.getString("action", true);
      const allowed = ALLOWED_ACTIONS[answer];
      if (!allowed) return reply(`The answer is one of ${Object.keys(ALLOWED_ACTIONS).join(", ")}.`);
      if (!allowed.includes(action)) return reply(`For ${answer} the action is one of ${allowed.join(", ")}: ${answer === "watchlist" ? "an unconfirmed report is never acted on, only shown." : "only a confirmed ban can ban."}`);
      state.update(guildId, { actions: /** @type {any} */ ({ [answer]: action }) });
    } else if (sub === "quarantine-role") {
      const role = interaction.options.getRole("role", true);
      if (role.id === guildId || role.managed) return reply("That role cannot be given: pick a role of your own, below the bot's.");
      state.update(guildId, { quarantineRoleId: role.id });
    } else if (sub === "timeout") {
      state.update(guildId, { timeoutMinutes: interaction.options.getInteger("minutes", true) });
    }
    return reply(describeSettings(guildId));
  }

  /** @param {any} interaction */
  async function appeal(interaction) {
    await interaction.deferReply({ flags: EPHEMERAL });
    const answer = (/** @type {string} */ content) => interaction.editReply({ content: content.slice(0, 2000), allowedMentions: { parse: [] } });
    const user = interaction.user;
    if (interaction.options.getSubcommand() === "status") {
      const id = state.appealOf(user.id);
      if (!id) return answer("You have not appealed through this bot.");
      try {
        const found = await tl.getAppeal(id);
        if (found.status === "open") return answer(`Your appeal ${found.id} of entry ${found.entry_id} is open (filed ${found.created_at}); trustlist's staff have not decided it yet.`);
        return answer(`Your appeal ${found.id} of entry ${found.entry_id} was decided${found.decided_at ? ` on ${found.decided_at}` : ""}: ${found.outcome ?? "decided"}.${found.note ? ` Note: ${found.note}` : ""}`);
      } catch (error) {
        return answer(`The bot could not read your appeal: ${describeFailure(error).replace(/^not checked: /, "").replace(/ No action taken\.$/, "")}`);
      }
    }
    const statement = interaction.options.getString("statement", true);
    const vertical = interaction.guildId ? state.settings(interaction.guildId).vertical : "all";
    let check;
    try {
      check = await tl.checkAccount({ provider: "discord", id: user.id, vertical: /** @type {any} */ (vertical) });
    } catch (error) {
      return answer(`The bot could not look you up: ${describeFailure(error).replace(/^not checked: /, "").replace(/ No action taken\.$/, "")} Try again later.`);
    }
    const entryId = check.entry?.id;
    if (verdictOf(check) === "clean" || !entryId) return answer("Your Discord account is not listed on the trustlist: there is nothing to appeal.");
    try {
      const created = await tl.createAppeal({ entry_id: entryId, provider: "discord", provider_user_id: user.id, statement });
      state.recordAppeal(user.id, created.id);
      return answer(`Your appeal ${created.id} of entry ${entryId} is filed and open. trustlist's staff decide it; \`/appeal status\` shows where it stands.`);
    } catch (error) {
      const e = /** @type {{ code?: string, status?: number, retryAfter?: number | null }} */ (error);
      if (e.code === "not_appealable") return answer(`Entry ${entryId} cannot be appealed.`);
      if (e.code === "conflict") return answer(`Entry ${entryId} is not active any more, or an appeal of it is already open (\`/appeal status\`).`);
      if (e.code === "rate_limited" && e.retryAfter) return answer(`You appealed recently. You can appeal again in ${duration(e.retryAfter * 1000)}.`);
      if (e.status === 404) return answer(`trustlist no longer holds entry ${entryId}: there is nothing to appeal.`);
      if (e.status === 403) return answer("This bot's trustlist key cannot file appeals (it needs a write-scoped key). Tell the server's moderators.");
      return answer(`The appeal was not filed: ${describeFailure(error).replace(/^not checked: /, "").replace(/ No action taken\.$/, "")} Try again later.`);
    }
  }

  /** Guild commands appear at once (global ones can take an hour). */
  async function register(/** @type {GuildLike} */ guild) {
    await guild.commands?.set(GUILD_COMMANDS).catch((/** @type {Error} */ error) => log.warn(`could not register commands in ${guild.name}: ${error.message}`));
  }

  /** @type {Promise<void> | null} */
  let following = null;

  return {
    joins,
    sweep,
    lift,
    act,
    /** Listens to the client; follows the change feed unless `options.follow` is false. */
    start() {
      client.on(events.memberAdd, (/** @type {MemberLike} */ member) => {
        if (!member.user.bot) joins.push({ member, attempt: 1 });
      });
      client.on(events.interaction, async (/** @type {any} */ interaction) => {
        if (!interaction.isChatInputCommand()) return;
        try {
          if (interaction.commandName === TRUSTCHECK.name) await trustcheck(interaction);
          else if (interaction.commandName === TRUSTLIST.name) await settingsCommand(interaction);
          else if (interaction.commandName === APPEAL.name) await appeal(interaction);
        } catch (error) {
          log.error(`/${interaction.commandName} failed: ${/** @type {Error} */ (error).message}`);
        }
      });
      client.on(events.ready, async () => {
        for (const guild of client.guilds.cache.values()) await register(guild);
        await client.application?.commands.set(GLOBAL_COMMANDS).catch((/** @type {Error} */ error) => log.warn(`could not register /appeal: ${error.message}`));
      });
      client.on(events.guildCreate, register);
      if (options.follow !== false) following = follow();
    },
    /** Stops following the feed and cancels pending retries; resolves when the follower has stopped. */
    async stop() {
      stopping.abort();
      joins.stop();
      await following;
    },
  };
}
