-- The lease-reclaim cycle: counts failures for expired leases and dead-letters past retryLimit.
-- $1 maximum leases per run.
SELECT r.queue_id, q.tenant, q.name AS queue_name, p.name AS partition_name, r.consumer_group, r.failures, r.dead_lettered
FROM queen.reclaim_expired_leases($1) r
JOIN queen.queues q ON q.id = r.queue_id
JOIN queen.partitions p ON p.id = r.partition_id
