-- One batch of eviction (docs/semantics.md, "Retention, eviction and cleanup"): messages older than maxWaitTimeSeconds
-- that some known group (or no group at all) has not settled, outside live leases; dead-lettered first with
-- deadLetterQueue: true. Rows per queue, then a last row (queue_id NULL) with where the next batch resumes. $1 batch
-- size (EVICTION_BATCH_SIZE), $2 partition id to resume from or NULL.
SELECT r.queue_id, r.tenant, r.queue_name, r.deleted, r.dead_lettered, r.resume_from
FROM queen.maintenance_delete('eviction', $1::integer, $2::uuid) r
