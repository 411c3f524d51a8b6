-- Retention cycle: per-minute metrics and retention history older than METRICS_RETENTION_DAYS.
-- $1 days, $2 batch size per table (RETENTION_BATCH_SIZE).
SELECT queen.retention_purge_history($1::integer, $2::integer) AS count
