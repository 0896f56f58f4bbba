-- The directory's `q` is answered from an index the server keeps in memory (see
-- src/modules/public/directory-index.ts); the FTS5 table over creators' haystacks is no longer read.
DROP TRIGGER `creators_search_ai`;
--> statement-breakpoint
DROP TRIGGER `creators_search_au`;
--> statement-breakpoint
DROP TABLE `creator_search`;
