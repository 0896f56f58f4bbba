-- A counter that moves with every write to creators, so a process holding creators in memory (the
-- directory index) can tell, when another process has committed, whether creators were touched.
INSERT OR IGNORE INTO meta (key, value) VALUES ('creators_version', '0');
--> statement-breakpoint
CREATE TRIGGER `creators_version_ai` AFTER INSERT ON `creators` BEGIN
	UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'creators_version';
END;
--> statement-breakpoint
CREATE TRIGGER `creators_version_au` AFTER UPDATE ON `creators` BEGIN
	UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'creators_version';
END;
