// Everyone signed in: their appeals (filed against an entry naming them) and their tripwires,
// through the same services as /v1/me/appeals and /v1/me/tripwires.
import type { Services } from "../../services";
import { MeAppealBody } from "../appeals/model";
import type { EntryRow } from "../blacklist/store";
import { PreferencesBody, TripwireBody } from "../tripwires/model";
import { all, checked, text } from "./form";
import { type ConsoleKit, doneNotice } from "./kit";
import { appealsBody, tripwiresBody } from "./mine";

export function mineRoutes(kit: ConsoleKit, services: Services) {
  const { view, action } = kit;
  /** The active entries naming the creator or one of their linked accounts (public or private): what they may appeal. */
  const entriesNaming = async (creatorId: string, handle: string): Promise<EntryRow[]> => {
    const links = await services.creators.store.connectionsOf(creatorId);
    const found = new Map<string, EntryRow>();
    for (const subject of [{ creatorHandle: handle }, ...links.map((c) => ({ provider: c.provider, providerUserId: c.providerUserId }))]) {
      for (const entry of await services.blacklist.entriesOf(subject)) if (entry.status === "active") found.set(entry.id, entry);
    }
    return [...found.values()].sort((a, b) => b.issuedAt - a.issuedAt);
  };
  return kit
    .controller()
      // Everyone signed in: their appeals and tripwires.
      .get(
        "/appeals",
        view(async (visitor, ctx) => ({
          page: {
            title: "My appeals",
            current: "/console/appeals",
            notice: doneNotice(ctx.query),
            body: appealsBody(visitor, await services.appeals.mine(visitor.viewer, { limit: 100 }), await entriesNaming(visitor.viewer.creatorId, visitor.viewer.handle), (ctx.query.entry ?? "").slice(0, 64)),
          },
        })),
      )
      .post(
        "/appeals",
        action(
          () => "/console/appeals",
          async (visitor, form) => {
            await services.appeals.fileForCreator(visitor.viewer, checked(MeAppealBody, { entry_id: text(form, "entry_id") ?? "", statement: text(form, "statement") ?? "" }));
            return { redirect: "/console/appeals?done=appeal-filed" };
          },
        ),
      )
      .get(
        "/tripwires",
        view(async (visitor, ctx) => ({
          page: { title: "Tripwires", current: "/console/tripwires", notice: doneNotice(ctx.query), body: tripwiresBody(visitor, await services.tripwires.list(visitor.viewer)) },
        })),
      )
      .post(
        "/tripwires",
        action(
          () => "/console/tripwires",
          async (visitor, form) => {
            const triggers = all(form, "triggers");
            await services.tripwires.create(visitor.viewer, checked(TripwireBody, { who: text(form, "who") ?? "", ...(triggers.length > 0 ? { triggers } : {}) }));
            return { redirect: "/console/tripwires?done=tripwire-armed" };
          },
        ),
      )
      .post(
        "/tripwires/preferences",
        action(
          () => "/console/tripwires",
          async (visitor, form) => {
            const input = checked(PreferencesBody, { discord_webhook_url: text(form, "discord_webhook_url") ?? null, email: text(form, "email") ?? null });
            await services.tripwires.setPreferences(visitor.viewer, input);
            return { redirect: "/console/tripwires?done=preferences-saved" };
          },
        ),
      )
      .post(
        "/tripwires/:id/delete",
        action(
          () => "/console/tripwires",
          async (visitor, _form, ctx) => {
            await services.tripwires.delete(visitor.viewer, ctx.params.id!);
            return { redirect: "/console/tripwires?done=tripwire-deleted" };
          },
        ),
      );
}
