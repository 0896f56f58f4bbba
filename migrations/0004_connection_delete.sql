-- Unlinking a platform account drops its username from the suggestion names it fed.
CREATE TRIGGER `connections_name_ad` AFTER DELETE ON `connections`
WHEN old.public AND old.provider_username IS NOT NULL BEGIN
	UPDATE search_names SET refs = refs - 1 WHERE name = lower(old.provider_username);
	DELETE FROM search_names WHERE name = lower(old.provider_username) AND refs <= 0;
END;
