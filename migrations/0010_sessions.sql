CREATE TABLE `course_completions` (
	`creator_id` text NOT NULL,
	`slug` text NOT NULL,
	`best_score` integer NOT NULL,
	`attempts` integer NOT NULL,
	`passed_at` integer,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`creator_id`, `slug`),
	FOREIGN KEY (`creator_id`) REFERENCES `creators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `login_links` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`creator_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`creator_id`) REFERENCES `creators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `login_links_expires_idx` ON `login_links` (`expires_at`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`creator_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`creator_id`) REFERENCES `creators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `sessions_expires_idx` ON `sessions` (`expires_at`);--> statement-breakpoint
CREATE INDEX `sessions_creator_idx` ON `sessions` (`creator_id`);--> statement-breakpoint
CREATE TABLE `tripwire_preferences` (
	`owner_id` text PRIMARY KEY NOT NULL,
	`discord_webhook_url` text,
	`email` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`owner_id`) REFERENCES `creators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `tripwires` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`target` text NOT NULL,
	`watched` text NOT NULL,
	`triggers` text NOT NULL,
	`trips` integer DEFAULT 0 NOT NULL,
	`last_tripped_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`owner_id`) REFERENCES `creators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tripwires_owner_idx` ON `tripwires` (`owner_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `tripwires_watched_idx` ON `tripwires` (`target`,`watched`);