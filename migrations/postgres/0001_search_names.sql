-- What the SQLite side keeps with triggers, kept here with PL/pgSQL triggers:
--  * creators_version moves with every write to creators, so a process holding creators in memory
--    (the directory index) can tell whether another instance touched them;
--  * search_names, the pool of "did you mean" suggestions: creator handles, public linked usernames
--    and usernames of active confirmed entries, counted by source, so a name that is also someone's
--    privately linked username is not suggested unless it is public in its own right (SPEC section
--    4, "Privacy of keyless answers"). pg_trgm's GIN index over the suggestible names stands in for
--    SQLite's FTS5 trigram table.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
INSERT INTO meta (key, value) VALUES ('creators_version', '0') ON CONFLICT (key) DO NOTHING;
--> statement-breakpoint
CREATE FUNCTION creators_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE meta SET value = (value::bigint + 1)::text WHERE key = 'creators_version';
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER creators_version AFTER INSERT OR UPDATE ON creators FOR EACH STATEMENT EXECUTE FUNCTION creators_version_bump();
--> statement-breakpoint
CREATE TABLE search_names (
	id bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
	name text NOT NULL UNIQUE,
	public_refs integer NOT NULL DEFAULT 0,
	entry_refs integer NOT NULL DEFAULT 0,
	private_refs integer NOT NULL DEFAULT 0,
	suggestible boolean GENERATED ALWAYS AS (public_refs > 0 OR (entry_refs > 0 AND private_refs = 0)) STORED
);
--> statement-breakpoint
CREATE INDEX search_names_trgm_idx ON search_names USING gin (name gin_trgm_ops) WHERE suggestible;
--> statement-breakpoint
CREATE FUNCTION search_names_count(p_name text, p_public integer, p_entry integer, p_private integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	IF p_name IS NULL THEN RETURN; END IF;
	INSERT INTO search_names AS s (name, public_refs, entry_refs, private_refs) VALUES (lower(p_name), p_public, p_entry, p_private)
	ON CONFLICT (name) DO UPDATE SET public_refs = s.public_refs + p_public, entry_refs = s.entry_refs + p_entry, private_refs = s.private_refs + p_private;
	DELETE FROM search_names WHERE name = lower(p_name) AND public_refs <= 0 AND entry_refs <= 0 AND private_refs <= 0;
END $$;
--> statement-breakpoint
CREATE FUNCTION search_names_from_creators() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM search_names_count(NEW.handle, 1, 0, 0);
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER search_names_creators AFTER INSERT ON creators FOR EACH ROW EXECUTE FUNCTION search_names_from_creators();
--> statement-breakpoint
CREATE FUNCTION search_names_from_connections() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP IN ('UPDATE', 'DELETE') THEN
		PERFORM search_names_count(OLD.provider_username, -(OLD.public::integer), 0, -((NOT OLD.public)::integer));
	END IF;
	IF TG_OP IN ('INSERT', 'UPDATE') THEN
		PERFORM search_names_count(NEW.provider_username, NEW.public::integer, 0, (NOT NEW.public)::integer);
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER search_names_connections AFTER INSERT OR DELETE OR UPDATE OF provider_username, public ON connections
FOR EACH ROW EXECUTE FUNCTION search_names_from_connections();
--> statement-breakpoint
CREATE FUNCTION search_names_from_entries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'UPDATE' AND OLD.status = 'active' AND NOT OLD.watchlist THEN
		PERFORM search_names_count(OLD.username, 0, -1, 0);
	END IF;
	IF NEW.status = 'active' AND NOT NEW.watchlist THEN
		PERFORM search_names_count(NEW.username, 0, 1, 0);
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER search_names_entries AFTER INSERT OR UPDATE OF status, watchlist, username ON blacklist_entries
FOR EACH ROW EXECUTE FUNCTION search_names_from_entries();
