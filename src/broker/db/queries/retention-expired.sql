-- One batch of expired retention (docs/semantics.md, "Retention, eviction and cleanup"): messages older than
-- retentionSeconds, consumed or not, outside live leases. Rows per queue, then a last row (queue_id NULL) with where
-- the next batch resumes. $1 batch size (RETENTION_BATCH_SIZE), $2 partition id to resume from or NULL.
SELECT r.queue_id, r.tenant, r.queue_name, r.deleted, r.dead_lettered, r.resume_from
FROM queen.maintenance_delete('retention', $1::integer, $2::uuid) r
