// The case queue and one case as staff work it: every report with its reporter and standing, the
// evidence (images shown inline from the staff-only evidence route, other files as downloads),
// comments, the subject's entries and the case's history, and the actions the visitor's role may
// take (triage: comment, assign, escalate; moderator: also dismiss, decide, watchlist, mute).
import { CASE_STATUSES, ENTRY_SCOPES, SEVERITIES, VERTICALS } from "../../domain";
import type { CasePage, CaseView } from "../moderation/model";
import { type Html, html } from "../pages/html";
import { providerName } from "../pages/layout";
import { hasRole, type Visitor } from "./guard";
import { field, postForm, select, table, when } from "./layout";

type Case = typeof CaseView.static;

export function casePath(id: string, rest = ""): string {
  return `/console/cases/${encodeURIComponent(id)}${rest}`;
}

function subjectText(subject: Case["subject"]): Html {
  if (subject.handle) return html`creator @${subject.handle}`;
  return html`${providerName(subject.provider ?? "")} <code>${subject.id ?? subject.key}</code>${subject.username ? html` (${subject.username})` : null}`;
}

export function queueBody(status: string, assignee: string, page: typeof CasePage.static): Html {
  const rows = page.data.map((c) => [
    html`<a href="${casePath(c.id)}"><code>${c.id}</code></a>`,
    subjectText(c.subject),
    html`${c.status}${c.outcome ? html`: ${c.outcome}` : null}${c.muted ? html` <span class="muted">(muted)</span>` : null}`,
    html`${c.report_count}`,
    html`${c.assignee ? `@${c.assignee}` : "–"}`,
    when(c.created_at),
  ]);
  const link = (s: string) => `/console/cases?status=${s}${assignee ? `&assignee=${encodeURIComponent(assignee)}` : ""}`;
  return html`<h1>Cases</h1>
<nav class="tabs" aria-label="Case status"><ul>${CASE_STATUSES.map(
    (s) => html`<li><a href="${link(s)}"${s === status ? html` aria-current="page"` : null}>${s}</a></li>`,
  )}</ul></nav>
<form class="row" method="get" action="/console/cases">
<input type="hidden" name="status" value="${status}">
${field("assignee", "Assigned to", html`<input id="assignee" name="assignee" value="${assignee}" maxlength="64" placeholder="staff handle">`)}
<button type="submit">Filter</button>
</form>
<section class="panel" aria-labelledby="cases-title">
<h2 id="cases-title">${status} cases, oldest first</h2>
${table(`${status} cases`, ["Case", "Subject", "Status", "Reports", "Assignee", "Opened"], rows, `No ${status} case.`)}
${page.next_cursor ? html`<p><a href="${link(status)}&amp;cursor=${encodeURIComponent(page.next_cursor)}">More</a></p>` : null}
</section>`;
}

function evidenceView(evidence: Case["reports"][number]["evidence"][number]): Html {
  const src = `/v1/moderation/evidence/${encodeURIComponent(evidence.id)}`;
  const label = `${evidence.content_type}, ${evidence.bytes} bytes${evidence.public ? ", public" : ""}`;
  return html`<figure class="evidence">
${evidence.content_type.startsWith("image/") ? html`<img src="${src}" alt="Evidence ${evidence.id} (${label})">` : null}
<figcaption><a href="${src}">${evidence.id}</a> · ${label} · <span class="muted">sha256 ${evidence.sha256.slice(0, 16)}…</span></figcaption>
</figure>`;
}

