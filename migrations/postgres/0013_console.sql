CREATE TABLE "account_members" (
	"account_id" text NOT NULL,
	"creator_id" text NOT NULL,
	"role" text NOT NULL,
	"added_at" bigint NOT NULL,
	CONSTRAINT "account_members_account_id_creator_id_pk" PRIMARY KEY("account_id","creator_id")
);
--> statement-breakpoint
ALTER TABLE "account_members" ADD CONSTRAINT "account_members_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_members" ADD CONSTRAINT "account_members_creator_id_creators_id_fk" FOREIGN KEY ("creator_id") REFERENCES "public"."creators"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "account_members_creator_idx" ON "account_members" USING btree ("creator_id");