// @ts-check
// Starts the bot on Discord: reads the settings, connects discord.js, and hands the client to
// bot.js, where everything the bot does lives (tested there with a fake gateway client).
import { createTrustlist } from "@trustlist/sdk";
import { Client, Events, GatewayIntentBits } from "discord.js";
import { createBot } from "./bot.js";
import { loadConfig } from "./config.js";
import { BotState } from "./state.js";

/** @type {import("./config.js").BotConfig} */
let config;
try {
  config = loadConfig(process.env);
} catch (error) {
  console.error(/** @type {Error} */ (error).message);
  process.exit(1);
}

const tl = createTrustlist({ baseUrl: config.trustlistUrl, apiKey: config.trustlistKey, headers: { "User-Agent": "trustlist-discord-bot/2.0" } });
const state = new BotState({ file: config.stateFile, defaults: { vertical: config.vertical, actions: config.actions } });
// GuildMembers is a privileged intent: switch on "Server Members Intent" in the developer portal.
const client = new Client({ intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers] });
const bot = createBot({
  client,
  tl,
  state,
  options: config,
  events: { ready: Events.ClientReady, guildCreate: Events.GuildCreate, memberAdd: Events.GuildMemberAdd, interaction: Events.InteractionCreate },
});
bot.start();

client.once(Events.ClientReady, (ready) => {
  console.log(`trustlist bot ready as ${ready.user.tag} in ${ready.guilds.cache.size} server(s)`);
});

for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM"])) {
  process.on(signal, () => {
    void bot
      .stop()
      .then(() => client.destroy())
      .finally(() => process.exit(0));
  });
}

try {
  await client.login(config.discordToken);
} catch (error) {
  console.error(`could not log in to Discord: ${/** @type {Error} */ (error).message}`);
  process.exit(1);
}
