CREATE TABLE "course_completions" (
	"creator_id" text NOT NULL,
	"slug" text NOT NULL,
	"best_score" integer NOT NULL,
	"attempts" integer NOT NULL,
	"passed_at" bigint,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "course_completions_creator_id_slug_pk" PRIMARY KEY("creator_id","slug")
);
--> statement-breakpoint
CREATE TABLE "login_links" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"creator_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"creator_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tripwire_preferences" (
	"owner_id" text PRIMARY KEY NOT NULL,
	"discord_webhook_url" text,
	"email" text,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tripwires" (
	"id" text PRIMARY KEY NOT NULL,
	"owner_id" text NOT NULL,
	"target" text NOT NULL,
	"watched" text NOT NULL,
	"triggers" text NOT NULL,
	"trips" integer DEFAULT 0 NOT NULL,
	"last_tripped_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "course_completions" ADD CONSTRAINT "course_completions_creator_id_creators_id_fk" FOREIGN KEY ("creator_id") REFERENCES "public"."creators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "login_links" ADD CONSTRAINT "login_links_creator_id_creators_id_fk" FOREIGN KEY ("creator_id") REFERENCES "public"."creators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_creator_id_creators_id_fk" FOREIGN KEY ("creator_id") REFERENCES "public"."creators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tripwire_preferences" ADD CONSTRAINT "tripwire_preferences_owner_id_creators_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."creators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tripwires" ADD CONSTRAINT "tripwires_owner_id_creators_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."creators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "login_links_expires_idx" ON "login_links" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "sessions_expires_idx" ON "sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "sessions_creator_idx" ON "sessions" USING btree ("creator_id");--> statement-breakpoint
CREATE INDEX "tripwires_owner_idx" ON "tripwires" USING btree ("owner_id","created_at");--> statement-breakpoint
CREATE INDEX "tripwires_watched_idx" ON "tripwires" USING btree ("target","watched");