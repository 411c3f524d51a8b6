-- Writes state rows of one (query, partition), in key order so concurrent writers lock rows alike.
-- $1 query id, $2 partition id, $3 rows (jsonb array of {"k": key, "v": value}; keys distinct).
INSERT INTO queen.stream_state AS s (query_id, partition_id, key, value, updated_at)
SELECT $1, $2, r.k, coalesce(r.v, 'null'::jsonb), now()
FROM jsonb_to_recordset($3::jsonb) AS r(k text, v jsonb)
ORDER BY r.k COLLATE "C"
ON CONFLICT (query_id, partition_id, key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at
