// Community servers that run a bot against this instance: registering, renaming and unregistering
// one; its own file as one of the network's concepts (service.ts is the facade).
import { iso } from "../../clock";
import { notFound } from "../../errors";
import { cleanText } from "../../values";
import type * as Model from "./model";
import type { ServerRow } from "./store";
import { type Dated, type NetworkWriting, timeOf } from "./writing";

export type Server = typeof Model.Server.static;
export type ServerInput = typeof Model.ServerParams.static & NonNullable<typeof Model.ServerBody.static> & Dated;

export class NetworkServers {
  constructor(private readonly base: NetworkWriting) {}

  async registerServer(input: ServerInput, registeredBy: string): Promise<{ created: boolean; server: Server }> {
    return this.base.write(async (now) => {
      const createdAt = timeOf(input, now);
      const name = cleanText(input.name);
      const existing = await this.base.store.serverById(input.platform, input.server_id);
      if (!existing) await this.base.store.insertServer(input.platform, input.server_id, name, registeredBy, createdAt);
      else if (input.name !== undefined) await this.base.store.renameServer(input.platform, input.server_id, name);
      const row = (await this.base.store.serverById(input.platform, input.server_id))!;
      return { created: !existing, server: serverView(input.platform, input.server_id, row) };
    });
  }

  registerServerNow(input: ServerInput, registeredBy: string, now: number): { created: boolean; server: Server } {
    const store = this.base.syncStore();
    const createdAt = timeOf(input, now);
    const name = cleanText(input.name);
    const existing = store.serverById(input.platform, input.server_id);
    if (!existing) store.insertServer(input.platform, input.server_id, name, registeredBy, createdAt);
    else if (input.name !== undefined) store.renameServer(input.platform, input.server_id, name);
    const row = store.serverById(input.platform, input.server_id)!;
    return { created: !existing, server: serverView(input.platform, input.server_id, row) };
  }

  /** `registerServerNow` awaiting the store: the import on PostgreSQL, inside its transaction. */
  async registerServerImported(input: ServerInput, registeredBy: string, now: number): Promise<void> {
    const createdAt = timeOf(input, now);
    const name = cleanText(input.name);
    const existing = await this.base.store.serverById(input.platform, input.server_id);
    if (!existing) await this.base.store.insertServer(input.platform, input.server_id, name, registeredBy, createdAt);
    else if (input.name !== undefined) await this.base.store.renameServer(input.platform, input.server_id, name);
  }

  async unregisterServer(platform: string, serverId: string): Promise<Server> {
    return this.base.write(async () => {
      const row = await this.base.store.serverById(platform, serverId);
      if (!row) throw notFound(`No registered ${platform} server ${serverId.slice(0, 64)}.`);
      await this.base.store.deleteServer(platform, serverId);
      return serverView(platform, serverId, row);
    });
  }
}

function serverView(platform: string, serverId: string, row: ServerRow): Server {
  return { platform, server_id: serverId, name: row.name, created_at: iso(row.createdAt) };
}
