-- A stream query of the tenant by id (state reads).
-- $1 query id, $2 tenant.
SELECT id, name, source_queue, sink_queue FROM queen.stream_queries
WHERE id = $1 AND tenant = $2
