CREATE TABLE "appeals" (
	"id" text PRIMARY KEY NOT NULL,
	"entry_id" text NOT NULL,
	"status" text NOT NULL,
	"statement" text NOT NULL,
	"filed_by_kind" text NOT NULL,
	"filed_by" text NOT NULL,
	"relayed_by" text,
	"provider" text,
	"provider_user_id" text,
	"outcome" text,
	"note" text,
	"severity" text,
	"new_entry_id" text,
	"decided_by" text,
	"created_at" bigint NOT NULL,
	"decided_at" bigint
);
--> statement-breakpoint
CREATE TABLE "audit_events" (
	"seq" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "audit_events_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"id" text NOT NULL,
	"at" bigint NOT NULL,
	"actor_kind" text NOT NULL,
	"actor_id" text NOT NULL,
	"action" text NOT NULL,
	"entry_id" text,
	"case_id" text,
	"appeal_id" text,
	"subject" text,
	"details" text NOT NULL,
	CONSTRAINT "audit_events_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE TABLE "moderation_cases" (
	"id" text PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"subject_key" text NOT NULL,
	"provider" text,
	"provider_user_id" text,
	"username" text,
	"creator_handle" text,
	"assignee_id" text,
	"muted" boolean DEFAULT false NOT NULL,
	"outcome" text,
	"entry_id" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"closed_at" bigint
);
--> statement-breakpoint
CREATE TABLE "moderation_comments" (
	"id" text PRIMARY KEY NOT NULL,
	"case_id" text NOT NULL,
	"author_kind" text NOT NULL,
	"author_id" text NOT NULL,
	"body" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "moderation_evidence" (
	"id" text PRIMARY KEY NOT NULL,
	"report_id" text NOT NULL,
	"sha256" text NOT NULL,
	"bytes" bigint NOT NULL,
	"content_type" text NOT NULL,
	"data" "bytea" NOT NULL,
	"public" boolean DEFAULT false NOT NULL,
	"entry_id" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "moderation_mutes" (
	"reporter_id" text PRIMARY KEY NOT NULL,
	"muted_at" bigint NOT NULL,
	"muted_by" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "moderation_reports" (
	"id" text PRIMARY KEY NOT NULL,
	"case_id" text NOT NULL,
	"reason_code" text NOT NULL,
	"description" text NOT NULL,
	"evidence_urls" text NOT NULL,
	"reporter_kind" text NOT NULL,
	"reporter_id" text NOT NULL,
	"filed_by" text NOT NULL,
	"relayed_by" text,
	"status" text NOT NULL,
	"outcome" text,
	"created_at" bigint NOT NULL,
	"closed_at" bigint
);
--> statement-breakpoint
CREATE TABLE "staff" (
	"creator_id" text PRIMARY KEY NOT NULL,
	"role" text NOT NULL,
	"granted_at" bigint NOT NULL,
	"granted_by" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "blacklist_entries" ADD COLUMN "supersedes" text;--> statement-breakpoint
ALTER TABLE "appeals" ADD CONSTRAINT "appeals_entry_id_blacklist_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."blacklist_entries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "moderation_comments" ADD CONSTRAINT "moderation_comments_case_id_moderation_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."moderation_cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "moderation_evidence" ADD CONSTRAINT "moderation_evidence_report_id_moderation_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."moderation_reports"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "moderation_reports" ADD CONSTRAINT "moderation_reports_case_id_moderation_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."moderation_cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "staff" ADD CONSTRAINT "staff_creator_id_creators_id_fk" FOREIGN KEY ("creator_id") REFERENCES "public"."creators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "appeals_open_entry_idx" ON "appeals" USING btree ("entry_id") WHERE "appeals"."status" = 'open';--> statement-breakpoint
CREATE INDEX "appeals_entry_idx" ON "appeals" USING btree ("entry_id","created_at");--> statement-breakpoint
CREATE INDEX "appeals_filed_by_idx" ON "appeals" USING btree ("filed_by","created_at");--> statement-breakpoint
CREATE INDEX "appeals_queue_idx" ON "appeals" USING btree ("status","created_at","id");--> statement-breakpoint
CREATE INDEX "audit_entry_idx" ON "audit_events" USING btree ("entry_id","seq") WHERE "audit_events"."entry_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "audit_case_idx" ON "audit_events" USING btree ("case_id","seq") WHERE "audit_events"."case_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "audit_appeal_idx" ON "audit_events" USING btree ("appeal_id","seq") WHERE "audit_events"."appeal_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "audit_subject_idx" ON "audit_events" USING btree ("subject","seq") WHERE "audit_events"."subject" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "audit_actor_idx" ON "audit_events" USING btree ("actor_kind","actor_id","seq");--> statement-breakpoint
CREATE INDEX "audit_action_idx" ON "audit_events" USING btree ("action","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "moderation_cases_open_subject_idx" ON "moderation_cases" USING btree ("subject_key") WHERE "moderation_cases"."status" <> 'closed';--> statement-breakpoint
CREATE INDEX "moderation_cases_queue_idx" ON "moderation_cases" USING btree ("status","created_at","id");--> statement-breakpoint
CREATE INDEX "moderation_cases_assignee_idx" ON "moderation_cases" USING btree ("assignee_id","status","created_at") WHERE "moderation_cases"."assignee_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "moderation_cases_subject_idx" ON "moderation_cases" USING btree ("subject_key","created_at");--> statement-breakpoint
CREATE INDEX "moderation_comments_case_idx" ON "moderation_comments" USING btree ("case_id","created_at");--> statement-breakpoint
CREATE INDEX "moderation_evidence_report_idx" ON "moderation_evidence" USING btree ("report_id","created_at");--> statement-breakpoint
CREATE INDEX "moderation_evidence_entry_idx" ON "moderation_evidence" USING btree ("entry_id") WHERE "moderation_evidence"."entry_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "moderation_reports_case_idx" ON "moderation_reports" USING btree ("case_id","created_at");--> statement-breakpoint
CREATE INDEX "moderation_reports_reporter_idx" ON "moderation_reports" USING btree ("reporter_id","outcome");--> statement-breakpoint
CREATE INDEX "moderation_reports_filed_by_idx" ON "moderation_reports" USING btree ("filed_by","created_at");