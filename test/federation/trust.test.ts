// What a follower trusts: items signed by a pinned key, or by a new key a pinned one endorsed. A
// tampering proxy between two instances, an unendorsed key and a forged identity all stop the
// sync at the first bad item, with nothing after it applied, the cursor left before it, and
// last_error and /metrics saying so.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { createHash, createPublicKey, verify } from "node:crypto";
import { canonicalJson, endorsementText, kidOf, newKeyPair, pageSignedText, signText } from "../../src/modules/federation/signing";
import { addEntry, follow, held, type Instance, instance, sharedClock, sync } from "./kit";

let a: Instance;
let b: Instance;
let proxy: ReturnType<typeof Bun.serve> | null = null;

beforeEach(async () => {
  const clock = sharedClock();
  a = await instance(clock);
  b = await instance(clock);
});
afterEach(async () => {
  await proxy?.stop(true);
  proxy = null;
  await Promise.all([a.close(), b.close()]);
});

/**
 * A proxy to `a` that passes everything through, after `rewrite` has had its way with JSON bodies;
 * with `pageLimit`, feed pages hold at most that many items (the follower reads more pages).
 */
function proxyTo(target: Instance, rewrite: (path: string, body: any) => any, pageLimit?: number): string {
  proxy = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      if (pageLimit && url.searchParams.has("limit")) url.searchParams.set("limit", String(Math.min(pageLimit, Number(url.searchParams.get("limit")))));
      const upstream = await fetch(`${target.url}${url.pathname}${url.search}`, { headers: request.headers });
      const body = await upstream.json();
      return Response.json(rewrite(url.pathname, body), { status: upstream.status });
    },
  });
  return `http://127.0.0.1:${proxy.port}`;
}

/** `b` follows `a` as "alpha", reached at `url`. */
const followThrough = (url: string) => follow(b, a, "alpha", { url });

async function metric(on: Instance, name: string): Promise<number> {
  const text = await (await on.call("GET", "/metrics", { key: on.admin })).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return Number(line?.split(" ")[1]);
}

test("a tampered item stops the sync there: items before it applied, nothing after, the cursor before it", async () => {
  const entries = [];
  for (let i = 0; i < 5; i++) entries.push(await addEntry(a));
  const tampered = entries[2].id;
  let tamper = true;
  await followThrough(
    proxyTo(a, (path, body) => {
      if (tamper && path === "/v1/federation/changes") for (const item of body.items) if (item.entry.id === tampered) item.entry.severity = "warn";
      return body;
    }),
  );
  const outcome = await sync(b, "alpha");
  expect(outcome.applied).toBe(2);
  expect(outcome.error).toContain("signature does not verify");
  expect([...(await held(b, "alpha")).keys()].sort()).toEqual([entries[0].id, entries[1].id].sort());
  const source = (await b.json("GET", "/v1/admin/sources/alpha", { key: b.admin })).body;
  expect(source.last_error).toContain(`item `);
  expect(source.entries_held).toBe(2);
  expect(await metric(b, "trustlist_federation_refused_items")).toBe(1);
  expect(await metric(b, "trustlist_federation_failing_sources")).toBe(1);
  // Again: still stopped at the same item, nothing more applied.
  expect((await sync(b, "alpha")).applied).toBe(0);
  expect((await held(b, "alpha")).size).toBe(2);
  // The proxy stops tampering: the sync resumes from the cursor and applies the rest once.
  tamper = false;
  const resumed = await sync(b, "alpha");
  expect(resumed).toMatchObject({ applied: 3, error: null });
  expect([...(await held(b, "alpha")).keys()].sort()).toEqual(entries.map((e) => e.id).sort());
  expect((await b.json("GET", "/v1/admin/sources/alpha", { key: b.admin })).body.last_error).toBeNull();
  const audit = await b.rows("SELECT action FROM audit_events WHERE action = 'source.sync_stopped'");
  expect(audit).toHaveLength(1);
});

