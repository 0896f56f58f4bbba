// The services of one runtime, built once and shared by the HTTP app, the jobs and the CLI.
import { AccountMembers } from "./modules/accounts/members";
import { AccountsService, UsageService } from "./modules/accounts/service";
import { AppealsService } from "./modules/appeals/service";
import { AuditLog } from "./modules/audit/service";
import { BadgeService } from "./modules/badge/service";
import { BlacklistService } from "./modules/blacklist/service";
import { CoursesService } from "./modules/courses/service";
import { CreatorsService } from "./modules/creators/service";
import { FederationService } from "./modules/federation/service";
import { createMetaStore } from "./db/meta-store";
import { ModerationService } from "./modules/moderation/service";
import { NetworkService } from "./modules/network/service";
import { PublicService } from "./modules/public/service";
import { SessionsService } from "./modules/sessions/service";
import { StaffService } from "./modules/staff/service";
import { TripwiresService } from "./modules/tripwires/service";
import { WebhooksService } from "./modules/webhooks/service";
import { Outbox } from "./modules/outbox/service";
import type { Runtime } from "./runtime";

export interface Services {
  accounts: AccountsService;
  /** Who manages an account in the console. */
  members: AccountMembers;
  appeals: AppealsService;
  audit: AuditLog;
  usage: UsageService;
  blacklist: BlacklistService;
  creators: CreatorsService;
  moderation: ModerationService;
  network: NetworkService;
  public: PublicService;
  sessions: SessionsService;
  staff: StaffService;
  courses: CoursesService;
  tripwires: TripwiresService;
  badges: BadgeService;
  outbox: Outbox;
  webhooks: WebhooksService;
  federation: FederationService;
}

export function createServices(runtime: Runtime): Services {
  const { store, clock } = runtime;
  const outbox = new Outbox(store);
  const audit = new AuditLog(store, runtime.cursors);
  const blacklist = new BlacklistService(store, clock, runtime.cursors, outbox, audit);
  const creators = new CreatorsService(store, clock, outbox, blacklist, runtime.config.baseUrl);
  const network = new NetworkService(store, clock, outbox, creators);
  const staff = new StaffService(store, clock, creators, audit);
  const webhooks = new WebhooksService(store, clock, runtime.cursors, {
    policy: { allowPrivate: runtime.config.allowPrivateWebhooks },
    retryDelaysMs: runtime.config.webhookRetryDelaysMs,
  });
  const accounts = new AccountsService(runtime.accountsStore, clock, () => runtime.keys.changed());
  const moderation = new ModerationService(store, clock, runtime.cursors, blacklist, creators, staff, audit);
  const federation = new FederationService(store, clock, runtime.cursors, createMetaStore(store), blacklist, accounts, audit, runtime.config.baseUrl);
  // A `review` source's items are filed as its reports, in the sync's transaction.
  federation.openCasesWith((source, entry) =>
    moderation.sourceReports.file(source.name, {
      provider: entry.provider,
      providerUserId: entry.provider_user_id,
      username: entry.username,
      reasonCode: entry.reason_code,
      severity: entry.severity,
      summary: entry.summary,
      upstreamId: entry.id,
    }),
  );
  return {
    accounts,
    members: new AccountMembers(store, clock, accounts, creators, runtime.meter, runtime.quota, audit),
    appeals: new AppealsService(store, clock, runtime.cursors, blacklist, creators, audit),
    audit,
    usage: new UsageService(runtime.accountsStore, clock, runtime.meter, runtime.quota),
    blacklist,
    creators,
    network,
    public: new PublicService(store, clock, blacklist, creators),
    sessions: new SessionsService(store, clock, creators, network, runtime.cursors, runtime.config.baseUrl),
    staff,
    moderation,
    courses: new CoursesService(store, clock, creators, runtime.config.courseSubmissions),
    badges: new BadgeService(creators),
    outbox,
    webhooks,
    federation,
    // Tripwire alerts go out as Discord messages through the webhooks' deliveries.
    tripwires: new TripwiresService(store, clock, creators, blacklist, webhooks),
  };
}
