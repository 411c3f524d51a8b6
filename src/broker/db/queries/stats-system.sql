-- The snapshot's totals over every tenant (the sizes log block, Prometheus); refreshed_at is NULL before the
-- first refresh. No parameters.
SELECT coalesce(sum(s.queues), 0)::integer AS queues, coalesce(sum(s.partitions), 0)::integer AS partitions,
       coalesce(sum(s.total), 0)::bigint AS total, coalesce(sum(s.pending), 0)::bigint AS pending,
       coalesce(sum(s.processing), 0)::bigint AS processing, coalesce(sum(s.completed), 0)::bigint AS completed,
       coalesce(sum(s.failed), 0)::bigint AS failed, coalesce(sum(s.dead_letter), 0)::bigint AS dead_letter,
       max(s.refreshed_at) AS refreshed_at
FROM queen.stats_snapshot s
WHERE s.level = 'system'
