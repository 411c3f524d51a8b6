-- Retention cycle: dedup entries older than their queue's dedupWindowSeconds (semantics.md 3.3, 10).
-- $1 batch size (RETENTION_BATCH_SIZE).
SELECT queen.retention_purge_dedup($1::integer) AS count
