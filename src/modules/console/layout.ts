// The console's frame and the pieces every console page uses: the navigation (only the sections
// the visitor's role opens are linked), forms that carry the session's CSRF token, tables, notices
// and dates. Every value goes through `html`, which escapes it, so data always renders as text.
import { type Html, html } from "../pages/html";
import { CSRF_FIELD, hasRole, type Visitor } from "./guard";

/** Where the console's stylesheet, script and icon are served (content-hashed names). */
export interface ConsoleAssets {
  css: string;
  js: string;
  icon: string;
}

/** A section of the console: its address, its name, and who sees it. */
interface Section {
  href: string;
  label: string;
  shows: (visitor: Visitor, extra: NavExtra) => boolean;
}

/** What the navigation needs beyond the visitor: whether they belong to an account. */
export interface NavExtra {
  member: boolean;
}

const SECTIONS: Section[] = [
  { href: "/console", label: "Overview", shows: () => true },
  { href: "/console/appeals", label: "My appeals", shows: () => true },
  { href: "/console/tripwires", label: "Tripwires", shows: () => true },
  { href: "/console/accounts", label: "Developer", shows: (_v, extra) => extra.member },
  { href: "/console/cases", label: "Cases", shows: (v) => hasRole(v.role, "triage") },
  { href: "/console/entries", label: "Entries", shows: (v) => hasRole(v.role, "triage") },
  { href: "/console/staff/appeals", label: "Appeals queue", shows: (v) => hasRole(v.role, "triage") },
  { href: "/console/audit", label: "Audit log", shows: (v) => hasRole(v.role, "moderator") },
  { href: "/console/admin/staff", label: "Staff roles", shows: (v) => hasRole(v.role, "admin") },
  { href: "/console/admin/accounts", label: "Accounts", shows: (v) => hasRole(v.role, "admin") },
  { href: "/console/admin/sources", label: "Sources", shows: (v) => hasRole(v.role, "admin") },
];

/** A notice shown at the top of a page: what just happened, or why it did not. */
export interface Notice {
  kind: "ok" | "bad";
  text: string;
}

export interface PageOptions {
  title: string;
  body: Html;
  /** The section link to mark as current. */
  current?: string;
  notice?: Notice | null;
}

export function consolePage(assets: ConsoleAssets, visitor: Visitor | null, nav: NavExtra, options: PageOptions): Html {
  const links = visitor ? SECTIONS.filter((s) => s.shows(visitor, nav)) : [];
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex">
<title>${options.title} · trustlist console</title>
<link rel="icon" href="${assets.icon}" type="image/svg+xml">
<link rel="stylesheet" href="${assets.css}">
<script src="${assets.js}" defer></script>
</head>
<body class="console">
<a class="skip" href="#main">Skip to content</a>
<header class="top"><div class="wrap">
<a class="brand" href="/console">trustlist console</a>
${visitor
  ? html`<div class="who"><span>Signed in as <strong>@${visitor.viewer.handle}</strong>${visitor.role ? html` <span class="chip">${visitor.role}</span>` : null}</span>
<form method="post" action="/console/sign-out">${csrfField(visitor)}<button class="quiet" type="submit">Sign out</button></form></div>`
  : null}
</div>
${links.length > 0
  ? html`<nav class="wrap sections" aria-label="Console"><ul>${links.map(
      (s) => html`<li><a href="${s.href}"${s.href === options.current ? html` aria-current="page"` : null}>${s.label}</a></li>`,
    )}</ul></nav>`
  : null}
</header>
<main id="main" class="wrap">
${options.notice ? html`<p class="banner ${options.notice.kind}" role="${options.notice.kind === "bad" ? "alert" : "status"}">${options.notice.text}</p>` : null}
${options.body}
</main>
<footer><div class="wrap"><p>trustlist console. <a href="/">Public search</a> · <a href="/docs">API reference</a></p></div></footer>
</body>
</html>
`;
}

export function csrfField(visitor: Visitor): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${visitor.csrf}">`;
}

/** A POST form with the session's token: `fields` inside, then a submit button. */
export function postForm(
  visitor: Visitor,
  action: string,
  fields: Html | null,
  button: string,
  options: { quiet?: boolean; danger?: boolean; label?: string; className?: string } = {},
): Html {
  const cls = [options.quiet ? "quiet" : null, options.danger ? "danger" : null].filter(Boolean).join(" ");
  return html`<form method="post" action="${action}" class="${options.className ?? "row"}"${options.label ? html` aria-label="${options.label}"` : null}>${csrfField(visitor)}${fields}<button type="submit"${cls ? html` class="${cls}"` : null}>${button}</button></form>`;
}

const DATE_TIME = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });

/** An ISO time as "3 Jan 2026, 10:00 UTC" in a <time> element; a dash for none. */
export function when(at: string | number | null | undefined): Html {
  if (at === null || at === undefined) return html`<span class="muted">–</span>`;
  const d = new Date(at);
  return html`<time datetime="${d.toISOString()}">${DATE_TIME.format(d)} UTC</time>`;
}

/** A table with a caption; each row is a list of cells. A table scrolls by itself on a narrow screen. */
export function table(caption: string, headings: string[], rows: Html[][], empty = "Nothing yet."): Html {
  if (rows.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<div class="scroll" role="region" aria-label="${caption}" tabindex="0"><table>
<caption>${caption}</caption>
<thead><tr>${headings.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows.map((cells) => html`<tr>${cells.map((c) => html`<td>${c}</td>`)}</tr>`)}</tbody>
</table></div>`;
}

/** A labelled input. */
export function field(id: string, label: string, input: Html, hint?: string): Html {
  return html`<div class="field"><label for="${id}">${label}</label>${input}${hint ? html`<span class="muted hint" id="${id}-hint">${hint}</span>` : null}</div>`;
}

/** A <select> of `values`, `selected` chosen. */
export function select(id: string, name: string, values: readonly string[], selected?: string, labels?: (v: string) => string): Html {
  return html`<select id="${id}" name="${name}">${values.map(
    (v) => html`<option value="${v}"${v === selected ? html` selected` : null}>${labels ? labels(v) : v}</option>`,
  )}</select>`;
}

/** A secret shown once, selectable, with a note that it will not be shown again. */
export function secretOnce(label: string, secret: string): Html {
  return html`<section class="panel secret" aria-labelledby="secret-title">
<h2 id="secret-title">${label}</h2>
<p>Copy it now: it is not shown again, and the server keeps only its hash.</p>
<label for="secret-value">Secret</label>
<input id="secret-value" class="secret-value" type="text" readonly value="${secret}" spellcheck="false" autocomplete="off">
</section>`;
}
