// @ts-check
// The slash commands the bot registers, as the raw JSON Discord's API takes (so no discord.js is
// needed to read or test them). /trustlist changes a server's settings: Discord shows it only to
// members with Manage Server, and the bot checks that permission again when it runs, since a
// server's owner can change who sees a command. /appeal is for anyone, in a server or in a direct
// message with the bot (a member it banned can no longer reach the server).
import { ALLOWED_ACTIONS } from "./policy.js";
import { VERTICALS } from "./state.js";

const SUB_COMMAND = 1;
const STRING = 3;
const INTEGER = 4;
const USER = 6;
const CHANNEL = 7;
const ROLE = 8;
/** Text and announcement channels. */
const POSTABLE_CHANNELS = [0, 5];
/** Moderate Members: /trustcheck is shown to moderators by default. */
const MODERATE_MEMBERS = 1n << 40n;
/** Manage Server: who may change the bot's settings and run a sweep. */
export const MANAGE_GUILD = 1n << 5n;
/** Discord's longest timeout: 28 days. */
export const MAX_TIMEOUT_MINUTES = 28 * 24 * 60;
/** The longest appeal statement trustlist takes. */
export const STATEMENT_MAX = 4000;

const choices = (/** @type {readonly string[]} */ values) => values.map((value) => ({ name: value, value }));

export const TRUSTCHECK = {
  name: "trustcheck",
  description: "Check a member or a game account against the trustlist",
  default_member_permissions: String(MODERATE_MEMBERS),
  dm_permission: false,
  options: [
    { type: USER, name: "user", description: "A Discord member or user", required: false },
    {
      type: STRING,
      name: "account",
      description: "A Roblox, Epic or Minecraft id or username, or a creator handle",
      required: false,
      min_length: 2,
      max_length: 100,
    },
  ],
};

export const TRUSTLIST = {
  name: "trustlist",
  description: "This server's trustlist settings, and a check of every member",
  default_member_permissions: String(MANAGE_GUILD),
  dm_permission: false,
  options: [
    { type: SUB_COMMAND, name: "settings", description: "Show this server's settings" },
    {
      type: SUB_COMMAND,
      name: "channel",
      description: "Where the bot reports (the mod-log)",
      options: [{ type: CHANNEL, name: "channel", description: "A text channel the bot can post in", required: true, channel_types: POSTABLE_CHANNELS }],
    },
    {
      type: SUB_COMMAND,
      name: "vertical",
      description: "Which game's entries count here (all, roblox, uefn, minecraft)",
      options: [{ type: STRING, name: "vertical", description: "The vertical", required: true, choices: choices(VERTICALS) }],
    },
    {
      type: SUB_COMMAND,
      name: "action",
      description: "What the bot does about a member with this answer",
      options: [
        { type: STRING, name: "answer", description: "The trustlist answer", required: true, choices: choices(Object.keys(ALLOWED_ACTIONS)) },
        { type: STRING, name: "action", description: "ban, kick, timeout, quarantine, alert or none", required: true, choices: choices(ALLOWED_ACTIONS.banned) },
      ],
    },
    {
      type: SUB_COMMAND,
      name: "quarantine-role",
      description: "The role the quarantine action gives",
      options: [{ type: ROLE, name: "role", description: "A role below the bot's own", required: true }],
    },
    {
      type: SUB_COMMAND,
      name: "timeout",
      description: "How long the timeout action lasts",
      options: [{ type: INTEGER, name: "minutes", description: "1 minute to 28 days", required: true, min_value: 1, max_value: MAX_TIMEOUT_MINUTES }],
    },
    { type: SUB_COMMAND, name: "sweep", description: "Check every current member now (within the key's daily quota)" },
  ],
};

export const APPEAL = {
  name: "appeal",
  description: "Appeal the trustlist entry that lists your Discord account",
  dm_permission: true,
  options: [
    {
      type: SUB_COMMAND,
      name: "submit",
      description: "File an appeal; trustlist's staff decide it",
      options: [{ type: STRING, name: "statement", description: "Why the entry is wrong or should end", required: true, min_length: 1, max_length: STATEMENT_MAX }],
    },
    { type: SUB_COMMAND, name: "status", description: "Where your last appeal stands" },
  ],
};

/** Registered in each server: they act on that server's members. */
export const GUILD_COMMANDS = [TRUSTCHECK, TRUSTLIST];
/** Registered globally, so it works in a direct message too. */
export const GLOBAL_COMMANDS = [APPEAL];
