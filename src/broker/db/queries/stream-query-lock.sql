-- Locks a registered stream query for re-registration or reset.
-- $1 tenant, $2 name.
SELECT id, config_hash FROM queen.stream_queries
WHERE tenant = $1 AND name = $2
FOR UPDATE
