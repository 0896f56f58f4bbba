// The services of one runtime, built once and shared by the HTTP app, the jobs and the CLI.
import { AccountsService, UsageService } from "./modules/accounts/service";
import { BadgeService } from "./modules/badge/service";
import { BlacklistService } from "./modules/blacklist/service";
import { CreatorsService } from "./modules/creators/service";
import { NetworkService } from "./modules/network/service";
import { PublicService } from "./modules/public/service";
import { WebhooksService } from "./modules/webhooks/service";
import { Outbox } from "./outbox";
import type { Runtime } from "./runtime";

export interface Services {
  accounts: AccountsService;
  usage: UsageService;
  blacklist: BlacklistService;
  creators: CreatorsService;
  network: NetworkService;
  public: PublicService;
  badges: BadgeService;
  outbox: Outbox;
  webhooks: WebhooksService;
}

export function createServices(runtime: Runtime): Services {
  const { store, clock } = runtime;
  const outbox = new Outbox(store);
  const blacklist = new BlacklistService(store, clock, runtime.cursors, outbox);
  const creators = new CreatorsService(store, clock, outbox, blacklist, runtime.config.baseUrl);
  return {
    accounts: new AccountsService(runtime.accountsStore, clock, () => runtime.keys.changed()),
    usage: new UsageService(runtime.accountsStore, clock, runtime.meter, runtime.quota),
    blacklist,
    creators,
    network: new NetworkService(store, clock, outbox, creators),
    public: new PublicService(store, clock, blacklist, creators),
    badges: new BadgeService(creators),
    outbox,
    webhooks: new WebhooksService(store, clock, runtime.cursors, {
      policy: { allowPrivate: runtime.config.allowPrivateWebhooks },
      retryDelaysMs: runtime.config.webhookRetryDelaysMs,
    }),
  };
}
