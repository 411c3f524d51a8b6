-- Retention cycle: dedup entries older than their queue's dedupWindowSeconds (docs/semantics.md, "Transaction ids and
-- deduplication" and "Retention, eviction and cleanup"). $1 batch size (RETENTION_BATCH_SIZE).
SELECT queen.retention_purge_dedup($1::integer) AS count
