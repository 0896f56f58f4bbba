// The console at /console (docs/console.md): server-rendered pages for developers (an account's
// keys, usage and webhooks), staff (the moderators' desk) and admins, and every signed-in person's
// appeals and tripwires. Signed in with the session cookie of the sign-in links.
//
// Safety is built once, in kit.ts and guard.ts, for every page: every request is charged to the
// session routes' per-address bucket; every POST is checked for a same-origin `Origin` and the
// session's CSRF token before anything is read or changed; the Content-Security-Policy admits
// this origin's own files only (no inline script or style) and no framing; data is inserted as
// text by `html`; a section a role may not use is 403 and not linked. Forms are plain POSTs
// answered with a redirect (303), so everything works without the script, which only adds
// conveniences. Pages are HTML, not API: left out of /openapi.json, and every failure is a page.
import { Elysia } from "elysia";
import { ApiError } from "../../http/errors";
import { sessionCookie, sessionOf } from "../../http/session-cookie";
import type { Runtime } from "../../runtime";
import type { Services } from "../../services";
import { type Html, html } from "../pages/html";
import { serveAsset } from "./assets";
import { accountPath } from "./developer";
import { hasRole } from "./guard";
import { consoleKit } from "./kit";
import { overviewBody } from "./mine";
import { adminRoutes } from "./routes.admin";
import { caseRoutes } from "./routes.cases";
import { federationRoutes } from "./routes.federation";
import { developerRoutes } from "./routes.developer";
import { mineRoutes } from "./routes.mine";
import { staffRoutes } from "./routes.staff";

export function consoleRoutes(runtime: Runtime, services: Services) {
  const kit = consoleKit(runtime, services);
  const { assets, view, action, members, cookie, secure } = kit;
  const shell = kit
    .controller()
      .get("/assets/:file", ({ params, request, set }) => serveAsset(assets, params.file, request, set))
      .get(
        "",
        view(async (visitor) => {
          const sections: Html[] = [
            html`<section class="panel" aria-labelledby="yours-title"><h2 id="yours-title">Yours</h2><ul class="links">
<li><a href="/console/appeals">My appeals</a>: appeal a blacklist entry that names you, and read the outcome.</li>
<li><a href="/console/tripwires">Tripwires</a>: be told when a creator or account you watch is blacklisted.</li></ul></section>`,
          ];
          const memberships = await members.accountsOf(visitor.viewer.creatorId);
          if (memberships.length > 0) {
            sections.push(html`<section class="panel" aria-labelledby="dev-title"><h2 id="dev-title">Developer</h2><ul class="links">${memberships.map(
              (m) => html`<li><a href="${accountPath(m.account.id)}">${m.account.name}</a>: keys, usage and webhooks <span class="muted">(${m.account.tier} plan, you are ${m.role})</span></li>`,
            )}</ul></section>`);
          }
          if (visitor.role) {
            sections.push(html`<section class="panel" aria-labelledby="desk-title"><h2 id="desk-title">Moderators' desk</h2><p>Your role: <strong>${visitor.role}</strong>.</p><ul class="links">
<li><a href="/console/cases">Cases</a></li><li><a href="/console/entries">Entries</a></li><li><a href="/console/staff/appeals">Appeals queue</a></li>
${hasRole(visitor.role, "moderator") ? html`<li><a href="/console/audit">Audit log</a></li>` : null}
${hasRole(visitor.role, "admin") ? html`<li><a href="/console/admin/staff">Staff roles</a></li><li><a href="/console/admin/accounts">Accounts and members</a></li><li><a href="/console/admin/sources">Sources and exemptions</a></li>` : null}
</ul></section>`);
          }
          return { page: { title: "Overview", current: "/console", body: overviewBody(visitor, sections), notice: null } };
        }),
      )
      .post(
        "/sign-out",
        action(
          () => "/console",
          async (_visitor, _form, ctx) => {
            await services.sessions.signOut(sessionOf(ctx.request, cookie));
            ctx.set.headers["set-cookie"] = sessionCookie("", 0, secure);
            return { redirect: "/" };
          },
        ),
      );
  // Any other address under /console is a page too: a mistyped link gets the console's 404.
  const notFound = kit.controller().get(
    "/*",
    view(async () => {
      throw new ApiError(404, "not_found", "No console page at this address.");
    }),
  );
  return new Elysia()
    .use(shell)
    .use(mineRoutes(kit, services))
    .use(developerRoutes(kit, services))
    .use(staffRoutes(kit, services))
    .use(caseRoutes(kit, services))
    .use(adminRoutes(kit, services))
    .use(federationRoutes(kit, services))
    .use(notFound);
}
