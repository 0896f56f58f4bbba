DROP INDEX `outbox_pending_idx`;--> statement-breakpoint
CREATE INDEX `outbox_pending_idx` ON `outbox_events` (`created_at`,`id`) WHERE "outbox_events"."dispatched_at" IS NULL;