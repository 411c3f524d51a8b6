-- Deletes state rows of one (query, partition) by key.
-- $1 query id, $2 partition id, $3 keys (text[]).
DELETE FROM queen.stream_state
WHERE query_id = $1 AND partition_id = $2 AND key = ANY ($3::text[])
