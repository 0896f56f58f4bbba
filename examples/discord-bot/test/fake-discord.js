// @ts-check
// A fake Discord gateway client with the surface of discord.js v14 that bot.js uses: servers with
// members, bans, roles and channels; members that can be banned, kicked, timed out and given
// roles; slash-command interactions that record their answers. Nothing leaves the process. A
// server can refuse the bot's actions (`refuse`), as Discord does when the bot's role is too low.
import { EventEmitter } from "node:events";

export class FakeChannel {
  /** @type {string[]} */
  sent = [];
  /** @param {string} id */
  constructor(id) {
    this.id = id;
  }
  isSendable() {
    return true;
  }
  /** @param {{ content: string, allowedMentions?: unknown }} message */
  async send(message) {
    this.sent.push(message.content);
  }
}

export class FakeMember {
  /** @type {number | null} */
  timedOutFor = null;
  /**
   * @param {FakeGuild} guild
   * @param {string} id
   * @param {string} tag
   * @param {boolean} bot
   */
  constructor(guild, id, tag, bot) {
    this.guild = guild;
    this.id = id;
    this.user = { id, tag, bot };
    const roles = new Set();
    this.roles = {
      cache: roles,
      add: async (/** @type {string} */ roleId, /** @type {string} */ reason) => {
        guild.allow("add a role");
        roles.add(roleId);
        guild.audit.push(["role+", id, roleId, reason]);
      },
      remove: async (/** @type {string} */ roleId, /** @type {string} */ reason) => {
        guild.allow("remove a role");
        roles.delete(roleId);
        guild.audit.push(["role-", id, roleId, reason]);
      },
    };
  }
  /** @param {{ reason?: string }} [options] */
  async ban(options = {}) {
    this.guild.allow("ban");
    this.guild.bans.set(this.id, options.reason ?? "");
    this.guild.memberMap.delete(this.id);
    this.guild.audit.push(["ban", this.id, options.reason]);
  }
  /** @param {string} [reason] */
  async kick(reason) {
    this.guild.allow("kick");
    this.guild.memberMap.delete(this.id);
    this.guild.audit.push(["kick", this.id, reason]);
  }
  /** @param {number | null} ms @param {string} [reason] */
  async timeout(ms, reason) {
    this.guild.allow("time out");
    this.timedOutFor = ms;
    this.guild.audit.push(["timeout", this.id, ms, reason]);
  }
}

export class FakeGuild {
  /** @type {Map<string, FakeMember>} */
  memberMap = new Map();
  /** @type {Map<string, string>} banned user id → reason */
  bans = new Map();
  /** @type {Map<string, FakeChannel>} */
  channelMap = new Map();
  /** Every action taken on the server, in order. @type {unknown[][]} */
  audit = [];
  /** Discord's refusal of the bot's actions (its role too low), or null. @type {string | null} */
  refuse = null;
  /** @type {unknown[] | null} */
  registered = null;

  /** @param {FakeClient} client @param {string} id @param {string} name */
  constructor(client, id, name) {
    this.client = client;
    this.id = id;
    this.name = name;
    this.members = {
      fetch: async (/** @type {string} */ userId) => {
        if (userId === undefined) return new Map(this.memberMap);
        const member = this.memberMap.get(userId);
        if (!member) throw new Error("Unknown Member");
        return member;
      },
      unban: async (/** @type {string} */ userId, /** @type {string} */ reason) => {
        this.allow("unban");
        if (!this.bans.delete(userId)) throw new Error("Unknown Ban");
        this.audit.push(["unban", userId, reason]);
      },
    };
    this.channels = {
      fetch: async (/** @type {string} */ channelId) => {
        const channel = this.channelMap.get(channelId);
        if (!channel) throw new Error("Unknown Channel");
        return channel;
      },
    };
    this.commands = { set: async (/** @type {unknown[]} */ commands) => void (this.registered = commands) };
  }

  /** @param {string} what */
  allow(what) {
    if (this.refuse) throw new Error(`${this.refuse} (could not ${what})`);
  }

  /** @param {string} id */
  addChannel(id) {
    const channel = new FakeChannel(id);
    this.channelMap.set(id, channel);
    return channel;
  }

  /** A member already in the server (no join event). @param {string} id @param {string} [tag] */
  add(id, tag = `user${id}`, bot = false) {
    const member = new FakeMember(this, id, tag, bot);
    this.memberMap.set(id, member);
    return member;
  }

  /** A member joins: the gateway's guildMemberAdd. @param {string} id @param {string} [tag] */
  join(id, tag = `user${id}`, bot = false) {
    const member = this.add(id, tag, bot);
    this.client.emit("guildMemberAdd", member);
    return member;
  }
}

export class FakeInteraction {
  /** @type {Array<{ kind: string, content?: string, flags?: number }>} */
  answers = [];
  /** @type {Promise<string>} resolves with the final answer's text */
  done;
  #resolve = (/** @type {string} */ _text) => {};

  /**
   * @param {{ command: string, subcommand?: string, options?: Record<string, any>, user: { id: string, tag: string },
   *   guild?: FakeGuild | null, permissions?: bigint[] }} init
   */
  constructor(init) {
    this.commandName = init.command;
    this.user = init.user;
    this.guild = init.guild ?? null;
    this.guildId = init.guild?.id ?? null;
    const perms = init.permissions ?? [];
    this.memberPermissions = init.guild ? { has: (/** @type {bigint} */ bit) => perms.includes(bit) } : null;
    const options = init.options ?? {};
    const get = (/** @type {string} */ name, /** @type {boolean | undefined} */ required) => {
      if (required && options[name] === undefined) throw new Error(`option ${name} is required`);
      return options[name] ?? null;
    };
    this.options = {
      getSubcommand: () => init.subcommand,
      getString: get,
      getInteger: get,
      getUser: get,
      getChannel: get,
      getRole: get,
    };
    this.done = new Promise((resolve) => (this.#resolve = resolve));
  }
  isChatInputCommand() {
    return true;
  }
  /** @param {{ content: string, flags?: number }} message */
  async reply(message) {
    this.answers.push({ kind: "reply", ...message });
    this.#resolve(message.content);
  }
  /** @param {{ flags?: number }} options */
  async deferReply(options) {
    this.answers.push({ kind: "defer", ...options });
  }
  /** @param {{ content: string }} message */
  async editReply(message) {
    this.answers.push({ kind: "edit", ...message });
    this.#resolve(message.content);
  }
}

export class FakeClient extends EventEmitter {
  /** @type {unknown[] | null} */
  globalCommands = null;
  constructor() {
    super();
    /** @type {Map<string, FakeGuild>} */
    const cache = new Map();
    this.guilds = {
      cache,
      fetch: async (/** @type {string} */ id) => {
        const guild = cache.get(id);
        if (!guild) throw new Error("Unknown Guild");
        return guild;
      },
    };
    this.application = { commands: { set: async (/** @type {unknown[]} */ commands) => void (this.globalCommands = commands) } };
  }

  /** @param {string} id @param {string} [name] */
  addGuild(id, name = `server ${id}`) {
    const guild = new FakeGuild(this, id, name);
    this.guilds.cache.set(id, guild);
    return guild;
  }

  /** Runs a slash command; resolves with its answer's text. @param {ConstructorParameters<typeof FakeInteraction>[0]} init */
  async command(init) {
    const interaction = new FakeInteraction(init);
    this.emit("interactionCreate", interaction);
    await interaction.done;
    return interaction;
  }
}
