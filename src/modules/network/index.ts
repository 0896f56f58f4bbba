// Partner controllers for what creators do with each other, and for registering servers.
import { Elysia } from "elysia";
import { requireKey } from "../../http/guards";
import { errors, KEYED_ERRORS } from "../../http/model";
import type { Runtime } from "../../runtime";
import { Deal, DealBody, DealParams, Referral, ReferralBody, Review, ReviewBody, Server, ServerBody, ServerParams, Vouch, VouchBody } from "./model";
import type { DealAction, NetworkService } from "./service";

const WRITE_ERRORS = [400, ...KEYED_ERRORS, 403, 404, 409, 422] as const;

const TRANSITION_DOCS: Record<DealAction, { operationId: string; summary: string; description: string }> = {
  confirm: { operationId: "confirmDeal", summary: "Confirm a deal", description: "pending → confirmed; emits `deal.confirmed`. Any other state is 409." },
  decline: { operationId: "declineDeal", summary: "Decline a deal", description: "pending → declined; emits `deal.declined`. Any other state is 409." },
  complete: {
    operationId: "completeDeal",
    summary: "Complete a deal",
    description: "confirmed → completed; both parties' Trust Scores are recomputed and either may now review the other. Any other state is 409.",
  },
};

export function partnerNetworkRoutes(runtime: Runtime, network: NetworkService) {
  const transition = (action: DealAction) =>
    [
      `/deals/:id/${action}`,
      ({ params }: { params: { id: string } }) => network.transition(params.id, action),
      { params: DealParams, response: { 200: Deal, ...errors(...KEYED_ERRORS, 403, 404, 409) }, detail: TRANSITION_DOCS[action] },
    ] as const;
  return new Elysia({ prefix: "/v1/partner", tags: ["Partner"] })
    .use(requireKey(runtime, "write"))
    .post(
      "/vouches",
      async ({ body, set }) => {
        set.status = 201;
        return network.vouch(body);
      },
      {
        body: VouchBody,
        parse: "json",
        response: { 201: Vouch, ...errors(...WRITE_ERRORS) },
        detail: { operationId: "createVouch", summary: "Vouch for a creator", description: "Vouching for yourself is 422; a second vouch for the same creator is 409." },
      },
    )
    .post(
      "/deals",
      async ({ body, set }) => {
        set.status = 201;
        return network.openDeal(body);
      },
      {
        body: DealBody,
        parse: "json",
        response: { 201: Deal, ...errors(...WRITE_ERRORS) },
        detail: { operationId: "openDeal", summary: "Open a deal", description: "A new deal starts `pending`." },
      },
    )
    .get("/deals/:id", ({ params }) => network.getDeal(params.id), {
      params: DealParams,
      response: { 200: Deal, ...errors(...KEYED_ERRORS, 403, 404) },
      detail: { operationId: "getDeal", summary: "Get a deal" },
    })
    .post(...transition("confirm"))
    .post(...transition("decline"))
    .post(...transition("complete"))
    .post(
      "/reviews",
      async ({ body, set }) => {
        set.status = 201;
        return network.review(body);
      },
      {
        body: ReviewBody,
        parse: "json",
        response: { 201: Review, ...errors(...WRITE_ERRORS) },
        detail: {
          operationId: "createReview",
          summary: "Review a creator",
          description: "Needs a completed deal between the two that the reviewer has not reviewed yet (else 409). The reviewed creator's score is recomputed.",
        },
      },
    )
    .post(
      "/referrals",
      async ({ body, set }) => {
        set.status = 201;
        return network.refer(body);
      },
      {
        body: ReferralBody,
        parse: "json",
        response: { 201: Referral, ...errors(...WRITE_ERRORS) },
        detail: { operationId: "createReferral", summary: "Record a referral", description: "A creator is referred at most once (409 after that)." },
      },
    )
    .put(
      "/servers/:platform/:server_id",
      async ({ params, body, caller, set }) => {
        const { created, server } = await network.registerServer({ ...params, name: body?.name }, caller.keyId);
        set.status = created ? 201 : 200;
        return server;
      },
      {
        params: ServerParams,
        body: ServerBody,
        parse: "json",
        response: { 200: Server, 201: Server, ...errors(400, ...KEYED_ERRORS, 403, 422) },
        detail: { operationId: "registerServer", summary: "Register a server", description: "A community server running a bot against this instance; 201 when new, 200 when known." },
      },
    )
    .delete(
      "/servers/:platform/:server_id",
      ({ params }) => network.unregisterServer(params.platform, params.server_id),
      {
        params: ServerParams,
        response: { 200: Server, ...errors(...KEYED_ERRORS, 403, 404) },
        detail: { operationId: "unregisterServer", summary: "Unregister a server", description: "Answers the record removed." },
      },
    );
}
