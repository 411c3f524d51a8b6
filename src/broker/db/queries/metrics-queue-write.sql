-- Adds one replica's per-minute queue counters (docs/operations.md, "Per-minute metrics in PostgreSQL"); a second write
-- in the same minute adds to the first, the lag average weighted by pops. One element per (minute, tenant, queue),
-- never repeated. $1 server id, $2 minute buckets (timestamptz[]), $3 tenants, $4 queue names, $5 pushes, $6 pops, $7
-- acks, $8 failures, $9 dead-letters, $10 pop lag averages in ms (float8[]), $11 pop lag maxima in ms, $12 parked pops.
INSERT INTO queen.metrics_queue_minute AS m (bucket, server_id, tenant, queue_name, push_count, pop_count, ack_count,
  failed_count, dlq_count, pop_lag_avg_ms, pop_lag_max_ms, parked_pops)
SELECT r.bucket, $1, r.tenant, r.queue_name, r.push, r.pop, r.ack, r.failed, r.dlq, r.lag_avg, r.lag_max, r.parked
FROM unnest($2::timestamptz[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[],
            $9::bigint[], $10::float8[], $11::bigint[], $12::integer[])
  AS r(bucket, tenant, queue_name, push, pop, ack, failed, dlq, lag_avg, lag_max, parked)
ON CONFLICT (bucket, server_id, tenant, queue_name) DO UPDATE SET
  push_count = m.push_count + EXCLUDED.push_count,
  pop_count = m.pop_count + EXCLUDED.pop_count,
  ack_count = m.ack_count + EXCLUDED.ack_count,
  failed_count = m.failed_count + EXCLUDED.failed_count,
  dlq_count = m.dlq_count + EXCLUDED.dlq_count,
  pop_lag_avg_ms = CASE WHEN m.pop_count + EXCLUDED.pop_count = 0 THEN 0
    ELSE (m.pop_lag_avg_ms * m.pop_count + EXCLUDED.pop_lag_avg_ms * EXCLUDED.pop_count)
         / (m.pop_count + EXCLUDED.pop_count) END,
  pop_lag_max_ms = greatest(m.pop_lag_max_ms, EXCLUDED.pop_lag_max_ms),
  parked_pops = greatest(m.parked_pops, EXCLUDED.parked_pops)
