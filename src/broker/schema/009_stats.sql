-- 009_stats: the stats snapshot, the per-minute metrics and the retention history (semantics.md 8.4,
-- operations.md 12.3, http-api.md 9).
--
-- Objects: tables queen.stats_snapshot, queen.metrics_queue_minute, queen.metrics_server_minute,
-- queen.retention_history; function queen.refresh_stats (lag from queen.partition_group_lag, 008).
--
-- Why a snapshot: the status counters need a scan per partition (queen.partition_counters), far too dear
-- for the push/pop/ack transactions or for every dashboard poll. A background job (STATS_INTERVAL_MS) and
-- POST /api/v1/stats/refresh recompute it; readers get counters as of refreshed_at and report its age.
--
-- Locking: refresh_stats takes the transaction-level advisory try-lock with the two-key form
-- (1364542798, 1398030676) = ("QUEN", "STAT") read as big-endian 32-bit integers, so one session in the
-- cluster refreshes at a time and the others skip the cycle instead of queueing. It reads the hot tables
-- with plain MVCC snapshots and takes no row locks on them: pushes, pops and acks never wait for it, and it
-- never runs inside their transactions. Each replica writes only the metrics rows of its own server id, so
-- replicas never contend on them. retention_history is written by the retention cycle.
--
-- Idempotent: tables and indexes IF NOT EXISTS, the function CREATE OR REPLACE.

-- One row per level and scope, as of the last refresh:
--   partition  scope = partition id          counters of one partition (semantics.md 8.4)
--   queue      scope = queue id              sums over its partitions
--   namespace  scope = namespace name        sums over its queues (queues without a namespace excluded)
--   task       scope = task name             sums over its queues (queues without a task excluded)
--   system     scope = ''                    sums over the tenant's queues; always present for tenant ''
--   consumer   scope = queue id '/' group    lag of one consumer group on one queue (semantics.md 8.3)
CREATE TABLE IF NOT EXISTS queen.stats_snapshot (
  level text NOT NULL CHECK (level IN ('partition', 'queue', 'namespace', 'task', 'system', 'consumer')),
  tenant text NOT NULL,
  scope text NOT NULL,
  queue_id uuid,
  partition_id uuid,
  consumer_group text,
  queues integer NOT NULL DEFAULT 0,
  partitions integer NOT NULL DEFAULT 0,
  total bigint NOT NULL DEFAULT 0,
  pending bigint NOT NULL DEFAULT 0,
  processing bigint NOT NULL DEFAULT 0,
  completed bigint NOT NULL DEFAULT 0,
  failed bigint NOT NULL DEFAULT 0,
  dead_letter bigint NOT NULL DEFAULT 0,
  -- consumer level: unsettled messages above the cursors, and the age of the oldest of them.
  lag_messages bigint NOT NULL DEFAULT 0,
  lag_seconds double precision NOT NULL DEFAULT 0,
  oldest_message_at timestamptz,
  newest_message_at timestamptz,
  refreshed_at timestamptz NOT NULL,
  PRIMARY KEY (level, tenant, scope)
);
CREATE INDEX IF NOT EXISTS stats_snapshot_queue_idx ON queen.stats_snapshot (queue_id, level) WHERE queue_id IS NOT NULL;
-- partition level: the state the counters were computed from (see refresh_stats); refreshed_at of a partition
-- row is when they were last recomputed, the other levels are rewritten at every refresh.
ALTER TABLE queen.stats_snapshot ADD COLUMN IF NOT EXISTS source_state text;

-- The lag of each (partition, group) as of the last refresh that recomputed it, and the state it was computed
-- from; the consumer level of the snapshot sums it. Rows of gone consumer rows are removed by the refresh.
CREATE TABLE IF NOT EXISTS queen.stats_group_lag (
  partition_id uuid NOT NULL,
  consumer_group text NOT NULL,
  queue_id uuid NOT NULL,
  source_state text NOT NULL,
  unsettled bigint NOT NULL,
  oldest timestamptz,
  PRIMARY KEY (partition_id, consumer_group)
);

