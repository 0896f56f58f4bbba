// The moderators' desk: entries searched by subject (with overturn), the appeals queue with its
// decisions, and the audit log with its filters. Forms a role may not use are not rendered for it;
// the routes refuse them anyway (index.ts). Data comes from the services the staff API uses.
import { APPEAL_OUTCOMES, PROVIDERS, SEVERITIES } from "../../domain";
import type { AuditEvent } from "../audit/model";
import type { StaffAppealPage } from "../appeals/model";
import type { EntryRow } from "../blacklist/store";
import { type Html, html } from "../pages/html";
import { providerName } from "../pages/layout";
import { hasRole, type Visitor } from "./guard";
import { field, postForm, select, table, when } from "./layout";

export interface EntrySearch {
  provider: string;
  id: string;
  handle: string;
}

function entryState(row: EntryRow): Html {
  const cls = row.status !== "active" ? "" : row.watchlist ? "watch" : row.severity === "ban" ? "bad" : "warn";
  return html`<span class="state ${cls}">${row.status === "active" ? (row.watchlist ? "watchlist" : row.severity) : row.status}</span>`;
}

export function entriesBody(visitor: Visitor, search: EntrySearch, found: EntryRow[] | null): Html {
  const canOverturn = hasRole(visitor.role, "moderator");
  const rows = (found ?? []).map((e) => [
    html`<code>${e.id}</code>`,
    html`${providerName(e.provider)} <code>${e.providerUserId}</code>${e.username ? html` (${e.username})` : null}${e.creatorHandle ? html`<br>@${e.creatorHandle}` : null}`,
    entryState(e),
    html`${e.reasonCode}${e.summary ? html`<br><span class="muted">${e.summary}</span>` : null}`,
    when(e.issuedAt),
    e.status === "active" && canOverturn
      ? postForm(
          visitor,
          `/console/entries/${encodeURIComponent(e.id)}/overturn`,
          html`<label class="sr" for="reason-${e.id}">Reason for overturning ${e.id}</label><input id="reason-${e.id}" name="reason" maxlength="500" placeholder="Reason">`,
          "Overturn",
          { danger: true },
        )
      : html`${e.overturnReason ?? ""}`,
  ]);
  return html`<h1>Entries</h1>
<section class="panel" aria-labelledby="search-title">
<h2 id="search-title">Find the entries of a subject</h2>
<form class="row" method="get" action="/console/entries">
${field("provider", "Platform", select("provider", "provider", ["", ...PROVIDERS], search.provider, (v) => (v === "" ? "Choose…" : providerName(v))))}
${field("id", "Account id", html`<input id="id" name="id" value="${search.id}" maxlength="128" autocomplete="off" spellcheck="false">`)}
${field("handle", "or creator handle", html`<input id="handle" name="handle" value="${search.handle}" maxlength="33" autocomplete="off" spellcheck="false">`)}
<button type="submit">Search</button>
</form>
</section>
${found === null
  ? null
  : html`<section class="panel" aria-labelledby="found-title"><h2 id="found-title">${found.length} ${found.length === 1 ? "entry" : "entries"}</h2>
${table("Entries of the subject, past and present", ["Entry", "Subject", "State", "Reason", "Issued", canOverturn ? "Overturn" : "Note"], rows, "No entry names this subject.")}</section>`}`;
}

