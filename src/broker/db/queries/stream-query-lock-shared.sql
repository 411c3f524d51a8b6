-- A stream query of the tenant by id, locked FOR SHARE for the rest of a cycle's transaction, so a
-- concurrent reset (FOR UPDATE) waits for the cycle instead of racing its state writes.
-- $1 query id, $2 tenant.
SELECT id, name, source_queue, sink_queue FROM queen.stream_queries
WHERE id = $1 AND tenant = $2
FOR SHARE
