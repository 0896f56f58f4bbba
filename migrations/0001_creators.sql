CREATE TABLE `connections` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`creator_id` text NOT NULL,
	`provider` text NOT NULL,
	`provider_user_id` text NOT NULL,
	`provider_username` text,
	`provider_url` text,
	`verified_at` integer,
	`public` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`creator_id`) REFERENCES `creators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `connections_account_idx` ON `connections` (`provider`,`provider_user_id`);--> statement-breakpoint
CREATE INDEX `connections_creator_idx` ON `connections` (`creator_id`);--> statement-breakpoint
CREATE INDEX `connections_username_idx` ON `connections` (lower("provider_username"));--> statement-breakpoint
CREATE TABLE `creators` (
	`id` text PRIMARY KEY NOT NULL,
	`handle` text NOT NULL,
	`display_name` text,
	`verification_level` integer DEFAULT 0 NOT NULL,
	`karma` integer DEFAULT 0 NOT NULL,
	`joined_at` integer NOT NULL,
	`avatar_r2_key` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`trust_score` integer DEFAULT 100 NOT NULL,
	`trust_band` text DEFAULT 'average' NOT NULL,
	`blacklisted` integer DEFAULT false NOT NULL,
	`trust_computed_at` integer NOT NULL,
	`linked_accounts` integer DEFAULT 0 NOT NULL,
	`verified_connections` integer DEFAULT 0 NOT NULL,
	`vouch_count` integer DEFAULT 0 NOT NULL,
	`deal_count` integer DEFAULT 0 NOT NULL,
	`review_count` integer DEFAULT 0 NOT NULL,
	`review_sum` integer DEFAULT 0 NOT NULL,
	`courses_passed` integer DEFAULT 0 NOT NULL,
	`search_text` text NOT NULL,
	`platforms` text DEFAULT '' NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `creators_handle_unique` ON `creators` (`handle`);--> statement-breakpoint
CREATE INDEX `creators_newest_idx` ON `creators` ("created_at" DESC,`id`);--> statement-breakpoint
CREATE INDEX `creators_trust_idx` ON `creators` ("trust_score" DESC,`id`);--> statement-breakpoint
CREATE INDEX `creators_vouches_idx` ON `creators` ("vouch_count" DESC,`id`);--> statement-breakpoint
CREATE INDEX `creators_deals_idx` ON `creators` ("deal_count" DESC,`id`);--> statement-breakpoint
CREATE TABLE `deals` (
	`id` text PRIMARY KEY NOT NULL,
	`from_creator_id` text NOT NULL,
	`to_creator_id` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`from_creator_id`) REFERENCES `creators`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`to_creator_id`) REFERENCES `creators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `deals_from_idx` ON `deals` (`from_creator_id`,`status`);--> statement-breakpoint
CREATE INDEX `deals_to_idx` ON `deals` (`to_creator_id`,`status`);--> statement-breakpoint
CREATE TABLE `referrals` (
	`referred_id` text PRIMARY KEY NOT NULL,
	`referrer_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`referred_id`) REFERENCES `creators`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`referrer_id`) REFERENCES `creators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `referrals_referrer_idx` ON `referrals` (`referrer_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `referrals_created_idx` ON `referrals` (`created_at`);--> statement-breakpoint
CREATE TABLE `reviews` (
	`id` text PRIMARY KEY NOT NULL,
	`deal_id` text NOT NULL,
	`from_creator_id` text NOT NULL,
	`to_creator_id` text NOT NULL,
	`rating` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`deal_id`) REFERENCES `deals`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`from_creator_id`) REFERENCES `creators`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`to_creator_id`) REFERENCES `creators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reviews_deal_from_idx` ON `reviews` (`deal_id`,`from_creator_id`);--> statement-breakpoint
CREATE INDEX `reviews_to_idx` ON `reviews` (`to_creator_id`);--> statement-breakpoint
CREATE TABLE `servers` (
	`platform` text NOT NULL,
	`server_id` text NOT NULL,
	`name` text,
	`registered_by` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`platform`, `server_id`)
);
--> statement-breakpoint
CREATE TABLE `trust_snapshots` (
	`creator_id` text NOT NULL,
	`day` text NOT NULL,
	`score` integer NOT NULL,
	PRIMARY KEY(`creator_id`, `day`),
	FOREIGN KEY (`creator_id`) REFERENCES `creators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `vouches` (
	`id` text PRIMARY KEY NOT NULL,
	`from_creator_id` text NOT NULL,
	`to_creator_id` text NOT NULL,
	`message` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`from_creator_id`) REFERENCES `creators`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`to_creator_id`) REFERENCES `creators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `vouches_pair_idx` ON `vouches` (`from_creator_id`,`to_creator_id`);--> statement-breakpoint
CREATE INDEX `vouches_to_idx` ON `vouches` (`to_creator_id`,"created_at" DESC);