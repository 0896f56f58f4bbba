// @ts-check
// The slash command the bot registers, as the raw JSON Discord's API takes (so no discord.js is
// needed to read or test it).

const USER = 6;
const STRING = 3;
/** Moderate Members: the command is shown to moderators by default; server owners can change it. */
const MODERATE_MEMBERS = String(1n << 40n);

export const TRUSTCHECK = {
  name: "trustcheck",
  description: "Check a member or a game account against the trustlist",
  default_member_permissions: MODERATE_MEMBERS,
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