test("each page carries one signature over its items and theirs, which verifies with the published key as documented", async () => {
  for (let i = 0; i < 5; i++) await addEntry(a);
  const pages: any[] = [];
  await followThrough(
    proxyTo(
      a,
      (path, body) => {
        if (path === "/v1/federation/changes") pages.push(structuredClone(body));
        return body;
      },
      2,
    ),
  );
  expect(await sync(b, "alpha")).toMatchObject({ applied: 5, error: null });
  const published = (await a.json("GET", "/.well-known/trustlist.json")).body.keys[0];
  const key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: published.public_key }, format: "jwk" });
  const withItems = pages.filter((page) => page.items.length > 0);
  expect(withItems.map((page) => page.items.length)).toEqual([2, 2, 1]);
  for (const page of withItems) {
    expect(page.page_sig.kid).toBe(published.kid);
    const lines = page.items.map(({ sig, ...rest }: any) => `${createHash("sha256").update(canonicalJson(rest)).digest("base64url")}.${sig}`);
    expect(verify(null, Buffer.from(lines.join("\n")), key, Buffer.from(page.page_sig.sig, "base64url"))).toBe(true);
  }
  // An empty page has nothing to sign.
  expect(pages.filter((page) => page.items.length === 0).every((page) => !("page_sig" in page))).toBe(true);
});

test("a page signature stripped, broken or forged on the way: each item is checked on its own", async () => {
  const entries: Array<{ id: string }> = [];
  for (let i = 0; i < 6; i++) entries.push(await addEntry(a));
  const kid = (await a.json("GET", "/.well-known/trustlist.json")).body.keys[0].kid;
  const forger = newKeyPair();
  let page = 0;
  let tamper = true;
  await followThrough(
    proxyTo(
      a,
      (path, body) => {
        if (path !== "/v1/federation/changes" || body.items.length === 0) return body;
        page++;
        if (page === 1) delete body.page_sig;
        if (page === 2) body.page_sig.sig = `${body.page_sig.sig[0] === "A" ? "B" : "A"}${body.page_sig.sig.slice(1)}`;
        if (page >= 3 && tamper) {
          // An item changed, and the page signed again under the source's kid by another key.
          for (const item of body.items) if (item.entry.id === entries[4].id) item.entry.severity = "warn";
          const texts = body.items.map(({ sig: _, ...rest }: any) => canonicalJson(rest));
          body.page_sig = { kid, sig: signText(forger.privateKey, pageSignedText(texts, body.items.map((item: any) => item.sig))) };
        }
        return body;
      },
      2,
    ),
  );
  const outcome = await sync(b, "alpha");
  expect(outcome.applied).toBe(4);
  expect(outcome.error).toContain("signature does not verify");
  expect([...(await held(b, "alpha")).keys()].sort()).toEqual(entries.slice(0, 4).map((e) => e.id).sort());
  tamper = false;
  expect(await sync(b, "alpha")).toMatchObject({ applied: 2, error: null });
  expect([...(await held(b, "alpha")).keys()].sort()).toEqual(entries.map((e) => e.id).sort());
});

test("pages verified ahead on the signing threads: a tampered item in the third page stops the sync at it", async () => {
  // Pages of 25 items (the verifying threads take pages of 20 or more), the follower reading two
  // pages ahead of the one it applies.
  const entries = [];
  for (let i = 0; i < 90; i++) entries.push(await addEntry(a));
  const tampered = entries[57].id;
  let tamper = true;
  await followThrough(
    proxyTo(
      a,
      (path, body) => {
        if (tamper && path === "/v1/federation/changes") for (const item of body.items) if (item.entry.id === tampered) item.sig = `${item.sig[0] === "A" ? "B" : "A"}${item.sig.slice(1)}`;
        return body;
      },
      25,
    ),
  );
  const outcome = await sync(b, "alpha");
  expect(outcome.applied).toBe(57);
  expect(outcome.error).toContain("signature does not verify");
  expect([...(await held(b, "alpha")).keys()].sort()).toEqual(entries.slice(0, 57).map((e) => e.id).sort());
  tamper = false;
  expect(await sync(b, "alpha")).toMatchObject({ applied: 33, error: null });
  expect([...(await held(b, "alpha")).keys()].sort()).toEqual(entries.map((e) => e.id).sort());
});

