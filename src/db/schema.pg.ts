// Every PostgreSQL table, for drizzle-kit (drizzle.postgres.config.ts). Each table lives with the
// module that owns it, beside its SQLite twin; this file only gathers them. The trigger-maintained
// search names and creators_version are a hand-written migration in migrations/postgres.
export { metaPg as meta, idempotencyKeysPg as idempotencyKeys } from "./tables";
export { accountsPg as accounts, apiKeysPg as apiKeys, usageDailyPg as usageDaily, usageEndpointsPg as usageEndpoints, accountMembersPg as accountMembers } from "../modules/accounts/tables";
export { blacklistEntriesPg as blacklistEntries, blacklistChangesPg as blacklistChanges } from "../modules/blacklist/tables";
export { outboxEventsPg as outboxEvents } from "../modules/outbox/tables";
export { webhookEndpointsPg as webhookEndpoints, webhookDeliveriesPg as webhookDeliveries, webhookAttemptsPg as webhookAttempts } from "../modules/webhooks/tables";
export { creatorsPg as creators, connectionsPg as connections, trustSnapshotsPg as trustSnapshots } from "../modules/creators/tables";
export { vouchesPg as vouches, dealsPg as deals, reviewsPg as reviews, referralsPg as referrals, serversPg as servers } from "../modules/network/tables";
export { loginLinksPg as loginLinks, sessionsPg as sessions } from "../modules/sessions/tables";
export { courseCompletionsPg as courseCompletions } from "../modules/courses/tables";
export { tripwiresPg as tripwires, tripwirePreferencesPg as tripwirePreferences } from "../modules/tripwires/tables";
export { staffPg as staff } from "../modules/staff/tables";
export { auditEventsPg as auditEvents } from "../modules/audit/tables";
export {
  moderationCasesPg as moderationCases,
  moderationReportsPg as moderationReports,
  moderationEvidencePg as moderationEvidence,
  moderationCommentsPg as moderationComments,
  moderationMutesPg as moderationMutes,
} from "../modules/moderation/tables";
export { appealsPg as appeals } from "../modules/appeals/tables";
export {
  federationKeysPg as federationKeys,
  federationSourcesPg as federationSources,
  federationSourceKeysPg as federationSourceKeys,
  federationItemsPg as federationItems,
  federationExemptionsPg as federationExemptions,
} from "../modules/federation/tables";
