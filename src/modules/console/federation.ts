// The admin's view of federation: the sources this instance follows, each with its health (last
// sync, entries held, last error) and its policy, and the exemptions that win over every source.
import { PROVIDERS, SEVERITIES, SOURCE_POLICIES } from "../../domain";
import type { ExemptionView } from "../federation/service";
import type { Source } from "../federation/model";
import { type Html, html } from "../pages/html";
import { providerName } from "../pages/layout";
import type { Visitor } from "./guard";
import { field, postForm, select, table, when } from "./layout";

function health(s: typeof Source.static): Html {
  if (s.last_error) return html`<span class="state bad">failing</span> <span class="error-text">${s.last_error}</span>`;
  if (s.last_synced_at === null) return html`<span class="state warn">not synced yet</span>`;
  return html`<span class="state ok">in sync</span>`;
}

export function sourcesBody(visitor: Visitor, sources: (typeof Source.static)[], exemptions: ExemptionView[]): Html {
  const items = sources.map((s) => {
    const base = `/console/admin/sources/${encodeURIComponent(s.name)}`;
    return html`<li class="panel item" aria-labelledby="src-${s.name}">
<h3 id="src-${s.name}">${s.name} <span class="muted">${s.url}</span></h3>
<dl class="facts-list">
<dt>Health</dt><dd>${health(s)}</dd>
<dt>Last sync</dt><dd>${when(s.last_synced_at)}</dd>
<dt>Entries held</dt><dd>${s.entries_held}</dd>
<dt>Policy</dt><dd>${s.policy}${s.max_severity ? html`, at most ${s.max_severity}` : null}${s.verticals ? html`, verticals ${s.verticals.join(", ")}` : null}${s.reason_codes ? html`, reasons ${s.reason_codes.join(", ")}` : null}, every ${s.interval_s} s</dd>
<dt>Instance</dt><dd><code>${s.instance_id}</code></dd>
<dt>Pinned keys</dt><dd>${s.fingerprints.map((f) => html`<code>${f}</code> `)}</dd>
</dl>
<div class="actions">
${postForm(visitor, `${base}/sync`, null, "Sync now", { label: `Sync ${s.name} now` })}
${postForm(visitor, `${base}/policy`, html`${field(`policy-${s.name}`, "Policy", select(`policy-${s.name}`, "policy", SOURCE_POLICIES, s.policy))}`, "Change policy", { label: `Change the policy of ${s.name}` })}
${postForm(
  visitor,
  `${base}/remove`,
  html`<label class="check"><input type="checkbox" name="keep" value="true"> Keep the entries held from it</label>`,
  "Stop following",
  { danger: true, label: `Stop following ${s.name}` },
)}
</div>
</li>`;
  });
  const exemptionRows = exemptions.map((e) => [
    html`${providerName(e.provider)} <code>${e.provider_user_id}</code>`,
    html`${e.source ?? "every source"}`,
    html`${e.reason}`,
    html`${e.created_by}, ${when(e.created_at)}`,
    postForm(visitor, `/console/admin/exemptions/${encodeURIComponent(e.id)}/remove`, null, "Remove", { quiet: true, label: `Remove the exemption of ${e.provider_user_id}` }),
  ]);
  return html`<h1>Sources and exemptions</h1>
<section aria-labelledby="sources-title">
<h2 id="sources-title">Followed sources</h2>
${items.length === 0 ? html`<p class="muted">This instance follows no other instance.</p>` : html`<ul class="items">${items}</ul>`}
</section>
<section class="panel" aria-labelledby="follow-title">
<h2 id="follow-title">Follow an instance</h2>
${postForm(
  visitor,
  "/console/admin/sources",
  html`<div class="row">
${field("src-name", "Name", html`<input id="src-name" name="name" required maxlength="64" autocomplete="off">`)}
${field("src-url", "Base URL", html`<input id="src-url" name="url" type="url" required maxlength="2048" placeholder="https://trust.next-door.example">`)}
${field("src-key", "Read key it gave you", html`<input id="src-key" name="key" required maxlength="256" autocomplete="off" spellcheck="false">`)}
${field("src-policy", "Policy", select("src-policy", "policy", SOURCE_POLICIES, "review"))}
${field("src-max", "Highest severity", select("src-max", "max_severity", ["", ...SEVERITIES], "", (v) => (v === "" ? "any" : v)))}
</div>`,
  "Follow",
  { className: "stack" },
)}
</section>
<section class="panel" aria-labelledby="exemptions-title">
<h2 id="exemptions-title">Exemptions</h2>
<p>An exempt account is never listed from a source, whatever the source says later.</p>
${table("Exemptions", ["Account", "Source", "Reason", "Made", "Action"], exemptionRows, "No exemption.")}
${postForm(
  visitor,
  "/console/admin/exemptions",
  html`${field("ex-provider", "Platform", select("ex-provider", "provider", PROVIDERS, "discord", providerName))}
${field("ex-id", "Account id", html`<input id="ex-id" name="provider_user_id" required maxlength="128" autocomplete="off">`)}
${field("ex-source", "Source (empty: every source)", html`<input id="ex-source" name="source" maxlength="64">`)}
${field("ex-reason", "Reason", html`<input id="ex-reason" name="reason" required maxlength="500">`)}`,
  "Exempt",
)}
</section>`;
}
