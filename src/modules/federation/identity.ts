// The instance's identity: a stable id (made once, kept in the database) and its Ed25519 keys, the
// first made on first use. Rotating adds a key endorsed by the one before it and retires that one;
// retired keys stay published so what they signed still verifies. The private keys never leave
// the database: nothing here answers, prints or logs them.
import { type Clock, iso } from "../../clock";
import type { MetaStore } from "../../db/meta-store";
import type { Actor, AuditLog } from "../audit/service";
import type { InstanceKey, WellKnown } from "./model";
import { endorsementText, fingerprint, kidOf, newKeyPair, signText } from "./signing";
import type { FederationStore, KeyRow } from "./store";

export const SOFTWARE = { name: "trustlist", version: "0.1.0" };

export interface InstanceSummary {
  id: string;
  name: string;
  base_url: string;
  keys: Array<{ kid: string; fingerprint: string; created_at: string; retired_at: string | null; current: boolean; endorsed_by: string | null }>;
}

export class InstanceIdentity {
  constructor(
    private readonly store: FederationStore,
    private readonly meta: MetaStore,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly baseUrl: string,
  ) {}

  instanceId(): Promise<string> {
    return this.meta.valueOrMake("instance_id", () => `inst_${Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex")}`);
  }

  /** Every key, oldest first (each after the key that endorsed it); the first is made when there is none. */
  async keys(): Promise<KeyRow[]> {
    const existing = await this.store.keys();
    if (existing.length > 0) return inEndorsementOrder(existing);
    // Instances starting together on one database make one key: the first to take the lock.
    return this.store.transaction(async () => {
      await this.store.lockKeys();
      const keys = await this.store.keys();
      if (keys.length > 0) return inEndorsementOrder(keys);
      const first = this.newKey(null);
      await this.store.insertKey(first);
      return [first];
    });
  }

  /** The key that signs now: the newest one not retired. */
  async signingKey(): Promise<KeyRow> {
    const keys = await this.keys();
    return keys.filter((key) => key.retiredAt === null).at(-1) ?? keys.at(-1)!;
  }

  get name(): string {
    return new URL(this.baseUrl).host;
  }

  async wellKnown(): Promise<typeof WellKnown.static> {
    const [id, keys] = await Promise.all([this.instanceId(), this.keys()]);
    return {
      instance: { id, name: this.name, base_url: this.baseUrl },
      keys: keys.map(publicKeyView),
      feed: `${this.baseUrl}/v1/federation/changes`,
      software: SOFTWARE,
    };
  }

  async summary(): Promise<InstanceSummary> {
    const [id, keys] = await Promise.all([this.instanceId(), this.keys()]);
    const current = keys.filter((key) => key.retiredAt === null).at(-1)?.kid;
    return {
      id,
      name: this.name,
      base_url: this.baseUrl,
      keys: keys.map((key) => ({
        kid: key.kid,
        fingerprint: fingerprint(key.publicKey),
        created_at: iso(key.createdAt)!,
        retired_at: iso(key.retiredAt),
        current: key.kid === current,
        endorsed_by: key.endorsementKid,
      })),
    };
  }

  /** Adds a key endorsed by the current one and retires that one, in one transaction. */
  async rotate(actor: Actor): Promise<InstanceSummary> {
    await this.keys();
    await this.store.transaction(async () => {
      const previous = inEndorsementOrder(await this.store.keys()).filter((key) => key.retiredAt === null).at(-1)!;
      const next = this.newKey(previous);
      const now = this.clock.now();
      await this.store.insertKey(next);
      await this.store.retireKey(previous.kid, now);
      await this.audit.record(actor, "instance.key_rotated", {}, { kid: next.kid, fingerprint: fingerprint(next.publicKey), previous_kid: previous.kid }, now);
    });
    return this.summary();
  }

  private newKey(previous: KeyRow | null): KeyRow {
    const pair = newKeyPair();
    const kid = kidOf(pair.publicKey);
    return {
      kid,
      publicKey: pair.publicKey,
      privateKey: pair.privateKey,
      createdAt: this.clock.now(),
      retiredAt: null,
      endorsementKid: previous?.kid ?? null,
      endorsementSig: previous ? signText(previous.privateKey, endorsementText(kid, pair.publicKey)) : null,
    };
  }
}

function publicKeyView(key: KeyRow): typeof InstanceKey.static {
  return {
    kid: key.kid,
    alg: "Ed25519",
    public_key: key.publicKey,
    created_at: iso(key.createdAt)!,
    retired_at: iso(key.retiredAt),
    endorsement: key.endorsementKid && key.endorsementSig ? { kid: key.endorsementKid, sig: key.endorsementSig } : null,
  };
}

/** Keys from the first to the newest, each after the one that endorsed it (times may tie). */
function inEndorsementOrder(keys: KeyRow[]): KeyRow[] {
  const byEndorser = new Map(keys.filter((key) => key.endorsementKid !== null).map((key) => [key.endorsementKid!, key]));
  const ordered: KeyRow[] = [];
  for (let key = keys.find((k) => k.endorsementKid === null); key && ordered.length < keys.length; key = byEndorser.get(key.kid)) ordered.push(key);
  return ordered.length === keys.length ? ordered : keys;
}
