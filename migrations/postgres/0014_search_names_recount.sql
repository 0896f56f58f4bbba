-- The search_names triggers stand aside while a bulk write (the import of a file about as large as
-- what is stored) sets trustlist.names to 'recount' for its transaction: it recounts the table from
-- creators, connections and entries once at its end (db/search-names.postgres.ts) instead of one
-- upsert per row (12 ms of the 27 ms per 1k entries a COPY cost, bench data set, Nov 2026).
CREATE OR REPLACE FUNCTION search_names_from_creators() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF current_setting('trustlist.names', true) = 'recount' THEN RETURN NULL; END IF;
	PERFORM search_names_count(NEW.handle, 1, 0, 0);
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION search_names_from_connections() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF current_setting('trustlist.names', true) = 'recount' THEN RETURN NULL; END IF;
	IF TG_OP IN ('UPDATE', 'DELETE') THEN
		PERFORM search_names_count(OLD.provider_username, -(OLD.public::integer), 0, -((NOT OLD.public)::integer));
	END IF;
	IF TG_OP IN ('INSERT', 'UPDATE') THEN
		PERFORM search_names_count(NEW.provider_username, NEW.public::integer, 0, (NOT NEW.public)::integer);
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION search_names_from_entries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF current_setting('trustlist.names', true) = 'recount' THEN RETURN NULL; END IF;
	IF TG_OP = 'UPDATE' AND OLD.status = 'active' AND NOT OLD.watchlist THEN
		PERFORM search_names_count(OLD.username, 0, -1, 0);
	END IF;
	IF NEW.status = 'active' AND NOT NEW.watchlist THEN
		PERFORM search_names_count(NEW.username, 0, 1, 0);
	END IF;
	RETURN NULL;
END $$;
