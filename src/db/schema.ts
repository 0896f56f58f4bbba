// Every SQLite table, for drizzle-kit (drizzle.config.ts). Each table lives with the module that
// owns it (src/modules/<name>/tables.ts, beside its PostgreSQL twin); this file only gathers them.
export { meta, idempotencyKeys } from "./tables";
export { accounts, apiKeys, usageDaily, usageEndpoints, accountMembers } from "../modules/accounts/tables";
export { blacklistEntries, blacklistChanges } from "../modules/blacklist/tables";
export { outboxEvents } from "../modules/outbox/tables";
export { webhookEndpoints, webhookDeliveries, webhookAttempts } from "../modules/webhooks/tables";
export { creators, connections, trustSnapshots } from "../modules/creators/tables";
export { vouches, deals, reviews, referrals, servers } from "../modules/network/tables";
export { loginLinks, sessions } from "../modules/sessions/tables";
export { courseCompletions } from "../modules/courses/tables";
export { tripwires, tripwirePreferences } from "../modules/tripwires/tables";
export { staff } from "../modules/staff/tables";
export { auditEvents } from "../modules/audit/tables";
export { moderationCases, moderationReports, moderationEvidence, moderationComments, moderationMutes } from "../modules/moderation/tables";
export { appeals } from "../modules/appeals/tables";
export { federationKeys, federationSources, federationSourceKeys, federationItems, federationExemptions } from "../modules/federation/tables";
