// Reviews of completed deals: one per completed deal a creator has not reviewed yet, the partner's
// write and the import's; its own file as one of the network's concepts (service.ts is the facade).
import { iso } from "../../clock";
import { conflict, unprocessable } from "../../errors";
import { newId } from "../../ids";
import type { CreatorRow } from "../creators/service";
import type * as Model from "./model";
import type { ReviewRow } from "./store";
import { type Dated, type NetworkWriting, timeOf } from "./writing";

export type Review = typeof Model.Review.static;
export type ReviewInput = typeof Model.ReviewBody.static & Dated;

export class NetworkReviews {
  constructor(private readonly base: NetworkWriting) {}

  /** A review of `to` by `from`, attached to a completed deal between them that `from` has not reviewed. */
  async review(input: typeof Model.ReviewBody.static): Promise<Review> {
    return this.base.write(async (now) => {
      const [from, to] = await this.base.pair(input.from, input.to, "review");
      checkRating(input.rating);
      const row = newReview(from, to, await this.base.store.reviewableDeal(from.id, to.id), input, now);
      await this.base.store.insertReview(row);
      await this.base.creators.recompute(to.id, now, true);
      return reviewView(row, from, to);
    });
  }

  reviewNow(input: ReviewInput, now: number): Review {
    const [from, to] = this.base.pairNow(input.from, input.to, "review");
    checkRating(input.rating);
    const row = newReview(from, to, this.base.syncStore().reviewableDeal(from.id, to.id), input, now);
    this.base.syncStore().insertReview(row);
    this.base.creators.recomputeNow(to.id, now, true);
    return reviewView(row, from, to);
  }

  /** `reviewNow` awaiting the store: the import on PostgreSQL, inside its transaction. */
  async reviewImported(input: ReviewInput, now: number): Promise<void> {
    const [from, to] = await this.base.pair(input.from, input.to, "review");
    checkRating(input.rating);
    await this.base.store.insertReview(newReview(from, to, await this.base.store.reviewableDeal(from.id, to.id), input, now));
    await this.base.creators.recompute(to.id, now, true);
  }
}

function checkRating(rating: number) {
  if (!Number.isInteger(rating) || rating < 1 || rating > 5) throw unprocessable("rating is a whole number from 1 to 5.");
}

function newReview(from: CreatorRow, to: CreatorRow, deal: { id: string; reviewed: boolean } | null, input: ReviewInput, now: number): ReviewRow {
  if (!deal) throw conflict(`${from.handle} and ${to.handle} have no completed deal to review.`);
  if (deal.reviewed) throw conflict(`${from.handle} already reviewed every completed deal with ${to.handle}.`);
  const createdAt = timeOf(input, now);
  return { id: newId("rev", createdAt), dealId: deal.id, fromCreatorId: from.id, toCreatorId: to.id, rating: input.rating, createdAt };
}

function reviewView(row: ReviewRow, from: CreatorRow, to: CreatorRow): Review {
  return { id: row.id, deal_id: row.dealId, from: from.handle, to: to.handle, rating: row.rating, created_at: iso(row.createdAt) };
}