export function appealQueueBody(visitor: Visitor, status: string, page: typeof StaffAppealPage.static): Html {
  const canDecide = hasRole(visitor.role, "moderator");
  const items = page.data.map((a) => {
    const e = a.entry;
    return html`<li class="panel item" aria-labelledby="appeal-${a.id}">
<h3 id="appeal-${a.id}"><code>${a.id}</code> · ${a.status}${a.outcome ? html`: ${a.outcome}` : null}</h3>
<dl class="facts-list">
<dt>Entry</dt><dd>${e ? html`<code>${e.id}</code> ${providerName(e.provider)} <code>${e.provider_user_id}</code>${e.username ? html` (${e.username})` : null} · ${e.severity} · ${e.status} · ${e.reason_code}` : html`<code>${a.entry_id}</code>`}</dd>
<dt>Filed by</dt><dd>${a.filed_by.kind === "creator" ? html`@${a.filed_by.handle ?? a.filed_by.id}` : html`a bot (account <code>${a.filed_by.id}</code>) for ${a.filed_by.provider ?? ""} <code>${a.filed_by.provider_user_id ?? ""}</code>`}, ${when(a.created_at)}</dd>
${a.note ? html`<dt>Note</dt><dd>${a.note}</dd>` : null}
</dl>
<p class="statement">${a.statement}</p>
${a.status === "open" && canDecide
  ? postForm(
      visitor,
      `/console/staff/appeals/${encodeURIComponent(a.id)}/decide`,
      html`${field(`outcome-${a.id}`, "Outcome", select(`outcome-${a.id}`, "outcome", APPEAL_OUTCOMES))}
${field(`severity-${a.id}`, "New severity (downgrade)", select(`severity-${a.id}`, "severity", ["", ...SEVERITIES], "", (v) => (v === "" ? "–" : v)))}
${field(`note-${a.id}`, "Public note", html`<input id="note-${a.id}" name="note" required maxlength="2000">`)}`,
      "Decide",
      { label: `Decide appeal ${a.id}` },
    )
  : null}
</li>`;
  });
  return html`<h1>Appeals queue</h1>
<nav class="tabs" aria-label="Appeal status"><ul>
<li><a href="/console/staff/appeals?status=open"${status === "open" ? html` aria-current="page"` : null}>Open</a></li>
<li><a href="/console/staff/appeals?status=decided"${status === "decided" ? html` aria-current="page"` : null}>Decided</a></li>
</ul></nav>
${items.length === 0 ? html`<p class="muted">No ${status} appeal.</p>` : html`<ul class="items">${items}</ul>`}
${page.next_cursor ? html`<p><a href="/console/staff/appeals?status=${status}&amp;cursor=${encodeURIComponent(page.next_cursor)}">More</a></p>` : null}`;
}

export interface AuditFilters {
  entry: string;
  subject: string;
  actor: string;
  action: string;
}

export function auditBody(filters: AuditFilters, events: (typeof AuditEvent.static)[], next: string | null): Html {
  const rows = events.map((e) => [
    when(e.at),
    html`${e.actor.kind}:${e.actor.id}`,
    html`<code>${e.action}</code>`,
    html`${e.subject ?? ""}${e.entry_id ? html`<br><code>${e.entry_id}</code>` : null}${e.case_id ? html`<br><code>${e.case_id}</code>` : null}${e.appeal_id ? html`<br><code>${e.appeal_id}</code>` : null}`,
    html`<code class="details">${JSON.stringify(e.details)}</code>`,
  ]);
  const params = new URLSearchParams(Object.entries(filters).filter(([, v]) => v !== ""));
  if (next) params.set("cursor", next);
  return html`<h1>Audit log</h1>
<section class="panel" aria-labelledby="filter-title">
<h2 id="filter-title">Filter</h2>
<form class="row" method="get" action="/console/audit">
${field("f-entry", "Entry id", html`<input id="f-entry" name="entry" value="${filters.entry}" maxlength="64">`)}
${field("f-subject", "Subject", html`<input id="f-subject" name="subject" value="${filters.subject}" maxlength="200" placeholder="discord:123 or creator:handle">`)}
${field("f-actor", "Actor", html`<input id="f-actor" name="actor" value="${filters.actor}" maxlength="200" placeholder="staff:handle">`)}
${field("f-action", "Action", html`<input id="f-action" name="action" value="${filters.action}" maxlength="64" placeholder="entry.added">`)}
<button type="submit">Filter</button>
</form>
</section>
<section class="panel" aria-labelledby="events-title">
<h2 id="events-title">Events, newest first</h2>
${table("Audit events", ["When", "Actor", "Action", "About", "Details"], rows, "No event matches.")}
${next ? html`<p><a href="/console/audit?${params.toString()}">Older events</a></p>` : null}
</section>`;
}
