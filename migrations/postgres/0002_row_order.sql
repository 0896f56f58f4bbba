ALTER TABLE "creators" ADD COLUMN "seq" bigint NOT NULL GENERATED ALWAYS AS IDENTITY (sequence name "creators_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1);--> statement-breakpoint
ALTER TABLE "referrals" ADD COLUMN "seq" bigint NOT NULL GENERATED ALWAYS AS IDENTITY (sequence name "referrals_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1);--> statement-breakpoint
CREATE INDEX "creators_handle_prefix_idx" ON "creators" USING btree ("handle" text_pattern_ops);--> statement-breakpoint
ALTER TABLE "creators" ADD CONSTRAINT "creators_seq_unique" UNIQUE("seq");--> statement-breakpoint
ALTER TABLE "referrals" ADD CONSTRAINT "referrals_seq_unique" UNIQUE("seq");