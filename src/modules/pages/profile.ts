// The views of /u/{handle}: a creator's profile, Trust Score breakdown, embed snippets and vouches;
// and the pages for an unknown handle (404) and a spent IP bucket (429). Linked accounts come from
// the public service's disclosure point, so a privately linked account never reaches this page.
import type { CreatorProfile, TrustBreakdown } from "../creators/service";
import { tierLabel } from "../creators/trust";
import type { PublicLinkedAccount } from "../public/disclosure";
import type { VouchesPage } from "../public/service";
import { isHttpUrl } from "../../values";
import { type Html, html } from "./html";
import { appealNotice, type AssetPaths, checkForm, date, page, providerName } from "./layout";

export interface ProfileView {
  profile: CreatorProfile;
  trust: TrustBreakdown;
  links: PublicLinkedAccount[];
  vouches: VouchesPage;
  /** The instance's public address, for the embed snippets. */
  baseUrl: string;
  /** A ban naming the creator may be appealed: the page says how. */
  appealable: boolean;
}

function trendText(trend: TrustBreakdown["trend"]): string {
  if (trend.from === null) return "No history yet.";
  if (trend.delta === 0) return `No change in ${trend.window_days} days.`;
  const arrow = trend.delta > 0 ? "↑" : "↓";
  return `${arrow} ${Math.abs(trend.delta)} in ${trend.window_days} days (from ${trend.from}).`;
}

function trustPanel(trust: TrustBreakdown): Html {
  const b = trust.basis;
  const reviews = b.reviews.count === 0 ? "None yet" : `${b.reviews.count}, average ${b.reviews.average} / 5`;
  return html`<section class="panel band-${trust.band}" aria-labelledby="trust-title">
<h2 id="trust-title">Trust Score</h2>
<div class="score"><span class="value" id="trust-score">${trust.trust_score}</span><span class="muted">of 250</span><span class="band">${tierLabel(trust.band)}</span></div>
<p>${trendText(trust.trend)}</p>
<dl class="basis">
<dt>Verification</dt><dd>${b.verification_label} (level ${b.verification_level})</dd>
<dt>Account age</dt><dd>${b.account_age_days} ${b.account_age_days === 1 ? "day" : "days"}</dd>
<dt>Public linked accounts</dt><dd>${b.linked_accounts}</dd>
<dt>Completed deals</dt><dd>${b.completed_deals}</dd>
<dt>Reviews</dt><dd>${reviews}</dd>
</dl>
<p class="muted">Computed ${date(trust.computed_at)}. Everyone starts at 100; the basis above and vouches add to the score, penalties (never shown) take from it, and a confirmed ban sets it to 0.</p>
</section>`;
}

function linksPanel(links: PublicLinkedAccount[]): Html {
  return html`<section class="panel" aria-labelledby="links-title">
<h2 id="links-title">Linked accounts</h2>
${links.length === 0
  ? html`<p class="muted">No public linked accounts.</p>`
  : html`<ul class="links">${links.map((link) => {
      const name = link.provider_username ?? link.provider_user_id;
      return html`<li><span class="provider">${providerName(link.provider)}</span>${
        link.provider_url && isHttpUrl(link.provider_url)
          ? html`<a href="${link.provider_url}" rel="nofollow noopener noreferrer ugc">${name}</a>`
          : html`<span>${name}</span>`
      }<span class="muted">${link.verified_at !== null ? html`verified ${date(link.verified_at)}` : "not verified"}</span></li>`;
    })}</ul>`}
</section>`;
}

function snippet(id: string, title: string, code: string): Html {
  return html`<div class="snippet">
<div class="snippet-head"><label for="${id}">${title}</label><button type="button" class="quiet" data-copy="${id}" hidden>Copy</button></div>
<textarea id="${id}" rows="3" readonly spellcheck="false">${code}</textarea>
</div>`;
}

function embedPanel(view: ProfileView): Html {
  const handle = view.profile.handle;
  const badge = `${view.baseUrl}/badge/${handle}.svg`;
  const profileUrl = view.profile.profile_url;
  const alt = `trustlist trust badge for @${handle}`;
  return html`<section class="panel" aria-labelledby="embed-title">
<h2 id="embed-title">Embed the badge</h2>
<p class="badge-preview"><img src="/badge/${encodeURIComponent(handle)}.svg" alt="${alt}: ${tierLabel(view.trust.band)}" height="20"></p>
${snippet("snippet-markdown", "Markdown", `[![${alt}](${badge})](${profileUrl})`)}
${snippet("snippet-html", "HTML", `<a href="${profileUrl}"><img src="${badge}" alt="${alt}"></a>`)}
${snippet("snippet-widget", "Trust card script", `<script src="${view.baseUrl}/widget/trust.js" data-handle="${handle}" async></script>`)}
</section>`;
}

function vouchesPanel(vouches: VouchesPage): Html {
  return html`<section class="panel" aria-labelledby="vouches-title">
<h2 id="vouches-title">Vouches <span class="muted">(${vouches.count})</span></h2>
${vouches.vouches.length === 0
  ? html`<p class="muted">No vouches yet.</p>`
  : html`<ul class="vouches">${vouches.vouches.map(
      (v) => html`<li class="vouch"><a href="/u/${encodeURIComponent(v.from_username)}">@${v.from_username}</a>${
        v.from_display_name ? html` <span class="muted">${v.from_display_name}</span>` : null
      } <span class="muted">· ${date(v.created_at)}</span>${v.message ? html`<p>${v.message}</p>` : null}</li>`,
    )}</ul>`}
${vouches.count > vouches.vouches.length ? html`<p class="muted">The latest ${vouches.vouches.length} of ${vouches.count}.</p>` : null}
</section>`;
}

export function profilePage(assets: AssetPaths, view: ProfileView): Html {
  const p = view.profile;
  const name = p.display_name ?? `@${p.handle}`;
  const body = html`<section class="panel" aria-labelledby="profile-title">
<h1 id="profile-title">${name}</h1>
<p class="handle">@${p.handle}</p>
<ul class="chips" aria-label="Profile facts"><li class="chip">${p.verification_label}</li><li class="chip">Joined ${date(p.joined_at)}</li><li class="chip">${p.karma} karma</li></ul>
${p.blacklisted ? html`<p class="banner bad">Blacklisted: a confirmed ban names this creator or one of their accounts.</p>` : null}
${p.blacklisted && view.appealable ? appealNotice() : null}
</section>
<div class="grid">
${trustPanel(view.trust)}
${linksPanel(view.links)}
</div>
${vouchesPanel(view.vouches)}
${embedPanel(view)}`;
  return page(assets, {
    title: `${name} (@${p.handle}): trustlist`,
    description: `Trust Score ${view.trust.trust_score} (${tierLabel(view.trust.band)}) for @${p.handle} on trustlist.`,
    body,
  });
}

export function notFoundPage(assets: AssetPaths, handle: string): Html {
  const body = html`<section class="panel" aria-labelledby="check-title">
<h1 id="check-title">No creator @${handle}</h1>
<p>This instance has no creator with that handle. Search for the account instead:</p>
${checkForm(handle)}
</section>`;
  return page(assets, { title: "Creator not found: trustlist", body });
}

export function tooManyPage(assets: AssetPaths, retryAfter: number): Html {
  const body = html`<section class="panel" aria-labelledby="busy-title">
<h1 id="busy-title">Too many requests</h1>
<p>This address has made too many requests. Try again in ${retryAfter} ${retryAfter === 1 ? "second" : "seconds"}.</p>
</section>`;
  return page(assets, { title: "Too many requests: trustlist", body });
}
