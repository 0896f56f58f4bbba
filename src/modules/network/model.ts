// Schemas of the partner routes for vouches, deals, reviews, referrals and servers; the import
// format's lines of those types reuse the field sets.
import { t } from "elysia";
import { DEAL_STATUSES } from "../../domain";
import { JsonInteger, DateTime, literals } from "../../http/model";

const HandleRef = (description: string, example: string) =>
  t.String({ minLength: 1, maxLength: 33, description, examples: [example] });

export const VouchFields = {
  from: HandleRef("Handle of the creator vouching.", "alicemakes"),
  to: HandleRef("Handle of the creator vouched for.", "shadowbuilds"),
  message: t.Optional(t.Nullable(t.String({ maxLength: 500, examples: ["Delivered a full map on time."] }))),
};
export const VouchBody = t.Object(VouchFields, { $id: "VouchBody", additionalProperties: t.Never() });
export const Vouch = t.Object({
  id: t.String({ examples: ["vch_01jd5x8q3m7k2c9v4n6p8r0s1t"] }),
  from: t.String(),
  to: t.String(),
  message: t.Nullable(t.String()),
  created_at: DateTime("When the vouch was given."),
}, { $id: "Vouch", description: "A vouch one creator gave another." });

export const DealStatus = literals(DEAL_STATUSES, {
  description: "pending → confirmed → completed, or pending → declined.",
  examples: ["pending"],
});
export const DealBody = t.Object(
  { from: HandleRef("Handle of the creator opening the deal.", "alicemakes"), to: HandleRef("Handle of the other party.", "shadowbuilds") },
  { $id: "DealBody", additionalProperties: t.Never() },
);
export const DealParams = t.Object({ id: t.String({ maxLength: 64, description: "Deal id.", examples: ["deal_01jd5x8q3m7k2c9v4n6p8r0s1t"] }) });
export const Deal = t.Object(
  {
    id: t.String({ examples: ["deal_01jd5x8q3m7k2c9v4n6p8r0s1t"] }),
    from: t.String(),
    to: t.String(),
    status: DealStatus,
    created_at: DateTime("When the deal was opened."),
    updated_at: DateTime("When its status last changed."),
  },
  { $id: "Deal", description: "A deal between two creators. A completed deal counts for both in the Trust Score." },
);

export const ReviewFields = {
  from: HandleRef("Handle of the reviewer.", "alicemakes"),
  to: HandleRef("Handle of the creator reviewed.", "shadowbuilds"),
  rating: JsonInteger({ minimum: 1, maximum: 5, examples: [5] }),
};
export const ReviewBody = t.Object(ReviewFields, { $id: "ReviewBody", additionalProperties: t.Never() });
export const Review = t.Object({
  id: t.String({ examples: ["rev_01jd5x8q3m7k2c9v4n6p8r0s1t"] }),
  deal_id: t.String({ description: "The completed deal the review is attached to." }),
  from: t.String(),
  to: t.String(),
  rating: JsonInteger({ minimum: 1, maximum: 5 }),
  created_at: DateTime("When the review was written."),
}, { $id: "Review", description: "A review attached to a completed deal." });

export const ReferralFields = {
  referrer: HandleRef("Handle of the creator who referred.", "alicemakes"),
  referred: HandleRef("Handle of the creator referred; referred at most once.", "newbuilder"),
};
export const ReferralBody = t.Object(ReferralFields, { $id: "ReferralBody", additionalProperties: t.Never() });
export const Referral = t.Object({ referrer: t.String(), referred: t.String(), created_at: DateTime("When the referral was recorded.") }, { $id: "Referral", description: "A recorded referral." });

export const ServerParams = t.Object({
  platform: literals(["discord", "roblox", "minecraft", "uefn"] as const, { description: "Where the community lives.", examples: ["discord"] }),
  server_id: t.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_.:-]+$", description: "The platform's id of the server.", examples: ["1042345678901234567"] }),
});
export const ServerBody = t.Optional(
  t.Object({ name: t.Optional(t.Nullable(t.String({ maxLength: 100, examples: ["Builders Hub"] }))) }, { $id: "ServerBody", additionalProperties: t.Never() }),
);
export const Server = t.Object(
  {
    platform: t.String(),
    server_id: t.String(),
    name: t.Nullable(t.String()),
    created_at: DateTime("When the server was registered."),
  },
  { $id: "Server", description: "A community server protected by this instance; counted in `servers_protected`." },
);