-- Per (minute, replica, queue) counts, written by each replica every METRICS_AGGREGATE_INTERVAL_S from its
-- in-memory counters. Several writes in one minute add up (the pop lag average is weighted by pops).
-- Queues are kept by name: the history of a deleted queue stays readable.
CREATE TABLE IF NOT EXISTS queen.metrics_queue_minute (
  bucket timestamptz NOT NULL,
  server_id text NOT NULL,
  tenant text NOT NULL DEFAULT '',
  queue_name text NOT NULL,
  push_count bigint NOT NULL DEFAULT 0,
  pop_count bigint NOT NULL DEFAULT 0,
  ack_count bigint NOT NULL DEFAULT 0,
  failed_count bigint NOT NULL DEFAULT 0,
  dlq_count bigint NOT NULL DEFAULT 0,
  pop_lag_avg_ms double precision NOT NULL DEFAULT 0,
  pop_lag_max_ms bigint NOT NULL DEFAULT 0,
  parked_pops integer NOT NULL DEFAULT 0,
  PRIMARY KEY (bucket, server_id, tenant, queue_name)
);
CREATE INDEX IF NOT EXISTS metrics_queue_minute_queue_idx ON queen.metrics_queue_minute (tenant, queue_name, bucket);

-- Per (minute, replica) process sample: the gauges are the last sample of the minute, requests add up.
CREATE TABLE IF NOT EXISTS queen.metrics_server_minute (
  bucket timestamptz NOT NULL,
  server_id text NOT NULL,
  hostname text NOT NULL,
  pid integer NOT NULL,
  cpu_user_percent double precision NOT NULL DEFAULT 0,
  cpu_system_percent double precision NOT NULL DEFAULT 0,
  rss_bytes bigint NOT NULL DEFAULT 0,
  heap_used_bytes bigint NOT NULL DEFAULT 0,
  event_loop_lag_p99_ms double precision NOT NULL DEFAULT 0,
  pool_total integer NOT NULL DEFAULT 0,
  pool_idle integer NOT NULL DEFAULT 0,
  pool_waiting integer NOT NULL DEFAULT 0,
  requests bigint NOT NULL DEFAULT 0,
  parked_pops integer NOT NULL DEFAULT 0,
  written_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (bucket, server_id)
);

-- What retention, eviction and partition cleanup deleted (semantics.md 10). The writer inserts one row per
-- (queue, kind) and cycle with bucket = date_trunc('minute', now()); there is no unique key, so readers
-- sum. Kinds are the labels of queen_retention_deleted_total.
CREATE TABLE IF NOT EXISTS queen.retention_history (
  bucket timestamptz NOT NULL,
  tenant text NOT NULL DEFAULT '',
  queue_name text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('retention', 'completed', 'eviction', 'partitions')),
  deleted bigint NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS retention_history_bucket_idx ON queen.retention_history (bucket);
CREATE INDEX IF NOT EXISTS retention_history_queue_idx ON queen.retention_history (tenant, queue_name, bucket);

-- Refreshes the snapshot in one transaction. Returns acquired = false (and zeros) when another session
-- holds the stats lock; else the rows refreshed per level (partition: every row, recomputed or verified
-- unchanged) and the stale rows removed (cleanup).
--
-- Incremental: a partition's counters (and a group's lag on it) are recomputed only when its inputs may
-- have changed since the last refresh, because recomputing every partition cost about 0.1 ms each, every
-- few seconds, however idle (10 000 partitions: a tenth of a core, measured). The state compared is the
-- xmin of the partition row and of its consumer rows (every push, pop, ack, retention or message delete
-- that changes a count writes one of them) and whether each lease is live (lease expiry changes the counters
-- without a write). What can change without such a write is recomputed every time: partitions with
-- per-message states (out-of-order settlements, failures) or dead letters, and rows whose last counters
-- showed processing, failed or dead-lettered messages (so a count falling to zero is seen).
--
-- jit = off: the planner's estimate for the partition statement (a function scan per changed partition) is
-- far above jit_above_cost, so a PostgreSQL built with LLVM compiled it on every refresh: 0.5 s of CPU for a
-- statement that then ran in 2 ms on 176 partitions (PostgreSQL 15, pg_stat_statements jit_* columns).
CREATE OR REPLACE FUNCTION queen.refresh_stats()
RETURNS TABLE (acquired boolean, partition_rows integer, queue_rows integer, namespace_rows integer,
               task_rows integer, system_rows integer, consumer_rows integer, cleanup_rows integer)
LANGUAGE plpgsql SET jit = off AS $fn$
DECLARE
  v_now timestamptz := clock_timestamp();
  v_removed integer;
