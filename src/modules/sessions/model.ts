// Schemas of sign-in and of the signed-in creator's own reads (docs/api.md, "Sign-in, courses and tripwires").
import { t } from "elysia";
import { DateTime, JsonInteger } from "../../http/model";

export const LoginLinkBody = t.Object(
  { handle: t.String({ minLength: 1, maxLength: 33, description: "Handle of the creator to sign in (a leading @ is fine).", examples: ["alicemakes"] }) },
  { $id: "LoginLinkBody", additionalProperties: t.Never() },
);

export const LoginLink = t.Object(
  {
    handle: t.String({ description: "The creator the link signs in.", examples: ["alicemakes"] }),
    url: t.String({
      format: "uri",
      description: "One-time sign-in address: opening it starts a session. Send it to that creator only (a Discord DM).",
      examples: ["https://trust.example.org/auth/magic?token=Zk3pQ9vT2mX8cR1yL6nB4wE7aH0sD5fG3jK9uI2oP1q"],
    }),
    expires_at: DateTime("When the link stops working (15 minutes after it was made)."),
  },
  { $id: "LoginLink", description: "A one-time sign-in link, usable once within 15 minutes." },
);

export const MagicQuery = t.Object({
  token: t.Optional(t.String({ maxLength: 128, description: "The token of a sign-in link." })),
});

export const SignedOut = t.Object(
  { signed_out: t.Boolean({ description: "True when a session was open and is now ended.", examples: [true] }) },
  { $id: "SignedOut", description: "The answer to signing out; the cookie is cleared either way." },
);

export const Me = t.Object(
  {
    handle: t.String({ description: "The signed-in creator's handle.", examples: ["alicemakes"] }),
    display_name: t.Nullable(t.String({ description: "Their display name.", examples: ["Alice Makes"] })),
  },
  { $id: "Me", description: "Who is signed in." },
);

export const VouchesGivenQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20, description: "Rows per page, 1-100." })),
  offset: t.Optional(t.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: "Rows to skip (ignored with `cursor`)." })),
  cursor: t.Optional(t.String({ maxLength: 512, description: "`next_cursor` of the previous page: pages stay stable while vouches are added." })),
});

export const VouchedPerson = t.Object(
  {
    handle: t.String({ description: "The creator vouched for.", examples: ["shadowbuilds"] }),
    displayName: t.Nullable(t.String({ description: "Their display name.", examples: ["Shadow Builds"] })),
    avatarUrl: t.Nullable(t.String({ description: "Relative path of their avatar.", examples: ["/avatars/shadow.png"] })),
    trustScore: t.Nullable(JsonInteger({ minimum: 0, maximum: 250, description: "Their current Trust Score.", examples: [142] })),
    vouchedAt: DateTime("When the vouch was given."),
  },
  { $id: "VouchedPerson", description: "A creator the signed-in user vouched for." },
);

export const VouchesGivenPage = t.Object(
  {
    count: JsonInteger({ description: "Vouches given in total, not just this page.", examples: [3] }),
    limit: JsonInteger({ examples: [20] }),
    offset: JsonInteger({ description: "Rows before this page.", examples: [0] }),
    vouches: t.Array(VouchedPerson, { description: "Newest first." }),
    next_cursor: t.Nullable(t.String({ description: "Pass as `cursor` for the next page; null on the last one." })),
  },
  { $id: "VouchesGivenPage", description: "The creators the signed-in user vouched for, newest first." },
);
