// The developer's pages (a member of an API account): the plan and today's quota, the keys (create
// read or write, rotate, revoke; the plan's cap shown), usage over 30 days as a chart with the same
// figures in a table, and by endpoint, and the webhooks on every plan (register, deliveries with
// their attempts, test, rotate the secret, enable or pause, delete).
import type { Membership, AccountUsage } from "../accounts/members";
import { KEY_CAP, type KeyView } from "../accounts/service";
import { EVENT_TYPES } from "../outbox/service";
import { type Html, html } from "../pages/html";
import type { DeliveriesPageView, WebhookEndpointView } from "../webhooks/model";
import type { Visitor } from "./guard";
import { field, postForm, select, table, when } from "./layout";

export function accountPath(accountId: string, rest = ""): string {
  return `/console/accounts/${encodeURIComponent(accountId)}${rest}`;
}

export function membershipsBody(memberships: Membership[]): Html {
  return html`<h1>Accounts you manage</h1>
${memberships.length === 0
  ? html`<p>You are a member of no API account. The operator adds members with <code>trustlist accounts add-member</code>.</p>`
  : html`<ul class="links">${memberships.map(
      (m) => html`<li><a href="${accountPath(m.account.id)}">${m.account.name}</a> <span class="muted">${m.account.tier} plan · you are ${m.role}</span></li>`,
    )}</ul>`}`;
}

export interface AccountPageView {
  membership: Membership;
  keys: KeyView[];
  lastUsed: Map<string, string>;
  usage: AccountUsage;
  webhooks: WebhookEndpointView[];
}

export function accountBody(visitor: Visitor, view: AccountPageView): Html {
  const { account } = view.membership;
  const today = view.usage.days.at(-1)?.count ?? 0;
  const live = view.keys.filter((k) => k.revoked_at === null);
  const cap = KEY_CAP[account.tier];
  return html`<h1>${account.name}</h1>
<section class="panel" aria-labelledby="plan-title">
<h2 id="plan-title">Plan and quota</h2>
<dl class="facts-list">
<dt>Plan</dt><dd>${account.tier}${account.status === "suspended" ? html` · <strong>suspended</strong>: keys answer 402` : null}</dd>
<dt>Today's quota</dt><dd>${today} of ${account.daily_quota} calls used, ${Math.max(0, account.daily_quota - today)} left (resets at midnight UTC)</dd>
<dt>Keys</dt><dd>${live.length} of ${cap} the plan allows</dd>
<dt>Your role</dt><dd>${view.membership.role}</dd>
</dl>
</section>
${keysSection(visitor, account.id, view.keys, view.lastUsed, live.length >= cap)}
${usageSection(view.usage)}
${webhooksSection(visitor, account.id, view.webhooks)}`;
}

function keysSection(visitor: Visitor, accountId: string, keys: KeyView[], lastUsed: Map<string, string>, full: boolean): Html {
  const rows = keys.map((k) => [
    html`${k.name ?? html`<span class="muted">unnamed</span>`}`,
    html`<code>${k.prefix}…</code>`,
    html`${k.scope}`,
    html`${k.rate_tier}`,
    when(k.created_at),
    lastUsed.has(k.id) ? html`${lastUsed.get(k.id)}` : html`<span class="muted">never</span>`,
    k.revoked_at !== null
      ? html`revoked ${when(k.revoked_at)}`
      : html`<div class="actions">${postForm(visitor, accountPath(accountId, `/keys/${encodeURIComponent(k.id)}/rotate`), null, "Rotate", { quiet: true, label: `Rotate key ${k.prefix}` })}${postForm(
          visitor,
          accountPath(accountId, `/keys/${encodeURIComponent(k.id)}/revoke`),
          null,
          "Revoke",
          { quiet: true, danger: true, label: `Revoke key ${k.prefix}` },
        )}</div>`,
  ]);
  return html`<section class="panel" aria-labelledby="keys-title">
<h2 id="keys-title">API keys</h2>
${table("Keys of this account", ["Name", "Prefix", "Scope", "Rate tier", "Created", "Last used", "State"], rows, "No key yet.")}
<h3>Create a key</h3>
${full
  ? html`<p class="notice">This account holds as many keys as its plan allows: revoke one to create another.</p>`
  : postForm(
      visitor,
      accountPath(accountId, "/keys"),
      html`${field("key-name", "Name", html`<input id="key-name" name="name" maxlength="64" autocomplete="off" placeholder="e.g. discord-bot">`)}
${field("key-scope", "Scope", select("key-scope", "scope", ["read", "write"], "read", (v) => (v === "read" ? "read: checks and reads" : "write: also the partner path")))}`,
      "Create key",
    )}
</section>`;
}

/** The 30 days as bars in an SVG (no script), labelled for screen readers; the table beside it holds the same figures. */
function chart(days: AccountUsage["days"]): Html {
  const width = 600;
  const height = 160;
  const most = Math.max(0, ...days.map((d) => d.count));
  const top = Math.max(1, most);
  const slot = width / days.length;
  const total = days.reduce((sum, d) => sum + d.count, 0);
  return html`<svg class="chart" viewBox="0 0 ${width} ${height + 20}" role="img" aria-labelledby="chart-title" aria-describedby="chart-desc">
<title id="chart-title">Calls per day, last ${days.length} days</title>
<desc id="chart-desc">${total} calls in all; the most in one day ${most}. The table beside it lists every day.</desc>
<line class="axis" x1="0" y1="${height}" x2="${width}" y2="${height}"></line>
${days.map((d, i) => {
  const h = Math.round((d.count / top) * (height - 10));
  return html`<rect class="bar" x="${(i * slot + 1).toFixed(1)}" y="${height - h}" width="${(slot - 2).toFixed(1)}" height="${h}"><title>${d.day}: ${d.count}</title></rect>`;
})}
<text x="0" y="${height + 14}">${days[0]?.day ?? ""}</text>
<text x="${width}" y="${height + 14}" text-anchor="end">${days.at(-1)?.day ?? ""}</text>
</svg>`;
}

