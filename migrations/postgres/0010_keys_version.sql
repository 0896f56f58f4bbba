-- keys_version moves with every statement that updates or deletes API keys or accounts (a revoke,
-- a rotation, a suspension, a change of plan or quota), in the writer's own transaction, whoever
-- the writer is (an instance, the CLI, an operator's psql). An instance reads it before a keyed
-- request trusts its key cache, so another instance's revoke applies from the next request
-- however late its notification arrives. Inserts leave it alone: a new key or account is not in
-- anyone's cache yet.
INSERT INTO meta (key, value) VALUES ('keys_version', '0') ON CONFLICT (key) DO NOTHING;
--> statement-breakpoint
CREATE FUNCTION keys_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE meta SET value = (value::bigint + 1)::text WHERE key = 'keys_version';
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER keys_version AFTER UPDATE OR DELETE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION keys_version_bump();
--> statement-breakpoint
CREATE TRIGGER keys_version AFTER UPDATE OR DELETE ON accounts FOR EACH STATEMENT EXECUTE FUNCTION keys_version_bump();
