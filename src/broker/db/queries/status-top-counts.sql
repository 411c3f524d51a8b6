-- GET /api/v1/status/top counts: the tenant's queue and partition counts from the stats snapshot's system
-- row, and the snapshot's time (no row before the first refresh).
-- $1 tenant.
SELECT s.queues, s.partitions, s.refreshed_at
FROM queen.stats_snapshot s
WHERE s.level = 'system' AND s.tenant = $1 AND s.scope = ''
