CREATE TABLE `federation_exemptions` (
	`id` text PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`provider_user_id` text NOT NULL,
	`source` text,
	`reason` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `federation_exemptions_subject_idx` ON `federation_exemptions` (`provider`,`provider_user_id`);--> statement-breakpoint
CREATE TABLE `federation_items` (
	`source_id` text NOT NULL,
	`upstream_id` text NOT NULL,
	`entry` text NOT NULL,
	`case_id` text,
	`received_at` integer NOT NULL,
	PRIMARY KEY(`source_id`, `upstream_id`),
	FOREIGN KEY (`source_id`) REFERENCES `federation_sources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `federation_keys` (
	`kid` text PRIMARY KEY NOT NULL,
	`public_key` text NOT NULL,
	`private_key` text NOT NULL,
	`created_at` integer NOT NULL,
	`retired_at` integer,
	`endorsement_kid` text,
	`endorsement_sig` text
);
--> statement-breakpoint
CREATE TABLE `federation_source_keys` (
	`source_id` text NOT NULL,
	`kid` text NOT NULL,
	`public_key` text NOT NULL,
	`endorsed_by` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`source_id`, `kid`),
	FOREIGN KEY (`source_id`) REFERENCES `federation_sources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `federation_sources` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`url` text NOT NULL,
	`api_key` text NOT NULL,
	`instance_id` text NOT NULL,
	`policy` text NOT NULL,
	`max_severity` text,
	`verticals` text,
	`reason_codes` text,
	`interval_s` integer NOT NULL,
	`cursor` text,
	`last_synced_at` integer,
	`next_sync_at` integer NOT NULL,
	`last_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `federation_sources_name_unique` ON `federation_sources` (`name`);--> statement-breakpoint
ALTER TABLE `accounts` ADD `federation` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `blacklist_entries` ADD `source` text;--> statement-breakpoint
ALTER TABLE `blacklist_entries` ADD `upstream_id` text;--> statement-breakpoint
CREATE INDEX `blacklist_source_idx` ON `blacklist_entries` (`source`,`upstream_id`) WHERE "blacklist_entries"."source" IS NOT NULL;