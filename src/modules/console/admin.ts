// What admins alone see: staff roles (grant, change, revoke), and the accounts with their members.
// Everything goes through the staff and accounts services, the same ones the admin API and the CLI use.
import { STAFF_ROLES } from "../../domain";
import type { AccountView } from "../accounts/service";
import { type Html, html } from "../pages/html";
import type { StaffList } from "../staff/model";
import type { Visitor } from "./guard";
import { field, postForm, select, table, when } from "./layout";

export function staffRolesBody(visitor: Visitor, list: typeof StaffList.static): Html {
  const rows = list.data.map((m) => [
    html`@${m.handle}`,
    html`${m.role}`,
    when(m.granted_at),
    html`${m.granted_by}`,
    m.handle === visitor.viewer.handle
      ? html`<span class="muted">You</span>`
      : postForm(visitor, `/console/admin/staff/${encodeURIComponent(m.handle)}/revoke`, null, "Revoke", { quiet: true, label: `Revoke the role of @${m.handle}` }),
  ]);
  return html`<h1>Staff roles</h1>
<section class="panel" aria-labelledby="grant-title">
<h2 id="grant-title">Grant or change a role</h2>
<p>Staff are creators: they sign in with their own links. <strong>triage</strong> reads the queue, comments, assigns and escalates; <strong>moderator</strong> also decides reports and appeals and overturns entries; <strong>admin</strong> also manages staff and accounts.</p>
${postForm(
  visitor,
  "/console/admin/staff",
  html`${field("grant-handle", "Creator handle", html`<input id="grant-handle" name="handle" required maxlength="33" autocomplete="off" spellcheck="false">`)}
${field("grant-role", "Role", select("grant-role", "role", STAFF_ROLES))}`,
  "Grant",
)}
</section>
<section class="panel" aria-labelledby="staff-title">
<h2 id="staff-title">Staff</h2>
${table("Staff members", ["Handle", "Role", "Granted", "By", "Action"], rows, "No staff yet.")}
</section>`;
}

/** One account and its members, as the admin's accounts page lists them. */
export interface AccountWithMembers {
  account: AccountView;
  members: { handle: string; role: string; added_at: string }[];
}

export function accountsBody(visitor: Visitor, accounts: AccountWithMembers[]): Html {
  const items = accounts.map(({ account: a, members }) => {
    const base = `/console/admin/accounts/${encodeURIComponent(a.id)}/members`;
    return html`<li class="panel item" aria-labelledby="acct-${a.id}">
<h3 id="acct-${a.id}">${a.name} <span class="muted">· ${a.tier} · ${a.status} · ${a.daily_quota} calls a day</span></h3>
${table(`Members of ${a.name}`, ["Handle", "Role", "Added", "Action"], members.map((m) => [
  html`@${m.handle}`,
  html`${m.role}`,
  when(m.added_at),
  postForm(visitor, `${base}/${encodeURIComponent(m.handle)}/remove`, null, "Remove", { quiet: true, label: `Remove @${m.handle} from ${a.name}` }),
]), "No member: nobody manages this account in the console.")}
${postForm(
  visitor,
  base,
  html`${field(`member-${a.id}`, "Creator handle", html`<input id="member-${a.id}" name="handle" required maxlength="33" autocomplete="off" spellcheck="false">`)}
${field(`member-role-${a.id}`, "Role", select(`member-role-${a.id}`, "role", ["developer", "owner"]))}`,
  "Add member",
  { label: `Add a member to ${a.name}` },
)}
</li>`;
  });
  return html`<h1>Accounts</h1>
<p class="lead">Members of an account manage its keys, usage and webhooks in the console. Create accounts with <code>trustlist accounts create</code>.</p>
${items.length === 0 ? html`<p class="muted">No account.</p>` : html`<ul class="items">${items}</ul>`}`;
}
