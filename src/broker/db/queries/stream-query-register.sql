-- Registers a new stream query; no row when the tenant already has one with that name.
-- $1 tenant, $2 name, $3 source queue, $4 sink queue (or null), $5 config hash.
INSERT INTO queen.stream_queries (tenant, name, source_queue, sink_queue, config_hash)
VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (tenant, name) DO NOTHING
RETURNING id
