-- GET /streams/v1/queries: the tenant's registered stream queries by name, each with its state rows (count,
-- source partitions, last write) and how its consumer group (`streams.<name>`, the SDKs' default) reads the
-- source queue: messages consumed, the last consumption, and the lag of the stats snapshot.
-- $1 tenant.
SELECT sq.id, sq.name, sq.source_queue, sq.sink_queue, sq.config_hash, sq.created_at, sq.updated_at,
       coalesce(st.keys, 0)::bigint AS state_keys, coalesce(st.partitions, 0)::integer AS state_partitions,
       st.updated_at AS state_updated_at,
       'streams.' || sq.name AS consumer_group,
       coalesce(c.consumed, 0)::bigint AS consumed, c.last_consumed_at,
       coalesce(lag.lag_messages, 0)::bigint AS lag_messages, coalesce(lag.lag_seconds, 0)::float8 AS lag_seconds
FROM queen.stream_queries sq
LEFT JOIN queen.queues q ON q.tenant = sq.tenant AND q.name = sq.source_queue
LEFT JOIN LATERAL (
  SELECT count(*) AS keys, count(DISTINCT s.partition_id) AS partitions, max(s.updated_at) AS updated_at
  FROM queen.stream_state s WHERE s.query_id = sq.id
) st ON true
LEFT JOIN LATERAL (
  SELECT sum(cs.total_consumed) AS consumed, max(cs.last_consumed_at) AS last_consumed_at
  FROM queen.consumers cs WHERE cs.queue_id = q.id AND cs.consumer_group = 'streams.' || sq.name
) c ON true
LEFT JOIN queen.stats_snapshot lag
  ON lag.level = 'consumer' AND lag.tenant = sq.tenant AND lag.scope = q.id::text || '/streams.' || sq.name
WHERE sq.tenant = $1
ORDER BY sq.name
