-- creators_version moves once per statement that writes creators. A bulk write (the import) sets
-- trustlist.bulk for its transaction and moves the counter once at the end instead: updating the
-- one meta row 200,000 times in one transaction grows its chain of row versions, and each update
-- walks the whole chain (an import of 100k creators did not finish in 20 minutes).
CREATE OR REPLACE FUNCTION creators_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF current_setting('trustlist.bulk', true) = 'on' THEN
		RETURN NULL;
	END IF;
	UPDATE meta SET value = (value::bigint + 1)::text WHERE key = 'creators_version';
	RETURN NULL;
END $$;
