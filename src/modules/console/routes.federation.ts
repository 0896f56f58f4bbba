// Admins: the sources this instance follows and the exemptions, through the federation service the
// admin API and `trustlist sources|exemptions` use. Each change is audited under the admin.
import { ApiError } from "../../http/errors";
import type { Services } from "../../services";
import { NewExemptionBody, NewSourceBody, SourcePatchBody } from "../federation/model";
import { sourcesBody } from "./federation";
import { checked, text } from "./form";
import { type ConsoleKit, doneNotice } from "./kit";

/** How long "Sync now" waits for the sync before the page answers (it goes on after). */
const SYNC_WAIT_MS = 3_000;

export function federationRoutes(kit: ConsoleKit, services: Services) {
  const { view, action, role, staffActor } = kit;
  const federation = services.federation;
  const back = () => "/console/admin/sources";
  return kit
    .controller()
    .get(
      "/admin/sources",
      view(async (visitor, ctx) => {
        role("admin")(visitor);
        const [sources, exemptions] = await Promise.all([federation.listSources(), federation.exemptions.list()]);
        return { page: { title: "Sources and exemptions", current: "/console/admin/sources", notice: doneNotice(ctx.query), body: sourcesBody(visitor, sources, exemptions) } };
      }),
    )
    .post(
      "/admin/sources",
      action(back, async (visitor, form) => {
        role("admin")(visitor);
        const max = text(form, "max_severity");
        const input = checked(NewSourceBody, {
          name: text(form, "name") ?? "",
          url: text(form, "url") ?? "",
          key: text(form, "key") ?? "",
          policy: text(form, "policy") ?? "review",
          ...(max ? { max_severity: max } : {}),
        });
        await federation.addSource(input, staffActor(visitor));
        return { redirect: "/console/admin/sources?done=source-added" };
      }),
    )
    .post(
      "/admin/sources/:name/:verb",
      action(back, async (visitor, form, ctx) => {
        role("admin")(visitor);
        const name = ctx.params.name!;
        switch (ctx.params.verb) {
          case "sync": {
            const outcome = await federation.syncSource(name, SYNC_WAIT_MS);
            if (outcome.error) throw new ApiError(502, "internal", `The sync of ${name} stopped: ${outcome.error}`);
            return { redirect: "/console/admin/sources?done=source-synced" };
          }
          case "policy":
            await federation.updateSource(name, checked(SourcePatchBody, { policy: text(form, "policy") ?? "" }), staffActor(visitor));
            return { redirect: "/console/admin/sources?done=source-updated" };
          case "remove":
            await federation.removeSource(name, form.get("keep") === "true", staffActor(visitor));
            return { redirect: "/console/admin/sources?done=source-removed" };
          default:
            throw new ApiError(404, "not_found", "No such action.");
        }
      }),
    )
    .post(
      "/admin/exemptions",
      action(back, async (visitor, form) => {
        role("admin")(visitor);
        const source = text(form, "source");
        const input = checked(NewExemptionBody, {
          provider: text(form, "provider") ?? "",
          provider_user_id: text(form, "provider_user_id") ?? "",
          reason: text(form, "reason") ?? "",
          ...(source ? { source } : {}),
        });
        await federation.exemptions.add(input, staffActor(visitor));
        return { redirect: "/console/admin/sources?done=exemption-added" };
      }),
    )
    .post(
      "/admin/exemptions/:id/remove",
      action(back, async (visitor, _form, ctx) => {
        role("admin")(visitor);
        await federation.exemptions.remove(ctx.params.id!, staffActor(visitor));
        return { redirect: "/console/admin/sources?done=exemption-removed" };
      }),
    );
}
