// The view of `/`: check an account against the blacklist (a GET form, answered on the server) and
// browse the creator directory. The data comes from the public service, the same answers the
// keyless API gives, so the page shows nothing /v1/public/* would not.
import type { DirectoryPage, PublicCheckResult, PublicStats } from "../public/service";
import { followedSourceOf, type PublicCheckHit } from "../public/disclosure";
import { type Html, html } from "./html";
import { appealNotice, type AssetPaths, checkForm, page, PROVIDER_NAMES, providerName } from "./layout";

export interface DirectoryView {
  filter: string;
  sort: string;
  platform: string;
  page: DirectoryPage;
  /** Deepest page the directory lists. */
  lastPage: number;
}

export interface HomeView {
  q: string;
  /** The search answer when `q` was given; `error` when the query was refused. */
  search: PublicCheckResult | null;
  searchError: string | null;
  /** The creator whose handle `q` is, for a link to the profile. */
  creatorHandle: string | null;
  stats: PublicStats;
  directory: DirectoryView;
}

const SORT_LABELS: Record<string, string> = { newest: "Newest", trust: "Trust Score", vouches: "Vouches", deals: "Completed deals" };

/** What one search hit means, said plainly: class, title and explanation. */
function hitState(hit: PublicCheckHit): { cls: string; title: string; text: string } {
  if (hit.banned) return { cls: "bad", title: "Banned", text: "Confirmed ban on trustlist." };
  if (hit.severity === "restrict") return { cls: "warn", title: "Restricted", text: "Confirmed restriction: trade with care." };
  if (hit.severity === "warn") return { cls: "warn", title: "Warned", text: "Confirmed warning on record." };
  if (hit.watchlist) return { cls: "watch", title: "Watchlist", text: "Unconfirmed report, not a ban." };
  return { cls: "ok", title: "No record", text: "No blacklist entry for this account." };
}

function hitView(hit: PublicCheckHit): Html {
  const state = hitState(hit);
  const followed = followedSourceOf(hit);
  const isProfile = hit.platform === "trustlist";
  const who = hit.username ?? hit.id ?? "";
  return html`<li class="hit ${state.cls}">
<div class="who">${isProfile ? html`<a href="/u/${encodeURIComponent(who)}">@${who}</a>` : who}</div>
<div class="where">${providerName(hit.platform)}${!isProfile && hit.id && hit.id !== who ? html` · id ${hit.id}` : null}</div>
<span class="state ${state.cls}">${state.title}</span>${hit.high_risk ? html`<span class="state bad">High risk</span>` : null}
<span class="muted">${state.text}</span>
${hit.reason_code ? html`<p class="summary"><span class="muted">Reason:</span> ${hit.reason_code.replaceAll("_", " ")}</p>` : null}
${hit.summary ? html`<p class="summary">${hit.summary}</p>` : null}
${followed ? html`<p class="summary"><span class="muted">Listed by:</span> ${followed}, an instance this one follows</p>` : null}
${hit.appealable && hit.severity !== null ? appealNotice() : null}
</li>`;
}

function resultsView(view: HomeView): Html {
  if (view.searchError) {
    return html`<h2 id="results-title" tabindex="-1">Results</h2><p class="notice">${view.searchError}</p>`;
  }
  const search = view.search;
  if (!search) return html``;
  const profile = view.creatorHandle
    ? html`<p>Creator profile: <a href="/u/${encodeURIComponent(view.creatorHandle)}">@${view.creatorHandle}</a></p>`
    : null;
  if (!search.found) {
    return html`<h2 id="results-title" tabindex="-1">No record of “${search.query}”</h2>
<p>No creator, linked account or blacklist entry matches it. That is not proof the account is safe.</p>
${search.suggestions.length > 0
  ? html`<p>Did you mean:</p><ul class="suggest">${search.suggestions.map((s) => html`<li><a href="/?q=${encodeURIComponent(s)}">${s}</a></li>`)}</ul>`
  : null}`;
  }
  const n = search.platforms.length;
  return html`<h2 id="results-title" tabindex="-1">${n} ${n === 1 ? "account matches" : "accounts match"} “${search.query}”</h2>
${profile}
<ul class="hits">${search.platforms.map(hitView)}</ul>`;
}

