-- Re-index a creator's directory haystack only when it changed: every score recomputation
-- rewrites the row, and most recomputations (a vouch, a deal) leave the haystack as it was.
DROP TRIGGER `creators_search_au`;
--> statement-breakpoint
CREATE TRIGGER `creators_search_au` AFTER UPDATE OF search_text ON `creators`
WHEN old.search_text IS NOT new.search_text BEGIN
	INSERT INTO creator_search(creator_search, rowid, search_text) VALUES ('delete', old.rowid, old.search_text);
	INSERT INTO creator_search(rowid, search_text) VALUES (new.rowid, new.search_text);
END;
