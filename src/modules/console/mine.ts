// What every signed-in person has in the console: their appeals (file one against an entry naming
// them, read the outcome and the public note) and their tripwires. The data comes from the same
// services as `/v1/me/appeals` and `/v1/me/tripwires`.
import type { AppealPage } from "../appeals/model";
import type { EntryRow } from "../blacklist/store";
import { type Html, html } from "../pages/html";
import { providerName } from "../pages/layout";
import { TRIGGERS } from "../tripwires/model";
import type { TripwireList } from "../tripwires/service";
import type { Visitor } from "./guard";
import { field, postForm, table, when } from "./layout";

export function overviewBody(visitor: Visitor, sections: Html[]): Html {
  const name = visitor.viewer.displayName ? html`${visitor.viewer.displayName} (@${visitor.viewer.handle})` : html`@${visitor.viewer.handle}`;
  return html`<h1>Console</h1>
<p class="lead">Welcome, ${name}.</p>
${sections}`;
}

export function appealsBody(visitor: Visitor, page: typeof AppealPage.static, naming: EntryRow[], entryId: string): Html {
  const open = new Set(page.data.filter((a) => a.status === "open").map((a) => a.entry_id));
  const namingRows = naming.map((e) => [
    html`<code>${e.id}</code>`,
    html`${providerName(e.provider)} <code>${e.providerUserId}</code>${e.username ? html` (${e.username})` : null}`,
    html`${e.watchlist ? "watchlist" : e.severity}`,
    html`${e.reasonCode}${e.summary ? html`<br><span class="muted">${e.summary}</span>` : null}`,
    when(e.issuedAt),
    open.has(e.id)
      ? html`<span class="muted">appeal open</span>`
      : e.appealable
        ? html`<a href="/console/appeals?entry=${encodeURIComponent(e.id)}#file-title">Appeal</a>`
        : html`<span class="muted">not appealable</span>`,
  ]);
  const rows = page.data.map((a) => [
    html`<code>${a.id}</code>`,
    html`<code>${a.entry_id}</code>`,
    html`${a.status}${a.outcome ? html`: <strong>${a.outcome}</strong>` : null}`,
    a.note ? html`${a.note}` : html`<span class="muted">–</span>`,
    when(a.created_at),
    when(a.decided_at),
  ]);
  return html`<h1>My appeals</h1>
<section class="panel" aria-labelledby="naming-title">
<h2 id="naming-title">Entries naming you</h2>
${table("Active blacklist entries naming you or an account linked to you", ["Entry", "Account", "Severity", "Reason", "Issued", "Appeal"], namingRows, "No active entry names you or your linked accounts.")}
</section>
<section class="panel" aria-labelledby="file-title">
<h2 id="file-title">File an appeal</h2>
<p>An appeal asks staff to look again at one blacklist entry that names you or an account linked to you. Staff read your statement; the decision's note is shown here.</p>
${postForm(
  visitor,
  "/console/appeals",
  html`${field("entry_id", "Entry id", html`<input id="entry_id" name="entry_id" required maxlength="64" value="${entryId}" autocomplete="off" spellcheck="false">`)}
<div class="field wide"><label for="statement">Statement</label><textarea id="statement" name="statement" required maxlength="4000" rows="5"></textarea></div>`,
  "File the appeal",
  { className: "stack" },
)}
</section>
<section class="panel" aria-labelledby="list-title">
<h2 id="list-title">Filed</h2>
${table("Your appeals, newest first", ["Appeal", "Entry", "Status", "Decision note", "Filed", "Decided"], rows, "You have filed no appeal.")}
</section>`;
}

export function tripwiresBody(visitor: Visitor, list: TripwireList): Html {
  const rows = list.tripwires.map((w) => [
    html`${w.who}`,
    html`${w.triggers.join(", ")}`,
    html`${w.trips}`,
    when(w.last_tripped_at),
    when(w.created_at),
    postForm(visitor, `/console/tripwires/${encodeURIComponent(w.id)}/delete`, null, "Delete", { quiet: true, label: `Delete the tripwire on ${w.who}` }),
  ]);
  return html`<h1>Tripwires</h1>
<p class="lead">${list.stats.armed} armed · ${list.stats.tripped_total} trips in all.</p>
<section class="panel" aria-labelledby="arm-title">
<h2 id="arm-title">Arm a tripwire</h2>
${postForm(
  visitor,
  "/console/tripwires",
  html`${field("who", "Handle or Discord id", html`<input id="who" name="who" required maxlength="64" autocomplete="off" spellcheck="false" placeholder="@handle">`)}
<fieldset class="field"><legend>Trip on</legend>${TRIGGERS.map(
    (t) => html`<label class="check"><input type="checkbox" name="triggers" value="${t}" checked> ${t.replaceAll("_", " ")}</label>`,
  )}</fieldset>`,
  "Arm",
)}
</section>
<section class="panel" aria-labelledby="wires-title">
<h2 id="wires-title">Armed</h2>
${table("Your tripwires", ["Watching", "Triggers", "Trips", "Last tripped", "Armed", "Action"], rows, "No tripwire is armed.")}
</section>
<section class="panel" aria-labelledby="alerts-title">
<h2 id="alerts-title">Where alerts go</h2>
${postForm(
  visitor,
  "/console/tripwires/preferences",
  html`${field("discord-url", "Discord webhook URL (empty: none)", html`<input id="discord-url" name="discord_webhook_url" type="url" maxlength="2048" value="${list.preferences.discord_webhook_url ?? ""}" autocomplete="off" placeholder="https://discord.com/api/webhooks/…">`)}
${field("alert-email", "E-mail (kept; this server sends none yet)", html`<input id="alert-email" name="email" type="email" maxlength="254" value="${list.preferences.email ?? ""}" autocomplete="email">`)}`,
  "Save",
)}
</section>`;
}
