-- GET /api/v1/status messages: status counters of the tenant's queues from the stats snapshot, with the
-- snapshot's time (NULL before the first refresh).
-- $1 tenant, $2 queue or NULL, $3 namespace or NULL, $4 task or NULL.
SELECT coalesce(sum(s.total), 0)::bigint AS total, coalesce(sum(s.pending), 0)::bigint AS pending,
       coalesce(sum(s.processing), 0)::bigint AS processing, coalesce(sum(s.completed), 0)::bigint AS completed,
       coalesce(sum(s.failed), 0)::bigint AS failed, coalesce(sum(s.dead_letter), 0)::bigint AS dead_letter,
       (SELECT max(sy.refreshed_at) FROM queen.stats_snapshot sy WHERE sy.level = 'system' AND sy.tenant = $1)
         AS refreshed_at
FROM queen.queues q
JOIN queen.stats_snapshot s ON s.level = 'queue' AND s.tenant = q.tenant AND s.scope = q.id::text
WHERE q.tenant = $1
  AND ($2::text IS NULL OR q.name = $2)
  AND ($3::text IS NULL OR q.namespace = $3)
  AND ($4::text IS NULL OR q.task = $4)
