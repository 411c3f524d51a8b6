-- The per-cycle election of a cluster-wide housekeeping job (retention, eviction) (docs/conventions.md, "Background
-- jobs"): a transaction-level advisory try-lock, released at commit; false when another session holds it (that
-- replica runs the cycle). $1 first key ("QUEN" = 1364542798), $2 the job's key (see
-- src/broker/jobs/housekeeping-lock.ts).
SELECT pg_try_advisory_xact_lock($1::integer, $2::integer) AS acquired
