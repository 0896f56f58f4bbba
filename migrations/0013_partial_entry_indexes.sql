DROP INDEX `blacklist_username_idx`;--> statement-breakpoint
DROP INDEX `blacklist_creator_idx`;--> statement-breakpoint
CREATE INDEX `blacklist_username_idx` ON `blacklist_entries` (lower("username")) WHERE "blacklist_entries"."username" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `blacklist_creator_idx` ON `blacklist_entries` (`creator_handle`) WHERE "blacklist_entries"."creator_handle" IS NOT NULL;