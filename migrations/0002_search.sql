-- Search indexes that drizzle-kit cannot describe: SQLite FTS5 with the trigram tokenizer.
--
-- search_names holds every distinct searchable name once (creator handles, public connection
-- usernames, usernames on active blacklist entries), reference-counted by triggers, and
-- search_names_fts indexes its trigrams for "did you mean" suggestions.
CREATE TABLE `search_names` (
	`id` integer PRIMARY KEY,
	`name` text NOT NULL UNIQUE,
	`refs` integer NOT NULL
);
--> statement-breakpoint
CREATE VIRTUAL TABLE `search_names_fts` USING fts5(name, content='search_names', content_rowid='id', tokenize='trigram', detail='none');
--> statement-breakpoint
CREATE TRIGGER `search_names_ai` AFTER INSERT ON `search_names` BEGIN
	INSERT INTO search_names_fts(rowid, name) VALUES (new.id, new.name);
END;
--> statement-breakpoint
CREATE TRIGGER `search_names_ad` AFTER DELETE ON `search_names` BEGIN
	INSERT INTO search_names_fts(search_names_fts, rowid, name) VALUES ('delete', old.id, old.name);
END;
--> statement-breakpoint
CREATE TRIGGER `creators_name_ai` AFTER INSERT ON `creators` BEGIN
	INSERT INTO search_names(name, refs) VALUES (new.handle, 1) ON CONFLICT(name) DO UPDATE SET refs = refs + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `connections_name_ai` AFTER INSERT ON `connections`
WHEN new.public AND new.provider_username IS NOT NULL BEGIN
	INSERT INTO search_names(name, refs) VALUES (lower(new.provider_username), 1) ON CONFLICT(name) DO UPDATE SET refs = refs + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `connections_name_au_old` AFTER UPDATE OF provider_username, public ON `connections`
WHEN old.public AND old.provider_username IS NOT NULL BEGIN
	UPDATE search_names SET refs = refs - 1 WHERE name = lower(old.provider_username);
	DELETE FROM search_names WHERE name = lower(old.provider_username) AND refs <= 0;
END;
--> statement-breakpoint
CREATE TRIGGER `connections_name_au_new` AFTER UPDATE OF provider_username, public ON `connections`
WHEN new.public AND new.provider_username IS NOT NULL BEGIN
	INSERT INTO search_names(name, refs) VALUES (lower(new.provider_username), 1) ON CONFLICT(name) DO UPDATE SET refs = refs + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `entries_name_ai` AFTER INSERT ON `blacklist_entries`
WHEN new.status = 'active' AND new.username IS NOT NULL BEGIN
	INSERT INTO search_names(name, refs) VALUES (lower(new.username), 1) ON CONFLICT(name) DO UPDATE SET refs = refs + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `entries_name_au` AFTER UPDATE OF status ON `blacklist_entries`
WHEN old.status = 'active' AND new.status <> 'active' AND old.username IS NOT NULL BEGIN
	UPDATE search_names SET refs = refs - 1 WHERE name = lower(old.username);
	DELETE FROM search_names WHERE name = lower(old.username) AND refs <= 0;
END;
--> statement-breakpoint
INSERT INTO search_names(name, refs)
SELECT lower(username), count(*) FROM blacklist_entries WHERE status = 'active' AND username IS NOT NULL GROUP BY lower(username);
--> statement-breakpoint
-- The directory's fuzzy `q`: trigrams of each creator's haystack (creators.search_text).
CREATE VIRTUAL TABLE `creator_search` USING fts5(search_text, content='creators', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `creators_search_ai` AFTER INSERT ON `creators` BEGIN
	INSERT INTO creator_search(rowid, search_text) VALUES (new.rowid, new.search_text);
END;
--> statement-breakpoint
CREATE TRIGGER `creators_search_au` AFTER UPDATE OF search_text ON `creators` BEGIN
	INSERT INTO creator_search(creator_search, rowid, search_text) VALUES ('delete', old.rowid, old.search_text);
	INSERT INTO creator_search(rowid, search_text) VALUES (new.rowid, new.search_text);
END;
