-- Writes one replica's per-minute process rows (docs/operations.md, "Per-minute metrics in PostgreSQL"): requests add
-- up per minute, the event-loop lag is the worst sample of the minute (a stall must not be hidden by a later quiet
-- sample when METRICS_AGGREGATE_INTERVAL_S is under a minute), the other gauges are the latest sample. $1 server id, $2
-- hostname, $3 pid, $4 minute buckets (timestamptz[]), $5 requests per bucket (bigint[]), $6 CPU user %, $7 CPU system
-- %, $8 RSS bytes, $9 heap used bytes, $10 event-loop lag p99 ms, $11 pool total, $12 pool idle, $13 pool waiting, $14
-- parked pops.
INSERT INTO queen.metrics_server_minute AS m (bucket, server_id, hostname, pid, cpu_user_percent, cpu_system_percent,
  rss_bytes, heap_used_bytes, event_loop_lag_p99_ms, pool_total, pool_idle, pool_waiting, requests, parked_pops,
  written_at)
SELECT r.bucket, $1, $2, $3, $6, $7, $8, $9, $10, $11, $12, $13, r.requests, $14, now()
FROM unnest($4::timestamptz[], $5::bigint[]) AS r(bucket, requests)
ON CONFLICT (bucket, server_id) DO UPDATE SET
  hostname = EXCLUDED.hostname, pid = EXCLUDED.pid, cpu_user_percent = EXCLUDED.cpu_user_percent,
  cpu_system_percent = EXCLUDED.cpu_system_percent, rss_bytes = EXCLUDED.rss_bytes,
  heap_used_bytes = EXCLUDED.heap_used_bytes, event_loop_lag_p99_ms = greatest(m.event_loop_lag_p99_ms, EXCLUDED.event_loop_lag_p99_ms),
  pool_total = EXCLUDED.pool_total, pool_idle = EXCLUDED.pool_idle, pool_waiting = EXCLUDED.pool_waiting,
  requests = m.requests + EXCLUDED.requests, parked_pops = EXCLUDED.parked_pops, written_at = EXCLUDED.written_at