function directoryLink(d: DirectoryView, pageNumber: number): string {
  const params = new URLSearchParams();
  if (d.filter) params.set("filter", d.filter);
  if (d.sort !== "newest") params.set("sort", d.sort);
  if (d.platform) params.set("platform", d.platform);
  if (pageNumber > 1) params.set("page", String(pageNumber));
  const query = params.toString();
  return `/${query ? `?${query}` : ""}#directory`;
}

function directoryView(d: DirectoryView): Html {
  const { page: listing } = d;
  const lastReachable = Math.min(listing.total_pages, d.lastPage);
  const options = (values: string[], selected: string, label: (v: string) => string) =>
    values.map((v) => html`<option value="${v}"${v === selected ? html` selected` : null}>${label(v)}</option>`);
  return html`<section class="panel" id="directory" aria-labelledby="directory-title">
<h2 id="directory-title">Creator directory</h2>
<form class="row" action="/#directory" method="get">
<div class="field"><label for="filter">Name or username</label><input id="filter" name="filter" type="search" value="${d.filter}" maxlength="64" autocomplete="off"></div>
<div class="field small"><label for="sort">Sort by</label><select id="sort" name="sort">${options(Object.keys(SORT_LABELS), d.sort, (v) => SORT_LABELS[v]!)}</select></div>
<div class="field small"><label for="platform">Platform</label><select id="platform" name="platform"><option value="">Any</option>${options(
    Object.keys(PROVIDER_NAMES).filter((p) => p !== "trustlist"),
    d.platform,
    providerName,
  )}</select></div>
<button type="submit">Show</button>
</form>
${listing.items.length === 0
  ? html`<p class="muted">No creator matches.</p>`
  : html`<ul class="directory">${listing.items.map(
      (c) => html`<li class="creator">
<a href="/u/${encodeURIComponent(c.handle)}">@${c.handle}</a>
${c.display_name ? html`<span class="name">${c.display_name}</span>` : null}
<ul class="facts">${c.blacklisted ? html`<li class="state bad">Banned</li>` : null}<li>Trust ${c.trust_score}</li><li>${c.vouch_count} ${c.vouch_count === 1 ? "vouch" : "vouches"}</li><li>${c.deal_count} ${c.deal_count === 1 ? "deal" : "deals"}</li>${c.platforms.length > 0 ? html`<li>${c.platforms.map(providerName).join(", ")}</li>` : null}</ul>
</li>`,
    )}</ul>`}
<nav class="pager" aria-label="Directory pages">
<span>${listing.page > 1 ? html`<a href="${directoryLink(d, listing.page - 1)}" rel="prev">← Previous</a>` : null}</span>
<span class="muted">Page ${listing.page} of ${Math.max(1, lastReachable)} · ${listing.total} ${listing.total === 1 ? "creator" : "creators"}</span>
<span>${listing.page < lastReachable ? html`<a href="${directoryLink(d, listing.page + 1)}" rel="next">Next →</a>` : null}</span>
</nav>
${listing.total_pages > d.lastPage && listing.page >= d.lastPage
  ? html`<p class="muted">Only the first ${d.lastPage * listing.limit} creators of a listing are shown: narrow it with a name or platform.</p>`
  : null}
</section>`;
}

export function homePage(assets: AssetPaths, view: HomeView): Html {
  const s = view.stats;
  const body = html`<section class="panel" aria-labelledby="check-title">
<h1 id="check-title">Check an account before you trade</h1>
<p class="lead">Search a Discord, Roblox, Epic or other username or id, or a trustlist handle, against this instance's blacklist.</p>
${checkForm(view.q)}
<div id="results" class="results" aria-live="polite">${resultsView(view)}</div>
</section>
<section class="panel" aria-label="Counters">
<ul class="stats"><li><strong>${s.creators_verified}</strong> verified creators</li><li><strong>${s.entries_listed}</strong> blacklist entries</li><li><strong>${s.deals_completed}</strong> completed deals</li><li><strong>${s.servers_protected}</strong> servers protected</li></ul>
</section>
${directoryView(view.directory)}`;
  const title = view.q ? `“${view.q}”: trustlist check` : "trustlist: check an account, browse creators";
  return page(assets, { title, description: "Check accounts against the trustlist blacklist and browse creators' Trust Scores.", body });
}
