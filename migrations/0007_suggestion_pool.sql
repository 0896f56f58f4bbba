-- Suggestions draw only on names a keyless answer may show (SPEC section 4, "Privacy of keyless
-- answers"): creator handles, public linked usernames and usernames of active confirmed (not
-- watchlist) entries. Until now every active entry's username fed the pool, watchlist reports
-- included, so near-miss searches listed unconfirmed reports' names.
--
-- search_names now counts each name's sources apart, and names a private link gives too: an
-- entry's username that is also someone's privately linked username is not suggested (that would
-- show the private account), unless the name is public in its own right (a handle or a public
-- link). search_names_fts indexes the view search_names_pool, the suggestible names only; the
-- triggers below keep it in step as counts move, and 'rebuild' (after a bulk import) reads the view.
DROP TRIGGER `creators_name_ai`;
--> statement-breakpoint
DROP TRIGGER `connections_name_ai`;
--> statement-breakpoint
DROP TRIGGER `connections_name_au_old`;
--> statement-breakpoint
DROP TRIGGER `connections_name_au_new`;
--> statement-breakpoint
DROP TRIGGER `connections_name_ad`;
--> statement-breakpoint
DROP TRIGGER `entries_name_ai`;
--> statement-breakpoint
DROP TRIGGER `entries_name_au`;
--> statement-breakpoint
DROP TABLE `search_names_fts`;
--> statement-breakpoint
DROP TABLE `search_names`;
--> statement-breakpoint
CREATE TABLE `search_names` (
	`id` integer PRIMARY KEY,
	`name` text NOT NULL UNIQUE,
	-- creator handles and public linked usernames
	`public_refs` integer NOT NULL DEFAULT 0,
	-- active confirmed entries
	`entry_refs` integer NOT NULL DEFAULT 0,
	-- private linked usernames
	`private_refs` integer NOT NULL DEFAULT 0,
	`suggestible` integer GENERATED ALWAYS AS (`public_refs` > 0 OR (`entry_refs` > 0 AND `private_refs` = 0)) VIRTUAL
);
--> statement-breakpoint
INSERT INTO search_names(name, public_refs, entry_refs, private_refs)
SELECT name, sum(pub), sum(ent), sum(priv) FROM (
	SELECT handle AS name, 1 AS pub, 0 AS ent, 0 AS priv FROM creators
	UNION ALL
	SELECT lower(provider_username), public <> 0, 0, public = 0 FROM connections WHERE provider_username IS NOT NULL
	UNION ALL
	SELECT lower(username), 0, 1, 0 FROM blacklist_entries WHERE status = 'active' AND watchlist = 0 AND username IS NOT NULL
) GROUP BY name;
--> statement-breakpoint
CREATE VIEW `search_names_pool` AS SELECT id, name FROM search_names WHERE suggestible;
--> statement-breakpoint
CREATE VIRTUAL TABLE `search_names_fts` USING fts5(name, content='search_names_pool', content_rowid='id', tokenize='trigram', detail='none');
--> statement-breakpoint
INSERT INTO search_names_fts(search_names_fts) VALUES ('rebuild');
--> statement-breakpoint
CREATE TRIGGER `search_names_ai` AFTER INSERT ON `search_names` WHEN new.suggestible BEGIN
	INSERT INTO search_names_fts(rowid, name) VALUES (new.id, new.name);
END;
--> statement-breakpoint
CREATE TRIGGER `search_names_ad` AFTER DELETE ON `search_names` WHEN old.suggestible BEGIN
	INSERT INTO search_names_fts(search_names_fts, rowid, name) VALUES ('delete', old.id, old.name);
END;
--> statement-breakpoint
CREATE TRIGGER `search_names_au_shown` AFTER UPDATE ON `search_names` WHEN new.suggestible AND NOT old.suggestible BEGIN
	INSERT INTO search_names_fts(rowid, name) VALUES (new.id, new.name);
