-- One batch of completed retention (docs/semantics.md, "Retention, eviction and cleanup"): messages older than
-- completedRetentionSeconds that every known group settled, compared by position. Rows per queue, then a last row
-- (queue_id NULL) with where the next batch resumes. $1 batch size (RETENTION_BATCH_SIZE), $2 partition id to resume
-- from or NULL.
SELECT r.queue_id, r.tenant, r.queue_name, r.deleted, r.dead_lettered, r.resume_from
FROM queen.maintenance_delete('completed', $1::integer, $2::uuid) r
