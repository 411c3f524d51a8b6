-- GET /api/v1/resources/overview: the tenant's totals in one row: queue, partition, namespace and task
-- counts, status counters summed over partitions (docs/semantics.md, "Status counters"), and lag per (partition, group)
-- aggregated: time lag in seconds, offset lag in messages (docs/semantics.md, "Lag"); a pair with nothing unsettled
-- counts 0. $1 tenant.
WITH tq AS (
  SELECT q.id, q.namespace, q.task FROM queen.queues q WHERE q.tenant = $1
), counters AS (
  SELECT coalesce(sum(c.total), 0)::bigint AS total, coalesce(sum(c.pending), 0)::bigint AS pending,
         coalesce(sum(c.processing), 0)::bigint AS processing, coalesce(sum(c.completed), 0)::bigint AS completed,
         coalesce(sum(c.failed), 0)::bigint AS failed, coalesce(sum(c.dead_letter), 0)::bigint AS dead_letter,
         count(*)::integer AS partitions
  FROM tq JOIN queen.partitions p ON p.queue_id = tq.id
  CROSS JOIN LATERAL queen.partition_counters(p.id) c
), lag AS (
  SELECT coalesce(avg(l.time_lag_seconds), 0)::float8 AS time_avg,
         coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY l.time_lag_seconds), 0)::float8 AS time_median,
         coalesce(min(l.time_lag_seconds), 0)::float8 AS time_min,
         coalesce(max(l.time_lag_seconds), 0)::float8 AS time_max,
         coalesce(avg(l.offset_lag), 0)::float8 AS offset_avg,
         coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY l.offset_lag), 0)::float8 AS offset_median,
         coalesce(min(l.offset_lag), 0)::float8 AS offset_min,
         coalesce(max(l.offset_lag), 0)::float8 AS offset_max
  FROM queen.consumer_lag($1, NULL) l
)
SELECT (SELECT count(*) FROM tq)::integer AS queues,
       (SELECT count(DISTINCT tq.namespace) FROM tq WHERE tq.namespace <> '')::integer AS namespaces,
       (SELECT count(DISTINCT tq.task) FROM tq WHERE tq.task <> '')::integer AS tasks,
       counters.*, lag.*
FROM counters, lag
