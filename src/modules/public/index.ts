// Keyless controllers. Every /v1/public/* route and the public counters share one bucket per client
// IP; the referral leaderboard has its own, smaller one (docs/api.md, "Plans and limits").
import { Elysia } from "elysia";
import type { SessionLookup } from "../../http/session-cookie";
import { limitByIp, optionalSession } from "../../http/guards";
import { LEADERBOARD_IP_RULE, PUBLIC_IP_RULE } from "../../http/limits";
import { errors } from "../../http/model";
import type { Runtime } from "../../runtime";
import {
  DirectoryPage,
  DirectoryQuery,
  HandleParams,
  LeaderboardQuery,
  PublicCheckResult,
  PublicStats,
  PublicTrust,
  ReferralLeaderboard,
  ResolveQuery,
  ResolveResult,
  SearchQuery,
  VouchesPage,
  VouchesQuery,
} from "./model";
import { MAX_DIRECTORY_ROWS, type PublicService } from "./service";

/** OpenAPI: no key needed. */
const KEYLESS = { security: [] as never[] };

export function publicRoutes(runtime: Runtime, publicService: PublicService, sessions: SessionLookup) {
  return new Elysia({ tags: ["Public"] })
    .use(limitByIp(runtime, "public", PUBLIC_IP_RULE))
    .get("/v1/public/blacklist/check", ({ query }) => runtime.store.readTogether(() => publicService.search(query.q)), {
      query: SearchQuery,
      response: { 200: PublicCheckResult, ...errors(400, 429) },
      detail: {
        ...KEYLESS,
        operationId: "searchPublic",
        summary: "Search a username, handle or id",
        description:
          "Matches creator handles, public linked usernames and ids, and blacklisted accounts' ids and usernames, on every platform. A watchlist hit with `banned: false` is an unconfirmed external report, not a ban. An account a creator linked privately is shown only when the query names it itself; a creator blacklisted through one shows as its profile hit (`platform: trustlist`). When nothing matches, `suggestions` lists similar public names (handles, public linked usernames, confirmed entries' usernames).",
      },
    })
    .get("/v1/public/resolve", ({ query }) => runtime.store.readTogether(() => publicService.resolve(query)), {
      query: ResolveQuery,
      response: { 200: ResolveResult, ...errors(400, 429) },
      detail: { ...KEYLESS, operationId: "resolveAccount", summary: "Resolve a linked account to its creator", description: "`provider` with `id`, or `username` (optionally with `provider`). Only public links resolve." },
    })
    .get("/v1/public/directory", ({ query }) => publicService.directory(query), {
      query: DirectoryQuery,
      response: { 200: DirectoryPage, ...errors(422, 429) },
      detail: {
        ...KEYLESS,
        operationId: "listDirectory",
        summary: "Creator directory",
        description: `Paged by page number; \`total\` counts every match over all pages. Only the first ${MAX_DIRECTORY_ROWS} rows of a query are listed: a page with \`page\` x \`limit\` over ${MAX_DIRECTORY_ROWS} is 422 \`unprocessable\`; narrow the query with \`q\` or \`platform\`, or sort differently.`,
      },
    })
    .get("/v1/public/users/:handle/vouches", ({ params, query }) => runtime.store.readTogether(() => publicService.vouches(params.handle, query)), {
      params: HandleParams,
      query: VouchesQuery,
      response: { 200: VouchesPage, ...errors(404, 422, 429) },
      detail: { ...KEYLESS, operationId: "listVouches", summary: "Vouches a creator received", description: "Newest first; `count` is the total." },
    })
    .get("/v1/stats/public", () => publicService.publicStats(), {
      response: { 200: PublicStats, ...errors(429) },
      detail: { ...KEYLESS, operationId: "getPublicStats", summary: "Public counters", description: "Refreshed every 5 minutes; `cached` is true when served from that cache." },
    })
    // Last: only the trust tier reads the session cookie; the routes above never wait for it.
    .use(optionalSession(runtime, sessions))
    .get("/v1/public/trust/:handle", ({ params, viewer }) => publicService.publicTrust(params.handle, viewer), {
      params: HandleParams,
      response: { 200: PublicTrust, ...errors(429) },
      detail: { ...KEYLESS, operationId: "getPublicTrust", summary: "Trust tier of a handle", description: "Unknown handles answer `found: false`. `trust_score` is given to signed-in (session) callers only." },
    });
}

export function leaderboardRoutes(runtime: Runtime, publicService: PublicService) {
  return new Elysia({ tags: ["Public"] })
    .use(limitByIp(runtime, "leaderboard", LEADERBOARD_IP_RULE))
    .get("/referrals/leaderboard", ({ query }) => publicService.leaderboard(query.period), {
      query: LeaderboardQuery,
      response: { 200: ReferralLeaderboard, ...errors(422, 429) },
      detail: { ...KEYLESS, operationId: "getReferralLeaderboard", summary: "Referral leaderboard", description: "Top 25 referrers with their badge tier. Earnings are never included." },
    });
}