BEGIN
  partition_rows := 0; queue_rows := 0; namespace_rows := 0; task_rows := 0; system_rows := 0;
  consumer_rows := 0; cleanup_rows := 0;
  acquired := pg_try_advisory_xact_lock(1364542798, 1398030676);
  IF NOT acquired THEN
    RETURN NEXT;
    RETURN;
  END IF;

  WITH consumer_states AS (
    SELECT c.partition_id,
           string_agg(c.xmin::text || CASE WHEN c.lease_expires_at > v_now THEN 'L' ELSE '' END, ','
                      ORDER BY c.consumer_group) AS state
    FROM queen.consumers c GROUP BY c.partition_id
  ), changed AS MATERIALIZED (
    SELECT p.id, q.id AS queue_id, q.tenant, f.state
    FROM queen.partitions p
    JOIN queen.queues q ON q.id = p.queue_id
    LEFT JOIN consumer_states cs ON cs.partition_id = p.id
    CROSS JOIN LATERAL (SELECT p.xmin::text || ':' || coalesce(cs.state, '') AS state) f
    LEFT JOIN queen.stats_snapshot old ON old.level = 'partition' AND old.tenant = q.tenant AND old.scope = p.id::text
    WHERE old.source_state IS DISTINCT FROM f.state
       OR old.processing > 0 OR old.failed > 0 OR old.dead_letter > 0
       OR EXISTS (SELECT 1 FROM queen.message_states st WHERE st.partition_id = p.id)
       OR EXISTS (SELECT 1 FROM queen.dead_letters d WHERE d.partition_id = p.id)
  )
  INSERT INTO queen.stats_snapshot AS s (level, tenant, scope, queue_id, partition_id, partitions, total, pending,
    processing, completed, failed, dead_letter, oldest_message_at, newest_message_at, refreshed_at, source_state)
  SELECT 'partition', ch.tenant, ch.id::text, ch.queue_id, ch.id, 1, c.total, c.pending, c.processing, c.completed,
         c.failed, c.dead_letter,
         (SELECT m.created_at FROM queen.messages m WHERE m.partition_id = ch.id ORDER BY m.position LIMIT 1),
         (SELECT m.created_at FROM queen.messages m WHERE m.partition_id = ch.id ORDER BY m.position DESC LIMIT 1),
         v_now, ch.state
  FROM changed ch
  CROSS JOIN LATERAL queen.partition_counters(ch.id) c
  ON CONFLICT (level, tenant, scope) DO UPDATE SET
    queue_id = EXCLUDED.queue_id, partition_id = EXCLUDED.partition_id, partitions = 1, total = EXCLUDED.total,
    pending = EXCLUDED.pending, processing = EXCLUDED.processing, completed = EXCLUDED.completed,
    failed = EXCLUDED.failed, dead_letter = EXCLUDED.dead_letter, oldest_message_at = EXCLUDED.oldest_message_at,
    newest_message_at = EXCLUDED.newest_message_at, refreshed_at = EXCLUDED.refreshed_at,
    source_state = EXCLUDED.source_state;

  -- Partition rows of partitions that no longer exist (the queue level below sums every partition row).
  DELETE FROM queen.stats_snapshot s
  WHERE s.level = 'partition' AND NOT EXISTS (SELECT 1 FROM queen.partitions p WHERE p.id = s.partition_id);
  GET DIAGNOSTICS cleanup_rows = ROW_COUNT;
  -- Every remaining partition row is current: recomputed now, or its inputs have not changed.
  SELECT count(*)::integer INTO partition_rows FROM queen.stats_snapshot s WHERE s.level = 'partition';

  INSERT INTO queen.stats_snapshot AS s (level, tenant, scope, queue_id, queues, partitions, total, pending,
    processing, completed, failed, dead_letter, oldest_message_at, newest_message_at, refreshed_at)
  SELECT 'queue', q.tenant, q.id::text, q.id, 1, count(ps.partition_id)::integer, coalesce(sum(ps.total), 0),
         coalesce(sum(ps.pending), 0), coalesce(sum(ps.processing), 0), coalesce(sum(ps.completed), 0),
         coalesce(sum(ps.failed), 0), coalesce(sum(ps.dead_letter), 0), min(ps.oldest_message_at),
         max(ps.newest_message_at), v_now
  FROM queen.queues q
  LEFT JOIN queen.stats_snapshot ps ON ps.level = 'partition' AND ps.queue_id = q.id
  GROUP BY q.id
  ON CONFLICT (level, tenant, scope) DO UPDATE SET
    queue_id = EXCLUDED.queue_id, queues = 1, partitions = EXCLUDED.partitions, total = EXCLUDED.total,
    pending = EXCLUDED.pending, processing = EXCLUDED.processing, completed = EXCLUDED.completed,
    failed = EXCLUDED.failed, dead_letter = EXCLUDED.dead_letter, oldest_message_at = EXCLUDED.oldest_message_at,
    newest_message_at = EXCLUDED.newest_message_at, refreshed_at = EXCLUDED.refreshed_at;
  GET DIAGNOSTICS queue_rows = ROW_COUNT;

  INSERT INTO queen.stats_snapshot AS s (level, tenant, scope, queues, partitions, total, pending, processing,
    completed, failed, dead_letter, oldest_message_at, newest_message_at, refreshed_at)
  SELECT 'namespace', q.tenant, q.namespace, count(*)::integer, sum(qs.partitions)::integer, sum(qs.total),
         sum(qs.pending), sum(qs.processing), sum(qs.completed), sum(qs.failed), sum(qs.dead_letter),
         min(qs.oldest_message_at), max(qs.newest_message_at), v_now
  FROM queen.stats_snapshot qs
  JOIN queen.queues q ON q.id = qs.queue_id
  WHERE qs.level = 'queue' AND qs.refreshed_at = v_now AND q.namespace <> ''
  GROUP BY q.tenant, q.namespace
  ON CONFLICT (level, tenant, scope) DO UPDATE SET
    queues = EXCLUDED.queues, partitions = EXCLUDED.partitions, total = EXCLUDED.total, pending = EXCLUDED.pending,
    processing = EXCLUDED.processing, completed = EXCLUDED.completed, failed = EXCLUDED.failed,
    dead_letter = EXCLUDED.dead_letter, oldest_message_at = EXCLUDED.oldest_message_at,
    newest_message_at = EXCLUDED.newest_message_at, refreshed_at = EXCLUDED.refreshed_at;
  GET DIAGNOSTICS namespace_rows = ROW_COUNT;

  INSERT INTO queen.stats_snapshot AS s (level, tenant, scope, queues, partitions, total, pending, processing,
    completed, failed, dead_letter, oldest_message_at, newest_message_at, refreshed_at)
  SELECT 'task', q.tenant, q.task, count(*)::integer, sum(qs.partitions)::integer, sum(qs.total), sum(qs.pending),
         sum(qs.processing), sum(qs.completed), sum(qs.failed), sum(qs.dead_letter), min(qs.oldest_message_at),
         max(qs.newest_message_at), v_now
  FROM queen.stats_snapshot qs
  JOIN queen.queues q ON q.id = qs.queue_id
  WHERE qs.level = 'queue' AND qs.refreshed_at = v_now AND q.task <> ''
  GROUP BY q.tenant, q.task
  ON CONFLICT (level, tenant, scope) DO UPDATE SET
    queues = EXCLUDED.queues, partitions = EXCLUDED.partitions, total = EXCLUDED.total, pending = EXCLUDED.pending,
    processing = EXCLUDED.processing, completed = EXCLUDED.completed, failed = EXCLUDED.failed,
    dead_letter = EXCLUDED.dead_letter, oldest_message_at = EXCLUDED.oldest_message_at,
    newest_message_at = EXCLUDED.newest_message_at, refreshed_at = EXCLUDED.refreshed_at;
  GET DIAGNOSTICS task_rows = ROW_COUNT;

  -- The default tenant always has a system row, so the snapshot's age is known even with no queue.
  INSERT INTO queen.stats_snapshot AS s (level, tenant, scope, queues, partitions, total, pending, processing,
    completed, failed, dead_letter, oldest_message_at, newest_message_at, refreshed_at)
  SELECT 'system', t.tenant, '', count(qs.queue_id)::integer, coalesce(sum(qs.partitions), 0)::integer,
         coalesce(sum(qs.total), 0), coalesce(sum(qs.pending), 0), coalesce(sum(qs.processing), 0),
         coalesce(sum(qs.completed), 0), coalesce(sum(qs.failed), 0), coalesce(sum(qs.dead_letter), 0),
         min(qs.oldest_message_at), max(qs.newest_message_at), v_now
  FROM (SELECT DISTINCT q.tenant FROM queen.queues q UNION SELECT '') t
  LEFT JOIN queen.stats_snapshot qs ON qs.level = 'queue' AND qs.tenant = t.tenant AND qs.refreshed_at = v_now
  GROUP BY t.tenant
  ON CONFLICT (level, tenant, scope) DO UPDATE SET
    queues = EXCLUDED.queues, partitions = EXCLUDED.partitions, total = EXCLUDED.total, pending = EXCLUDED.pending,
    processing = EXCLUDED.processing, completed = EXCLUDED.completed, failed = EXCLUDED.failed,
    dead_letter = EXCLUDED.dead_letter, oldest_message_at = EXCLUDED.oldest_message_at,
    newest_message_at = EXCLUDED.newest_message_at, refreshed_at = EXCLUDED.refreshed_at;
  GET DIAGNOSTICS system_rows = ROW_COUNT;

  -- Lag per (partition, group), recomputed where its inputs may have changed (see above), then per (queue,
  -- group): messages above each cursor that the group has not settled, counting messages created before a
  -- subscription start as settled (semantics.md 8.3).
  DELETE FROM queen.stats_group_lag g
  WHERE NOT EXISTS (SELECT 1 FROM queen.consumers c
                    WHERE c.partition_id = g.partition_id AND c.consumer_group = g.consumer_group);
  WITH changed AS MATERIALIZED (
    SELECT c.partition_id, c.consumer_group, c.queue_id, c.cursor_position, c.start_at, f.state
    FROM queen.consumers c
    JOIN queen.partitions p ON p.id = c.partition_id
    CROSS JOIN LATERAL (SELECT p.xmin::text || ':' || c.xmin::text AS state) f
    LEFT JOIN queen.stats_group_lag old ON old.partition_id = c.partition_id AND old.consumer_group = c.consumer_group
    WHERE old.source_state IS DISTINCT FROM f.state
       OR EXISTS (SELECT 1 FROM queen.message_states st
                  WHERE st.partition_id = c.partition_id AND st.consumer_group = c.consumer_group)
  )
  INSERT INTO queen.stats_group_lag AS g (partition_id, consumer_group, queue_id, source_state, unsettled, oldest)
  SELECT ch.partition_id, ch.consumer_group, ch.queue_id, ch.state, l.unsettled, l.oldest
  FROM changed ch
  CROSS JOIN LATERAL queen.partition_group_lag(ch.partition_id, ch.consumer_group, ch.cursor_position, ch.start_at) l
  ON CONFLICT (partition_id, consumer_group) DO UPDATE SET
    queue_id = EXCLUDED.queue_id, source_state = EXCLUDED.source_state, unsettled = EXCLUDED.unsettled,
    oldest = EXCLUDED.oldest;

  INSERT INTO queen.stats_snapshot AS s (level, tenant, scope, queue_id, consumer_group, partitions, lag_messages,
    lag_seconds, oldest_message_at, refreshed_at)
  SELECT 'consumer', q.tenant, q.id::text || '/' || l.consumer_group, q.id, l.consumer_group, count(*)::integer,
         coalesce(sum(l.unsettled), 0),
         coalesce(extract(epoch FROM v_now - min(l.oldest)), 0)::double precision, min(l.oldest), v_now
  FROM queen.stats_group_lag l
  JOIN queen.queues q ON q.id = l.queue_id
  GROUP BY q.id, l.consumer_group
  ON CONFLICT (level, tenant, scope) DO UPDATE SET
    queue_id = EXCLUDED.queue_id, consumer_group = EXCLUDED.consumer_group, partitions = EXCLUDED.partitions,
    lag_messages = EXCLUDED.lag_messages, lag_seconds = EXCLUDED.lag_seconds,
    oldest_message_at = EXCLUDED.oldest_message_at, refreshed_at = EXCLUDED.refreshed_at;
  GET DIAGNOSTICS consumer_rows = ROW_COUNT;

  -- Rows of queues, namespaces, tasks and groups that no longer exist (partition rows: above).
  DELETE FROM queen.stats_snapshot WHERE refreshed_at < v_now AND level <> 'partition';
  GET DIAGNOSTICS v_removed = ROW_COUNT;
  cleanup_rows := cleanup_rows + v_removed;
  RETURN NEXT;
END;
$fn$;
