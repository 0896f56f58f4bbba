CREATE TABLE `accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`tier` text NOT NULL,
	`daily_quota` integer,
	`status` text DEFAULT 'active' NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_name_unique` ON `accounts` (`name`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`name` text,
	`hash` text NOT NULL,
	`prefix` text NOT NULL,
	`scope` text NOT NULL,
	`rate_tier` text NOT NULL,
	`burst_rate` integer,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_idx` ON `api_keys` (`hash`);--> statement-breakpoint
CREATE INDEX `api_keys_account_idx` ON `api_keys` (`account_id`);--> statement-breakpoint
CREATE TABLE `blacklist_changes` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`type` text NOT NULL,
	`entry_id` text NOT NULL,
	`at` integer NOT NULL,
	FOREIGN KEY (`entry_id`) REFERENCES `blacklist_entries`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `blacklist_changes_entry_idx` ON `blacklist_changes` (`entry_id`);--> statement-breakpoint
CREATE TABLE `blacklist_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`provider_user_id` text NOT NULL,
	`username` text,
	`severity` text NOT NULL,
	`scope` text NOT NULL,
	`vertical` text NOT NULL,
	`reason_code` text NOT NULL,
	`summary` text,
	`issued_at` integer NOT NULL,
	`expires_at` integer,
	`appealable` integer NOT NULL,
	`high_risk` integer DEFAULT false NOT NULL,
	`watchlist` integer DEFAULT false NOT NULL,
	`creator_handle` text,
	`evidence` text,
	`reporter` text,
	`status` text DEFAULT 'active' NOT NULL,
	`overturned_at` integer,
	`overturn_reason` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `blacklist_subject_idx` ON `blacklist_entries` (`provider`,`provider_user_id`,`status`);--> statement-breakpoint
CREATE INDEX `blacklist_list_idx` ON `blacklist_entries` (`issued_at`,`id`) WHERE "blacklist_entries"."status" = 'active' AND "blacklist_entries"."watchlist" = 0;--> statement-breakpoint
CREATE INDEX `blacklist_expiry_idx` ON `blacklist_entries` (`expires_at`) WHERE "blacklist_entries"."status" = 'active' AND "blacklist_entries"."expires_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `blacklist_username_idx` ON `blacklist_entries` (lower("username"));--> statement-breakpoint
CREATE INDEX `blacklist_creator_idx` ON `blacklist_entries` (`creator_handle`);--> statement-breakpoint
CREATE TABLE `meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `outbox_events` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`payload` text NOT NULL,
	`created_at` integer NOT NULL,
	`dispatched_at` integer
);
--> statement-breakpoint
CREATE INDEX `outbox_pending_idx` ON `outbox_events` (`created_at`) WHERE "outbox_events"."dispatched_at" IS NULL;--> statement-breakpoint
CREATE TABLE `usage_daily` (
	`account_id` text NOT NULL,
	`day` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`account_id`, `day`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `usage_endpoints` (
	`key_id` text NOT NULL,
	`day` text NOT NULL,
	`endpoint` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`key_id`, `day`, `endpoint`),
	FOREIGN KEY (`key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `usage_endpoints_day_idx` ON `usage_endpoints` (`day`);