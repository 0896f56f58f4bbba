CREATE TABLE "accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"tier" text NOT NULL,
	"daily_quota" integer,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "accounts_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"name" text,
	"hash" text NOT NULL,
	"prefix" text NOT NULL,
	"scope" text NOT NULL,
	"rate_tier" text NOT NULL,
	"burst_rate" integer,
	"created_at" bigint NOT NULL,
	"revoked_at" bigint
);
--> statement-breakpoint
CREATE TABLE "blacklist_changes" (
	"seq" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "blacklist_changes_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"type" text NOT NULL,
	"entry_id" text NOT NULL,
	"at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "blacklist_entries" (
	"id" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"provider_user_id" text NOT NULL,
	"username" text,
	"severity" text NOT NULL,
	"scope" text NOT NULL,
	"vertical" text NOT NULL,
	"reason_code" text NOT NULL,
	"summary" text,
	"issued_at" bigint NOT NULL,
	"expires_at" bigint,
	"appealable" boolean NOT NULL,
	"high_risk" boolean DEFAULT false NOT NULL,
	"watchlist" boolean DEFAULT false NOT NULL,
	"creator_handle" text,
	"evidence" text,
	"reporter" text,
	"status" text DEFAULT 'active' NOT NULL,
	"overturned_at" bigint,
	"overturn_reason" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "connections" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "connections_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"creator_id" text NOT NULL,
	"provider" text NOT NULL,
	"provider_user_id" text NOT NULL,
	"provider_username" text,
	"provider_url" text,
	"verified_at" bigint,
	"public" boolean DEFAULT true NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "creators" (
	"id" text PRIMARY KEY NOT NULL,
	"handle" text NOT NULL,
	"display_name" text,
	"verification_level" integer DEFAULT 0 NOT NULL,
	"karma" integer DEFAULT 0 NOT NULL,
	"joined_at" bigint NOT NULL,
	"avatar_r2_key" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"trust_score" integer DEFAULT 100 NOT NULL,
	"trust_band" text DEFAULT 'average' NOT NULL,
	"blacklisted" boolean DEFAULT false NOT NULL,
	"trust_computed_at" bigint NOT NULL,
	"linked_accounts" integer DEFAULT 0 NOT NULL,
	"verified_connections" integer DEFAULT 0 NOT NULL,
	"vouch_count" integer DEFAULT 0 NOT NULL,
	"deal_count" integer DEFAULT 0 NOT NULL,
	"review_count" integer DEFAULT 0 NOT NULL,
	"review_sum" integer DEFAULT 0 NOT NULL,
	"courses_passed" integer DEFAULT 0 NOT NULL,
	"search_text" text NOT NULL,
	"platforms" text DEFAULT '' NOT NULL,
	CONSTRAINT "creators_handle_unique" UNIQUE("handle")
);
--> statement-breakpoint
CREATE TABLE "deals" (
	"id" text PRIMARY KEY NOT NULL,
	"from_creator_id" text NOT NULL,
	"to_creator_id" text NOT NULL,
	"status" text NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"account_id" text NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"claim" text NOT NULL,
	"status" integer,
	"content_type" text,
	"body" text,
	"created_at" bigint NOT NULL,
	CONSTRAINT "idempotency_keys_account_id_key_pk" PRIMARY KEY("account_id","key")
);
--> statement-breakpoint
CREATE TABLE "meta" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "outbox_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"payload" text NOT NULL,
	"created_at" bigint NOT NULL,
	"dispatched_at" bigint
);
--> statement-breakpoint
CREATE TABLE "referrals" (
	"referred_id" text PRIMARY KEY NOT NULL,
	"referrer_id" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "reviews" (
	"id" text PRIMARY KEY NOT NULL,
	"deal_id" text NOT NULL,
	"from_creator_id" text NOT NULL,
	"to_creator_id" text NOT NULL,
	"rating" integer NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "servers" (
	"platform" text NOT NULL,
	"server_id" text NOT NULL,
	"name" text,
	"registered_by" text,
	"created_at" bigint NOT NULL,
	CONSTRAINT "servers_platform_server_id_pk" PRIMARY KEY("platform","server_id")
);
--> statement-breakpoint
CREATE TABLE "trust_snapshots" (
	"creator_id" text NOT NULL,
	"day" text NOT NULL,
	"score" integer NOT NULL,
	CONSTRAINT "trust_snapshots_creator_id_day_pk" PRIMARY KEY("creator_id","day")
);
--> statement-breakpoint
CREATE TABLE "usage_daily" (
	"account_id" text NOT NULL,
	"day" text NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "usage_daily_account_id_day_pk" PRIMARY KEY("account_id","day")
);
--> statement-breakpoint
CREATE TABLE "usage_endpoints" (
	"key_id" text NOT NULL,
	"day" text NOT NULL,
	"endpoint" text NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "usage_endpoints_key_id_day_endpoint_pk" PRIMARY KEY("key_id","day","endpoint")
);
--> statement-breakpoint
CREATE TABLE "vouches" (
	"id" text PRIMARY KEY NOT NULL,
	"from_creator_id" text NOT NULL,
	"to_creator_id" text NOT NULL,
	"message" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "blacklist_changes" ADD CONSTRAINT "blacklist_changes_entry_id_blacklist_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."blacklist_entries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "connections" ADD CONSTRAINT "connections_creator_id_creators_id_fk" FOREIGN KEY ("creator_id") REFERENCES "public"."creators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deals" ADD CONSTRAINT "deals_from_creator_id_creators_id_fk" FOREIGN KEY ("from_creator_id") REFERENCES "public"."creators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deals" ADD CONSTRAINT "deals_to_creator_id_creators_id_fk" FOREIGN KEY ("to_creator_id") REFERENCES "public"."creators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "referrals" ADD CONSTRAINT "referrals_referred_id_creators_id_fk" FOREIGN KEY ("referred_id") REFERENCES "public"."creators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "referrals" ADD CONSTRAINT "referrals_referrer_id_creators_id_fk" FOREIGN KEY ("referrer_id") REFERENCES "public"."creators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_deal_id_deals_id_fk" FOREIGN KEY ("deal_id") REFERENCES "public"."deals"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_from_creator_id_creators_id_fk" FOREIGN KEY ("from_creator_id") REFERENCES "public"."creators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_to_creator_id_creators_id_fk" FOREIGN KEY ("to_creator_id") REFERENCES "public"."creators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trust_snapshots" ADD CONSTRAINT "trust_snapshots_creator_id_creators_id_fk" FOREIGN KEY ("creator_id") REFERENCES "public"."creators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_endpoints" ADD CONSTRAINT "usage_endpoints_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vouches" ADD CONSTRAINT "vouches_from_creator_id_creators_id_fk" FOREIGN KEY ("from_creator_id") REFERENCES "public"."creators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vouches" ADD CONSTRAINT "vouches_to_creator_id_creators_id_fk" FOREIGN KEY ("to_creator_id") REFERENCES "public"."creators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_idx" ON "api_keys" USING btree ("hash");--> statement-breakpoint
CREATE INDEX "api_keys_account_idx" ON "api_keys" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "blacklist_changes_entry_idx" ON "blacklist_changes" USING btree ("entry_id");--> statement-breakpoint
CREATE INDEX "blacklist_subject_idx" ON "blacklist_entries" USING btree ("provider","provider_user_id","status");--> statement-breakpoint
CREATE INDEX "blacklist_list_idx" ON "blacklist_entries" USING btree ("issued_at","id") WHERE "blacklist_entries"."status" = 'active' AND NOT "blacklist_entries"."watchlist";--> statement-breakpoint
CREATE INDEX "blacklist_expiry_idx" ON "blacklist_entries" USING btree ("expires_at") WHERE "blacklist_entries"."status" = 'active' AND "blacklist_entries"."expires_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "blacklist_username_idx" ON "blacklist_entries" USING btree (lower("username"));--> statement-breakpoint
CREATE INDEX "blacklist_creator_idx" ON "blacklist_entries" USING btree ("creator_handle");--> statement-breakpoint
CREATE UNIQUE INDEX "connections_account_idx" ON "connections" USING btree ("provider","provider_user_id");--> statement-breakpoint
CREATE INDEX "connections_creator_idx" ON "connections" USING btree ("creator_id");--> statement-breakpoint
CREATE INDEX "connections_username_idx" ON "connections" USING btree (lower("provider_username"));--> statement-breakpoint
CREATE INDEX "creators_newest_idx" ON "creators" USING btree ("created_at" DESC,"id");--> statement-breakpoint
CREATE INDEX "creators_trust_idx" ON "creators" USING btree ("trust_score" DESC,"id");--> statement-breakpoint
CREATE INDEX "creators_vouches_idx" ON "creators" USING btree ("vouch_count" DESC,"id");--> statement-breakpoint
CREATE INDEX "creators_deals_idx" ON "creators" USING btree ("deal_count" DESC,"id");--> statement-breakpoint
CREATE INDEX "deals_from_idx" ON "deals" USING btree ("from_creator_id","status");--> statement-breakpoint
CREATE INDEX "deals_to_idx" ON "deals" USING btree ("to_creator_id","status");--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_idx" ON "idempotency_keys" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "outbox_pending_idx" ON "outbox_events" USING btree ("created_at") WHERE "outbox_events"."dispatched_at" IS NULL;--> statement-breakpoint
CREATE INDEX "referrals_referrer_idx" ON "referrals" USING btree ("referrer_id","created_at");--> statement-breakpoint
CREATE INDEX "referrals_created_idx" ON "referrals" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "reviews_deal_from_idx" ON "reviews" USING btree ("deal_id","from_creator_id");--> statement-breakpoint
CREATE INDEX "reviews_to_idx" ON "reviews" USING btree ("to_creator_id");--> statement-breakpoint
CREATE INDEX "usage_endpoints_day_idx" ON "usage_endpoints" USING btree ("day");--> statement-breakpoint
CREATE UNIQUE INDEX "vouches_pair_idx" ON "vouches" USING btree ("from_creator_id","to_creator_id");--> statement-breakpoint
CREATE INDEX "vouches_to_idx" ON "vouches" USING btree ("to_creator_id","created_at" DESC);