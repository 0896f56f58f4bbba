CREATE TABLE "federation_exemptions" (
	"id" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"provider_user_id" text NOT NULL,
	"source" text,
	"reason" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "federation_items" (
	"source_id" text NOT NULL,
	"upstream_id" text NOT NULL,
	"entry" text NOT NULL,
	"case_id" text,
	"received_at" bigint NOT NULL,
	CONSTRAINT "federation_items_source_id_upstream_id_pk" PRIMARY KEY("source_id","upstream_id")
);
--> statement-breakpoint
CREATE TABLE "federation_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"public_key" text NOT NULL,
	"private_key" text NOT NULL,
	"created_at" bigint NOT NULL,
	"retired_at" bigint,
	"endorsement_kid" text,
	"endorsement_sig" text
);
--> statement-breakpoint
CREATE TABLE "federation_source_keys" (
	"source_id" text NOT NULL,
	"kid" text NOT NULL,
	"public_key" text NOT NULL,
	"endorsed_by" text,
	"created_at" bigint NOT NULL,
	CONSTRAINT "federation_source_keys_source_id_kid_pk" PRIMARY KEY("source_id","kid")
);
--> statement-breakpoint
CREATE TABLE "federation_sources" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"url" text NOT NULL,
	"api_key" text NOT NULL,
	"instance_id" text NOT NULL,
	"policy" text NOT NULL,
	"max_severity" text,
	"verticals" text,
	"reason_codes" text,
	"interval_s" integer NOT NULL,
	"cursor" text,
	"last_synced_at" bigint,
	"next_sync_at" bigint NOT NULL,
	"last_error" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "federation_sources_name_unique" UNIQUE("name")
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "federation" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "blacklist_entries" ADD COLUMN "source" text;--> statement-breakpoint
ALTER TABLE "blacklist_entries" ADD COLUMN "upstream_id" text;--> statement-breakpoint
ALTER TABLE "federation_items" ADD CONSTRAINT "federation_items_source_id_federation_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."federation_sources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "federation_source_keys" ADD CONSTRAINT "federation_source_keys_source_id_federation_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."federation_sources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "federation_exemptions_subject_idx" ON "federation_exemptions" USING btree ("provider","provider_user_id");--> statement-breakpoint
CREATE INDEX "blacklist_source_idx" ON "blacklist_entries" USING btree ("source","upstream_id") WHERE "blacklist_entries"."source" IS NOT NULL;