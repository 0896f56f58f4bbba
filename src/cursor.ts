// Opaque, tamper-evident paging cursors: base64url JSON of the position plus a truncated
// HMAC-SHA256 under a secret kept in the database, so cursors survive restarts and a client
// cannot forge a position.
export class CursorCodec {
  constructor(private readonly secret: string) {}

  encode(position: Record<string, string | number>): string {
    const body = Buffer.from(JSON.stringify(position)).toString("base64url");
    return `${body}.${this.sign(body)}`;
  }

  /** The position, or null when the cursor is malformed or was not made here. */
  decode(cursor: string): Record<string, unknown> | null {
    const dot = cursor.indexOf(".");
    if (dot <= 0 || cursor.length > 512) return null;
    const body = cursor.slice(0, dot);
    const signature = cursor.slice(dot + 1);
    const expected = this.sign(body);
    if (signature.length !== expected.length || !crypto.timingSafeEqual(Buffer.from(signature), Buffer.from(expected))) return null;
    try {
      const value = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
      return value && typeof value === "object" && !Array.isArray(value) ? value : null;
    } catch {
      return null;
    }
  }

  private sign(body: string): string {
    return new Bun.CryptoHasher("sha256", this.secret).update(body).digest("base64url").slice(0, 22);
  }
}
