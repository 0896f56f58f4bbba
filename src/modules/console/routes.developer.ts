// Developers, the members of an API account: its plan, quota, keys, usage and webhooks, through the
// accounts and webhooks services (their rules, the key cap among them, hold here as everywhere).
// A visitor who is not a member of the account in the path gets 403.
import type { Services } from "../../services";
import { NewKeyBody } from "../accounts/model";
import { ApiError } from "../../http/errors";
import { NewWebhookBody } from "../webhooks/model";
import { accountBody, accountPath, membershipsBody, webhookBody } from "./developer";
import { all, checked, text } from "./form";
import { type ConsoleKit, doneNotice } from "./kit";

export function developerRoutes(kit: ConsoleKit, services: Services) {
  const { view, action, members, memberOf, keyOf, secretPage, keyIssued } = kit;
  return kit
    .controller()
      // Developers: the accounts they are members of.
      .get(
        "/accounts",
        view(async (visitor) => ({ page: { title: "Accounts you manage", current: "/console/accounts", body: membershipsBody(await members.accountsOf(visitor.viewer.creatorId)) } })),
      )
      .get(
        "/accounts/:account",
        view(async (visitor, ctx) => {
          const membership = await memberOf(visitor, ctx.params.account!);
          const id = membership.account.id;
          const [keys, lastUsed, usage, webhooks] = await Promise.all([services.accounts.listKeys(id), members.lastUsed(id), members.usage(id), services.webhooks.list(id)]);
          return {
            page: {
              title: membership.account.name,
              current: "/console/accounts",
              notice: doneNotice(ctx.query),
              body: accountBody(visitor, { membership, keys, lastUsed, usage, webhooks: webhooks.data }),
            },
          };
        }),
      )
      .post(
        "/accounts/:account/keys",
        action(
          (ctx) => accountPath(ctx.params.account!),
          async (visitor, form, ctx) => {
            const { account } = await memberOf(visitor, ctx.params.account!);
            const scope = text(form, "scope") ?? "read";
            if (scope === "admin") throw new ApiError(403, "forbidden", "Admin keys are the operator's: create them with the CLI.");
            const input = checked(NewKeyBody, { name: text(form, "name") ?? null, scope, rate_tier: "free" });
            return keyIssued(account.id, account.name, await services.accounts.createKey({ ...input, account: account.id }), "created");
          },
        ),
      )
      .post(
        "/accounts/:account/keys/:key/rotate",
        action(
          (ctx) => accountPath(ctx.params.account!),
          async (visitor, _form, ctx) => {
            const { account } = await memberOf(visitor, ctx.params.account!);
            const key = await keyOf(account.id, ctx.params.key!);
            return keyIssued(account.id, account.name, await services.accounts.rotateKey(key.id), "rotated: the old secret no longer works");
          },
        ),
      )
      .post(
        "/accounts/:account/keys/:key/revoke",
        action(
          (ctx) => accountPath(ctx.params.account!),
          async (visitor, _form, ctx) => {
            const { account } = await memberOf(visitor, ctx.params.account!);
            await services.accounts.revokeKey((await keyOf(account.id, ctx.params.key!)).id);
            return { redirect: `${accountPath(account.id)}?done=key-revoked` };
          },
        ),
      )
      // Webhooks on every plan: the plan check of the API routes is theirs; the console is where
      // accounts of any plan manage their endpoints.
      .post(
        "/accounts/:account/webhooks",
        action(
          (ctx) => accountPath(ctx.params.account!),
          async (visitor, form, ctx) => {
            const { account } = await memberOf(visitor, ctx.params.account!);
            const created = await services.webhooks.create(account.id, checked(NewWebhookBody, { url: text(form, "url") ?? "", events: all(form, "events") }));
            return secretPage(account.id, account.name, "Endpoint registered", `The signing secret of ${created.url}`, created.secret);
          },
        ),
      )
      .get(
        "/accounts/:account/webhooks/:id",
        view(async (visitor, ctx) => {
          const { account } = await memberOf(visitor, ctx.params.account!);
          const endpoint = await services.webhooks.get(account.id, ctx.params.id!);
          const deliveries = await services.webhooks.deliveries(account.id, endpoint.id, { limit: 20, ...(ctx.query.cursor ? { cursor: ctx.query.cursor.slice(0, 512) } : {}) });
          return {
            page: { title: "Webhook endpoint", current: "/console/accounts", notice: doneNotice(ctx.query), body: webhookBody(visitor, account.id, account.name, endpoint, deliveries) },
          };
        }),
      )
      .post(
        "/accounts/:account/webhooks/:id/:verb",
        action(
          (ctx) => accountPath(ctx.params.account!),
          async (visitor, _form, ctx) => {
            const { account } = await memberOf(visitor, ctx.params.account!);
            const id = ctx.params.id!;
            const back = `${accountPath(account.id, `/webhooks/${encodeURIComponent(id)}`)}?done=`;
            switch (ctx.params.verb) {
              case "test":
                await services.webhooks.sendTest(account.id, id);
                return { redirect: `${back}webhook-test` };
              case "rotate": {
                const rotated = await services.webhooks.rotateSecret(account.id, id);
                return secretPage(account.id, account.name, "Secret rotated", `The new signing secret of ${rotated.url}`, rotated.secret);
              }
              case "enable":
              case "disable":
                await services.webhooks.update(account.id, id, { enabled: ctx.params.verb === "enable" });
                return { redirect: `${back}webhook-${ctx.params.verb}d` };
              case "delete":
                await services.webhooks.delete(account.id, id);
                return { redirect: `${accountPath(account.id)}?done=webhook-deleted` };
              default:
                throw new ApiError(404, "not_found", "No such action.");
            }
          },
        ),
      );
}