END;
--> statement-breakpoint
CREATE TRIGGER `search_names_au_hidden` AFTER UPDATE ON `search_names` WHEN old.suggestible AND NOT new.suggestible BEGIN
	INSERT INTO search_names_fts(search_names_fts, rowid, name) VALUES ('delete', old.id, old.name);
END;
--> statement-breakpoint
CREATE TRIGGER `creators_name_ai` AFTER INSERT ON `creators` BEGIN
	INSERT INTO search_names(name, public_refs) VALUES (new.handle, 1) ON CONFLICT(name) DO UPDATE SET public_refs = public_refs + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `connections_name_ai` AFTER INSERT ON `connections` WHEN new.provider_username IS NOT NULL BEGIN
	INSERT INTO search_names(name, public_refs, private_refs) VALUES (lower(new.provider_username), new.public <> 0, new.public = 0)
	ON CONFLICT(name) DO UPDATE SET public_refs = public_refs + (new.public <> 0), private_refs = private_refs + (new.public = 0);
END;
--> statement-breakpoint
CREATE TRIGGER `connections_name_au_old` AFTER UPDATE OF provider_username, public ON `connections` WHEN old.provider_username IS NOT NULL BEGIN
	UPDATE search_names SET public_refs = public_refs - (old.public <> 0), private_refs = private_refs - (old.public = 0) WHERE name = lower(old.provider_username);
	DELETE FROM search_names WHERE name = lower(old.provider_username) AND public_refs <= 0 AND entry_refs <= 0 AND private_refs <= 0;
END;
--> statement-breakpoint
CREATE TRIGGER `connections_name_au_new` AFTER UPDATE OF provider_username, public ON `connections` WHEN new.provider_username IS NOT NULL BEGIN
	INSERT INTO search_names(name, public_refs, private_refs) VALUES (lower(new.provider_username), new.public <> 0, new.public = 0)
	ON CONFLICT(name) DO UPDATE SET public_refs = public_refs + (new.public <> 0), private_refs = private_refs + (new.public = 0);
END;
--> statement-breakpoint
CREATE TRIGGER `connections_name_ad` AFTER DELETE ON `connections` WHEN old.provider_username IS NOT NULL BEGIN
	UPDATE search_names SET public_refs = public_refs - (old.public <> 0), private_refs = private_refs - (old.public = 0) WHERE name = lower(old.provider_username);
	DELETE FROM search_names WHERE name = lower(old.provider_username) AND public_refs <= 0 AND entry_refs <= 0 AND private_refs <= 0;
END;
--> statement-breakpoint
CREATE TRIGGER `entries_name_ai` AFTER INSERT ON `blacklist_entries`
WHEN new.status = 'active' AND new.watchlist = 0 AND new.username IS NOT NULL BEGIN
	INSERT INTO search_names(name, entry_refs) VALUES (lower(new.username), 1) ON CONFLICT(name) DO UPDATE SET entry_refs = entry_refs + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `entries_name_au_old` AFTER UPDATE OF status, watchlist, username ON `blacklist_entries`
WHEN old.status = 'active' AND old.watchlist = 0 AND old.username IS NOT NULL BEGIN
	UPDATE search_names SET entry_refs = entry_refs - 1 WHERE name = lower(old.username);
	DELETE FROM search_names WHERE name = lower(old.username) AND public_refs <= 0 AND entry_refs <= 0 AND private_refs <= 0;
END;
--> statement-breakpoint
CREATE TRIGGER `entries_name_au_new` AFTER UPDATE OF status, watchlist, username ON `blacklist_entries`
WHEN new.status = 'active' AND new.watchlist = 0 AND new.username IS NOT NULL BEGIN
	INSERT INTO search_names(name, entry_refs) VALUES (lower(new.username), 1) ON CONFLICT(name) DO UPDATE SET entry_refs = entry_refs + 1;
END;
