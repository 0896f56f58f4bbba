// `trustlist login-link HANDLE`: a one-time sign-in link for a creator (modules/sessions), for an
// operator to hand over. The link's address starts with the server's public base URL.
import { loadConfig, SETTINGS } from "../config";
import { type Command, print, withDatabase } from "./args";

export const loginLink: Command = {
  name: "login-link",
  summary: "print a one-time sign-in link for a creator (valid 15 minutes, once)",
  args: ["HANDLE"],
  flags: [
    { name: "base-url", kind: "string", value: "URL", help: "the server's public address the link starts with", default: SETTINGS.baseUrl.default, env: SETTINGS.baseUrl.env },
  ],
  examples: ["trustlist login-link alicemakes --base-url https://trust.example.org", "trustlist login-link @alicemakes --json"],
  async run({ values, positionals }) {
    const { baseUrl } = loadConfig({ "base-url": values["base-url"] });
    const link = await withDatabase(values, ({ services }) => services.sessions.loginLink(positionals[0]!), undefined, { baseUrl });
    print(values.json, link, `${link.url}\n(signs in ${link.handle} once, until ${link.expires_at})`);
  },
};
