// @ts-check
// The Discord side: checks each member who joins (through the join queue, so a raid cannot spend
// the day's quota at once), acts on the result as configured, and answers /trustcheck. Everything
// it decides comes from policy.js; everything it asks trustlist goes through checker.js.
import { createTrustlist } from "@trustlist/sdk";
import { Client, Events, GatewayIntentBits, MessageFlags } from "discord.js";
import { createChecker } from "./checker.js";
import { TRUSTCHECK } from "./commands.js";
import { loadConfig } from "./config.js";
import { JoinQueue } from "./join-queue.js";
import { decide, describeFailure, describeSearch, explain } from "./policy.js";

/** @typedef {import("discord.js").GuildMember} GuildMember */

/** @type {import("./config.js").BotConfig} */
let config;
try {
  config = loadConfig(process.env);
} catch (error) {
  console.error(/** @type {Error} */ (error).message);
  process.exit(1);
}

const tl = createTrustlist({ baseUrl: config.trustlistUrl, apiKey: config.trustlistKey, headers: { "User-Agent": "trustlist-discord-bot/1.0" } });
const checker = createChecker({ tl, vertical: config.vertical, ttlMs: config.cacheTtlMs, batch: config.joinBatch });
// GuildMembers is a privileged intent: switch on "Server Members Intent" in the developer portal.
const client = new Client({ intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers] });

/** Posts to MOD_CHANNEL_ID when it is set and the bot can post there; else to the log. */
async function alertModerators(/** @type {string} */ text) {
  if (!config.modChannelId) return console.log(text);
  const channel = await client.channels.fetch(config.modChannelId).catch(() => null);
  if (channel?.isSendable()) await channel.send({ content: text.slice(0, 2000), allowedMentions: { parse: [] } });
  else console.warn(`MOD_CHANNEL_ID ${config.modChannelId} is not a channel the bot can post in; message was:\n${text}`);
}

/** @param {GuildMember} member @param {import("./policy.js").CheckLike} check */
async function act(member, check) {
  const who = `${member.user.tag} (${member.id})`;
  const decision = decide(check, { actions: config.actions, who });
  try {
    if (decision.action === "ban") await member.ban({ reason: `trustlist: ${decision.reason ?? "banned"}` });
    if (decision.action === "kick") await member.kick(`trustlist: ${decision.reason ?? decision.verdict}`);
  } catch (error) {
    return alertModerators(`${decision.message}\nBut the ${decision.action} failed: ${/** @type {Error} */ (error).message}. Check the bot's role and permissions.`);
  }
  if (decision.action !== "none") await alertModerators(decision.message);
}

const joins = new JoinQueue({
  key: (/** @type {GuildMember} */ member) => `${member.guild.id}:${member.id}`,
  batchSize: config.joinBatch ? 50 : 1,
  intervalMs: config.joinIntervalMs,
  maxPending: config.maxPendingJoins,
  async process(members) {
    const results = await checker.discordUsers(members.map((m) => m.id));
    for (const member of members) {
      const result = results.get(member.id);
      if (result instanceof Error || !result) await alertModerators(describeFailure(result, { who: `${member.user.tag} (${member.id})` }));
      else await act(member, result);
    }
  },
  onError: (error, members) => void alertModerators(describeFailure(error, { who: members.map((m) => m.user.tag).join(", ") })),
  onOverflow: (member) => {
    unchecked.push(member);
    uncheckedReport ??= setTimeout(reportUnchecked, 30_000);
  },
});

// During a raid the overflow is reported as one message every 30 s, not one per member.
/** @type {GuildMember[]} */
let unchecked = [];
/** @type {ReturnType<typeof setTimeout> | undefined} */
let uncheckedReport;
function reportUnchecked() {
  const members = unchecked;
  unchecked = [];
  uncheckedReport = undefined;
  const names = members.slice(0, 20).map((m) => `${m.user.tag} (${m.id})`).join(", ");
  const more = members.length > 20 ? ` and ${members.length - 20} more` : "";
  void alertModerators(`Raid? ${joins.pending} joins are waiting to be checked, so ${members.length} were not queued and are not checked: ${names}${more}.`);
}

client.on(Events.GuildMemberAdd, (member) => {
  if (!member.user.bot) joins.push(member);
});

client.on(Events.InteractionCreate, async (interaction) => {
  if (!interaction.isChatInputCommand() || interaction.commandName !== TRUSTCHECK.name) return;
  const user = interaction.options.getUser("user");
  const account = interaction.options.getString("account");
  if (!user && !account) return void interaction.reply({ content: "Give a `user`, an `account` (id or username), or both.", flags: MessageFlags.Ephemeral });
  // The answer may wait out a rate limit: acknowledge now, answer within Discord's 15 minutes.
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const parts = [];
  if (user) {
    try {
      parts.push(explain(await checker.discordUser(user.id), `${user.tag} (${user.id})`).join("\n"));
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
});

/** Guild commands appear at once (global ones can take an hour). */
async function register(/** @type {import("discord.js").Guild} */ guild) {
  await guild.commands.set([TRUSTCHECK]).catch((error) => console.warn(`could not register /trustcheck in ${guild.name}: ${error.message}`));
}

client.once(Events.ClientReady, async (ready) => {
  for (const guild of ready.guilds.cache.values()) await register(guild);
  console.log(`trustlist bot ready as ${ready.user.tag} in ${ready.guilds.cache.size} server(s), checking against ${config.trustlistUrl}`);
});
client.on(Events.GuildCreate, register);

for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM"])) {
  process.on(signal, () => {
    void client.destroy().finally(() => process.exit(0));
  });
}

try {
  await client.login(config.discordToken);
} catch (error) {
  console.error(`could not log in to Discord: ${/** @type {Error} */ (error).message}`);
  process.exit(1);
}
