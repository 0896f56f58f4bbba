// Shared setup of the keyless route tests (public*.test.ts): a fresh app per test with a
// write-scoped key for setting data up through the partner API, and keyless GETs that each come
// from their own client address, so the per-IP bucket never interferes.
import { afterEach, beforeEach, expect } from "bun:test";
import { createTestApp, type TestApp } from "./helpers";

export interface PublicKit {
  /** The current test's app. */
  readonly t: TestApp;
  /** A keyless GET, JSON-parsed, from its own client address (or `ip`). */
  get(path: string, ip?: string): Promise<{ status: number; body: any; headers: Headers }>;
  /** A keyless GET with the body as text, nothing hidden by parsing. */
  getText(path: string): Promise<{ status: number; text: string }>;
  /** A partner write that must succeed; answers the body. */
  write(method: string, path: string, body?: unknown): Promise<any>;
  creator(handle: string, body?: Record<string, unknown>): Promise<any>;
  link(handle: string, body: Record<string, unknown>): Promise<any>;
  /** A ban with a reason and summary unless `body` says otherwise. */
  entry(body: Record<string, unknown>): Promise<any>;
}

export function publicKit(): PublicKit {
  let t: TestApp;
  let writer: string;
  let ipCounter = 0;
  beforeEach(async () => {
    t = await createTestApp();
    t.runtime.config.trustProxy = 1;
    writer = (await t.account({ scope: "write", burst: 10_000 })).key;
  });
  afterEach(() => t.close());
  const nextAddress = () => `10.${(++ipCounter >> 8) & 255}.${ipCounter & 255}.1`;
  const kit: PublicKit = {
    get t() {
      return t;
    },
    get: (path, ip = nextAddress()) => t.json("GET", path, { headers: { "x-forwarded-for": ip } }),
    async getText(path) {
      const res = await t.call("GET", path, { headers: { "x-forwarded-for": nextAddress() } });
      return { status: res.status, text: await res.text() };
    },
    async write(method, path, body) {
      const res = await t.json(method, path, { key: writer, body });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      return res.body;
    },
    creator: (handle, body = {}) => kit.write("PUT", `/v1/partner/creators/${handle}`, body),
    link: (handle, body) => kit.write("POST", `/v1/partner/creators/${handle}/connections`, body),
    entry: (body) => kit.write("POST", "/v1/partner/blacklist", { severity: "ban", reason_code: "scam_trade", summary: "Took payment, never delivered.", ...body }),
  };
  return kit;
}
