-- State rows of one (query, partition), sorted by key (code-point order), with updated_at in PostgreSQL's
-- JSON form of a UTC timestamp plus its offset (docs/http-api.md, "Timestamps"), whatever the session's TimeZone.
-- $1 query id, $2 partition id, $3 keys (text[]; null = all), $4 key prefix (null = any),
-- $5 ripe at or before (epoch ms; null = no filter): keeps rows whose value.windowEnd is a number <= it.
SELECT s.key, s.value, (to_json(s.updated_at AT TIME ZONE 'UTC') #>> '{}') || '+00:00' AS updated_at
FROM queen.stream_state s
WHERE s.query_id = $1 AND s.partition_id = $2
  AND ($3::text[] IS NULL OR s.key = ANY ($3::text[]))
  AND ($4::text IS NULL OR starts_with(s.key, $4::text))
  AND ($5::numeric IS NULL OR
       CASE WHEN jsonb_typeof(s.value -> 'windowEnd') = 'number'
            THEN (s.value ->> 'windowEnd')::numeric <= $5::numeric ELSE false END)
ORDER BY s.key COLLATE "C"
