// The frame every public page shares (head, header, footer) and the small pieces the home and
// profile views both use. Every value goes through `html`, which escapes it.
import { PROVIDERS } from "../../domain";
import { type Html, html } from "./html";

/** Where the page's stylesheet, script and icon are served (content-hashed names). */
export interface AssetPaths {
  css: string;
  js: string;
  icon: string;
}

export const PROVIDER_NAMES: Record<(typeof PROVIDERS)[number] | "trustlist", string> = {
  trustlist: "trustlist profile",
  discord: "Discord",
  roblox: "Roblox",
  epic: "Epic",
  minecraft: "Minecraft",
  youtube: "YouTube",
  twitch: "Twitch",
  twitter: "X (Twitter)",
  tiktok: "TikTok",
  github: "GitHub",
};

export const providerName = (provider: string) => PROVIDER_NAMES[provider as keyof typeof PROVIDER_NAMES] ?? provider;

const DATE = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeZone: "UTC" });

/** A date as "3 Jan 2026" in a <time> element. */
export function date(at: string | number): Html {
  const d = new Date(at);
  return html`<time datetime="${d.toISOString()}">${DATE.format(d)}</time>`;
}

export function page(assets: AssetPaths, options: { title: string; description?: string; body: Html }): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${options.title}</title>
${options.description ? html`<meta name="description" content="${options.description}">` : null}
<link rel="icon" href="${assets.icon}" type="image/svg+xml">
<link rel="stylesheet" href="${assets.css}">
<script src="${assets.js}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><div class="wrap">
<a class="brand" href="/">trustlist</a>
<nav aria-label="Site"><ul><li><a href="/">Search</a></li><li><a href="/#directory">Directory</a></li><li><a href="/docs">API</a></li></ul></nav>
</div></header>
<main id="main" class="wrap">
${options.body}
</main>
<footer><div class="wrap"><p>Trust data by this trustlist instance. Not being listed is not proof that an account is safe.</p></div></footer>
<p id="live-status" class="sr" role="status" aria-live="polite"></p>
</body>
</html>
`;
}

/** The search form of /, also offered on the 404 page. */
export function checkForm(q: string, headingId = "check-title"): Html {
  return html`<form id="check-form" class="row" action="/" method="get" role="search" aria-labelledby="${headingId}">
<div class="field"><label for="q">Username, handle or platform id</label>
<input id="q" name="q" type="search" value="${q}" maxlength="64" autocomplete="off" spellcheck="false" required placeholder="e.g. shadowbuilds"></div>
<button type="submit">Check</button>
</form>`;
}

/**
 * What a listed person reads beside an entry they may appeal: the two ways to file one (the
 * community's bot, or their own signed-in account). Shown only where the entry is appealable; it
 * names no entry, account or reporter.
 */
export function appealNotice(): Html {
  return html`<p class="appeal">This listing can be appealed. If it names you, use <code>/appeal</code> with this community's Discord bot, or sign in and appeal it from your account (<code>POST /v1/me/appeals</code>).</p>`;
}