function usageSection(usage: AccountUsage): Html {
  return html`<section class="panel" aria-labelledby="usage-title">
<h2 id="usage-title">Usage</h2>
<div class="usage">
<div>${chart(usage.days)}</div>
<div class="usage-days">${table("Calls per day, newest first", ["Day (UTC)", "Calls"], [...usage.days].reverse().map((d) => [html`${d.day}`, html`${d.count}`]))}</div>
</div>
<h3>By endpoint, last ${usage.days.length} days</h3>
${table("Calls per endpoint", ["Endpoint", "Calls"], usage.by_endpoint.map((e) => [html`<code>${e.endpoint}</code>`, html`${e.count}`]), "No call in this window.")}
</section>`;
}

function endpointState(w: WebhookEndpointView): Html {
  if (w.enabled) return html`<span class="state ok">enabled</span>${w.failing_since ? html` <span class="state warn">failing since ${when(w.failing_since)}</span>` : null}`;
  return html`<span class="state bad">disabled</span> <span class="muted">${w.disabled_reason ?? ""}</span>`;
}

function webhooksSection(visitor: Visitor, accountId: string, webhooks: WebhookEndpointView[]): Html {
  const rows = webhooks.map((w) => [
    html`<a href="${accountPath(accountId, `/webhooks/${encodeURIComponent(w.id)}`)}">${w.url}</a>`,
    html`${w.events.join(", ")}`,
    endpointState(w),
    when(w.created_at),
  ]);
  return html`<section class="panel" aria-labelledby="webhooks-title">
<h2 id="webhooks-title">Webhooks</h2>
${table("Webhook endpoints", ["URL", "Events", "State", "Registered"], rows, "No endpoint registered.")}
<h3>Register an endpoint</h3>
${postForm(
  visitor,
  accountPath(accountId, "/webhooks"),
  html`${field("wh-url", "HTTPS URL", html`<input id="wh-url" name="url" type="url" required maxlength="2048" placeholder="https://bot.example.org/hooks/trustlist" autocomplete="off">`)}
<fieldset class="field"><legend>Events</legend>${EVENT_TYPES.map(
    (e) => html`<label class="check"><input type="checkbox" name="events" value="${e}"${e.startsWith("blacklist.") ? html` checked` : null}> ${e}</label>`,
  )}</fieldset>`,
  "Register",
  { className: "stack" },
)}
</section>`;
}

export function webhookBody(visitor: Visitor, accountId: string, accountName: string, endpoint: WebhookEndpointView, deliveries: DeliveriesPageView): Html {
  const base = accountPath(accountId, `/webhooks/${encodeURIComponent(endpoint.id)}`);
  const items = deliveries.data.map(
    (d) => html`<li class="panel item" aria-labelledby="d-${d.id}">
<h3 id="d-${d.id}"><code>${d.type}</code> · ${d.status} · ${d.attempt_count} ${d.attempt_count === 1 ? "attempt" : "attempts"}</h3>
<p class="muted"><code>${d.id}</code> · queued ${when(d.created_at)}${d.next_attempt_at ? html` · next attempt ${when(d.next_attempt_at)}` : null}${d.finished_at ? html` · finished ${when(d.finished_at)}` : null}</p>
${table(`Attempts of ${d.id}`, ["#", "Started", "Status", "Latency", "Error or answer"], d.attempts.map((a) => [
  html`${a.attempt}`,
  when(a.started_at),
  html`${a.status_code ?? "–"}`,
  html`${a.latency_ms === null ? "–" : `${a.latency_ms} ms`}`,
  html`${a.error ?? a.response_excerpt ?? ""}`,
]), "Not attempted yet.")}
</li>`,
  );
  return html`<p><a href="${accountPath(accountId)}">← ${accountName}</a></p>
<h1 class="url">Webhook endpoint</h1>
<section class="panel" aria-labelledby="endpoint-title">
<h2 id="endpoint-title">${endpoint.url}</h2>
<dl class="facts-list">
<dt>Id</dt><dd><code>${endpoint.id}</code></dd>
<dt>Events</dt><dd>${endpoint.events.join(", ")}</dd>
<dt>State</dt><dd>${endpointState(endpoint)}</dd>
<dt>Registered</dt><dd>${when(endpoint.created_at)}</dd>
</dl>
<div class="actions">
${postForm(visitor, `${base}/test`, null, "Send a test delivery", { label: "Send a test delivery" })}
${postForm(visitor, `${base}/rotate`, null, "Rotate the secret", { quiet: true, label: "Rotate the signing secret" })}
${endpoint.enabled
  ? postForm(visitor, `${base}/disable`, null, "Pause", { quiet: true, label: "Pause deliveries" })
  : postForm(visitor, `${base}/enable`, null, "Enable", { label: "Enable deliveries" })}
${postForm(visitor, `${base}/delete`, null, "Delete", { quiet: true, danger: true, label: "Delete the endpoint" })}
</div>
</section>
<section aria-labelledby="deliveries-title">
<h2 id="deliveries-title">Deliveries, newest first</h2>
${items.length === 0 ? html`<p class="muted">No delivery yet. Send a test to see one.</p>` : html`<ul class="items">${items}</ul>`}
${deliveries.next_cursor ? html`<p><a href="${base}?cursor=${encodeURIComponent(deliveries.next_cursor)}">Older deliveries</a></p>` : null}
</section>`;
}
