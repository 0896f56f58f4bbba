// The services of one runtime, built once and shared by the HTTP app, the jobs and the CLI.
import { AccountsService, UsageService } from "./modules/accounts/service";
import { BlacklistService } from "./modules/blacklist/service";
import type { Runtime } from "./runtime";

export interface Services {
  accounts: AccountsService;
  usage: UsageService;
  blacklist: BlacklistService;
}

export function createServices(runtime: Runtime): Services {
  return {
    accounts: new AccountsService(runtime.store, runtime.clock, () => runtime.keys.invalidate()),
    usage: new UsageService(runtime.store, runtime.clock, runtime.meter, runtime.quota),
    blacklist: new BlacklistService(runtime.store, runtime.clock, runtime.cursors),
  };
}
