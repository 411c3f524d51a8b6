-- Retention cycle: records of reclaimed leases older than a day.
-- $1 batch size (RETENTION_BATCH_SIZE).
SELECT queen.retention_purge_expired_leases($1::integer) AS count
