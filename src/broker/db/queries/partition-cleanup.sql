-- Retention cycle: deletes inactive partitions (no message, DLQ entry, dedup entry or lease; idle for
-- PARTITION_CLEANUP_DAYS), re-checked under each partition's row lock; the Default partition is kept.
-- $1 days, $2 batch size (RETENTION_BATCH_SIZE).
SELECT r.queue_id, r.tenant, r.queue_name, r.deleted
FROM queen.retention_cleanup_partitions($1::integer, $2::integer) r