export function caseBody(visitor: Visitor, c: Case): Html {
  const open = c.status !== "closed";
  const moderator = hasRole(visitor.role, "moderator");
  const allEvidence = c.reports.flatMap((r) => r.evidence);
  const reports = c.reports.map(
    (r) => html`<li class="panel item" aria-labelledby="r-${r.id}">
<h3 id="r-${r.id}"><code>${r.id}</code> · ${r.reason_code} · ${r.status}${r.outcome ? html`: ${r.outcome}` : null}</h3>
<p class="muted">By ${r.reporter.kind} ${r.reporter.handle ? html`@${r.reporter.handle}` : html`<code>${r.reporter.id}</code>`} · filed ${r.standing.filed}, upheld ${r.standing.upheld}, dismissed ${r.standing.dismissed} · ${when(r.created_at)}</p>
<p class="statement">${r.description}</p>
${r.evidence_urls.length > 0
  ? html`<ul class="links">${r.evidence_urls.map((u) => html`<li>${u.startsWith("https://") ? html`<a href="${u}" rel="noreferrer noopener">${u}</a>` : u}</li>`)}</ul>`
  : null}
${r.evidence.map(evidenceView)}
${moderator && r.reporter.kind !== "key" && open
  ? postForm(visitor, `/console/reporters/${encodeURIComponent(r.reporter.id)}/mute?case=${encodeURIComponent(c.id)}`, null, "Mute this reporter", {
      quiet: true,
      danger: true,
      label: `Mute the reporter of ${r.id}`,
    })
  : null}
</li>`,
  );
  const comments = c.comments.map((m) => html`<li><p class="muted">${m.author} · ${when(m.created_at)}</p><p class="statement">${m.body}</p></li>`);
  const entries = c.entries.map((e) => [
    html`<code>${e.id}</code>`,
    html`${e.watchlist ? "watchlist" : e.severity} · ${e.status}`,
    html`${e.reason_code}${e.summary ? html`<br><span class="muted">${e.summary}</span>` : null}`,
    html`${e.private_note ?? ""}`,
    when(e.issued_at),
  ]);
  const history = c.history.map((h) => {
    const actor = h.actor as { kind?: string; id?: string } | undefined;
    return [when(String(h.at)), html`${actor?.kind ?? ""}:${actor?.id ?? ""}`, html`<code>${String(h.action)}</code>`, html`<code class="details">${JSON.stringify(h.details ?? {})}</code>`];
  });
  return html`<p><a href="/console/cases">← Cases</a></p>
<h1>Case <code>${c.id}</code></h1>
<section class="panel" aria-labelledby="case-title">
<h2 id="case-title">${subjectText(c.subject)}</h2>
<dl class="facts-list">
<dt>Status</dt><dd>${c.status}${c.outcome ? html`: ${c.outcome}` : null}${c.muted ? " (muted reporter)" : ""}</dd>
<dt>Assignee</dt><dd>${c.assignee ? html`@${c.assignee}` : "nobody"}</dd>
<dt>Opened</dt><dd>${when(c.created_at)}</dd>
${c.closed_at ? html`<dt>Closed</dt><dd>${when(c.closed_at)}</dd>` : null}
${c.entry_id ? html`<dt>Entry</dt><dd><code>${c.entry_id}</code></dd>` : null}
</dl>
</section>
${open ? actionsView(visitor, c, allEvidence) : null}
<section aria-labelledby="reports-title"><h2 id="reports-title">Reports</h2><ul class="items">${reports}</ul></section>
<section class="panel" aria-labelledby="comments-title"><h2 id="comments-title">Comments</h2>
${comments.length === 0 ? html`<p class="muted">No comment yet.</p>` : html`<ul class="items">${comments}</ul>`}
${postForm(
  visitor,
  casePath(c.id, "/comment"),
  html`<div class="field wide"><label for="comment-body">Comment (staff only)</label><textarea id="comment-body" name="body" required maxlength="4000" rows="3"></textarea></div>`,
  "Comment",
  { className: "stack" },
)}
</section>
<section class="panel" aria-labelledby="entries-title"><h2 id="entries-title">Entries of the subject</h2>
${table("Entries, past and present", ["Entry", "State", "Reason", "Private note", "Issued"], entries, "No entry names this subject.")}</section>
<section class="panel" aria-labelledby="history-title"><h2 id="history-title">History</h2>
${table("The case's audit events, oldest first", ["When", "Actor", "Action", "Details"], history)}</section>`;
}

function actionsView(visitor: Visitor, c: Case, evidence: Case["reports"][number]["evidence"]): Html {
  const moderator = hasRole(visitor.role, "moderator");
  return html`<section class="panel" aria-labelledby="actions-title">
<h2 id="actions-title">Actions</h2>
<div class="actions">
${postForm(visitor, casePath(c.id, "/assign"), html`${field("assign-handle", "Assign to (empty: nobody)", html`<input id="assign-handle" name="handle" maxlength="64" value="${c.assignee ?? ""}">`)}`, "Assign")}
${c.status === "open" ? postForm(visitor, casePath(c.id, "/escalate"), null, "Escalate", { quiet: true, label: "Escalate the case" }) : null}
</div>
${moderator
  ? html`<h3>Decide</h3>
${postForm(
  visitor,
  casePath(c.id, "/decide"),
  html`<div class="row">
${field("d-severity", "Severity", select("d-severity", "severity", SEVERITIES, "ban"))}
${field("d-scope", "Scope", select("d-scope", "scope", ENTRY_SCOPES, "global"))}
${field("d-vertical", "Vertical", select("d-vertical", "vertical", VERTICALS, "all"))}
${field("d-reason", "Reason code", html`<input id="d-reason" name="reason_code" required maxlength="64" value="scam_trade">`)}
</div>
${field("d-summary", "Public summary", html`<input id="d-summary" name="summary" required maxlength="500">`)}
<div class="field wide"><label for="d-note">Private note (staff only)</label><textarea id="d-note" name="private_note" maxlength="4000" rows="2"></textarea></div>
${field("d-expires", "Expires (ISO time, empty: never)", html`<input id="d-expires" name="expires_at" maxlength="40" placeholder="2027-11-21T10:00:00.000Z">`)}
<label class="check"><input type="checkbox" name="appealable" value="true" checked> Appealable</label>
${evidence.length > 0
  ? html`<fieldset class="field"><legend>Evidence to show with the entry</legend>${evidence.map(
      (e) => html`<label class="check"><input type="checkbox" name="public_evidence" value="${e.id}"> ${e.id} (${e.content_type})</label>`,
    )}</fieldset>`
  : null}`,
  "Decide: add the entry",
  { className: "stack", label: "Decide the case" },
)}
<h3>Or</h3>
<div class="actions">
${postForm(visitor, casePath(c.id, "/watchlist"), html`${field("w-summary", "Watchlist summary", html`<input id="w-summary" name="summary" required maxlength="500">`)}`, "Watchlist")}
${postForm(visitor, casePath(c.id, "/dismiss"), html`${field("x-reason", "Dismiss: why (staff only)", html`<input id="x-reason" name="reason" required maxlength="2000">`)}`, "Dismiss", { danger: true })}
</div>`
  : null}
</section>`;
}