test("the first item tampered: nothing applied, the cursor stays null", async () => {
  await addEntry(a);
  await followThrough(
    proxyTo(a, (path, body) => {
      if (path === "/v1/federation/changes" && body.items[0]) body.items[0].entry.provider_user_id = "1";
      return body;
    }),
  );
  const outcome = await sync(b, "alpha");
  expect(outcome).toMatchObject({ applied: 0, cursor: null });
  expect(outcome.error).toContain("signature does not verify");
  expect((await b.json("GET", "/v1/admin/sources/alpha", { key: b.admin })).body.cursor).toBeNull();
});

test("a rotated key endorsed by the pinned one is pinned and its items applied", async () => {
  await followThrough(a.url);
  await addEntry(a);
  await sync(b, "alpha");
  await a.services.federation.identity.rotate({ kind: "cli", id: "test" });
  await a.services.federation.identity.rotate({ kind: "cli", id: "test" });
  const late = await addEntry(a);
  const outcome = await sync(b, "alpha");
  expect(outcome).toMatchObject({ applied: 1, error: null });
  expect((await held(b, "alpha")).has(late.id)).toBe(true);
  const source = (await b.json("GET", "/v1/admin/sources/alpha", { key: b.admin })).body;
  expect(source.fingerprints).toHaveLength(3);
  expect(await b.rows("SELECT kid FROM federation_source_keys WHERE endorsed_by IS NOT NULL")).toHaveLength(2);
});

test("items signed with a key no pinned key endorsed are refused, whatever the document says", async () => {
  await addEntry(a);
  const forged = newKeyPair();
  const forgedKid = kidOf(forged.publicKey);
  const other = newKeyPair();
  let forgeDocument = false;
  await followThrough(
    proxyTo(a, (path, body) => {
      if (path === "/.well-known/trustlist.json" && forgeDocument) {
        // A new key, "endorsed" by a key the follower never pinned.
        const otherKid = kidOf(other.publicKey);
        body.keys.push({ kid: forgedKid, alg: "Ed25519", public_key: forged.publicKey, created_at: body.keys[0].created_at, retired_at: null, endorsement: { kid: otherKid, sig: signText(other.privateKey, endorsementText(forgedKid, forged.publicKey)) } });
      }
      if (path === "/v1/federation/changes") {
        for (const item of body.items) {
          const { sig: _sig, ...rest } = item;
          rest.kid = forgedKid;
          item.kid = forgedKid;
          item.sig = signText(forged.privateKey, canonicalJson(rest));
        }
      }
      return body;
    }),
  );
  forgeDocument = true;
  const outcome = await sync(b, "alpha");
  expect(outcome.applied).toBe(0);
  expect(outcome.error).toContain("no pinned key endorsed");
  expect((await held(b, "alpha")).size).toBe(0);
  expect(await b.rows("SELECT kid FROM federation_source_keys")).toHaveLength(1);
});

test("an unknown key id sends the follower to a document that names another instance: refused", async () => {
  await addEntry(a);
  let swapInstance = false;
  await followThrough(
    proxyTo(a, (path, body) => {
      if (path === "/v1/federation/changes") for (const item of body.items) item.kid = "unknownkid";
      if (path === "/.well-known/trustlist.json" && swapInstance) body.instance.id = "inst_someone_else";
      return body;
    }),
  );
  swapInstance = true;
  const outcome = await sync(b, "alpha");
  expect(outcome.error).toContain("not the pinned");
  expect((await held(b, "alpha")).size).toBe(0);
});
