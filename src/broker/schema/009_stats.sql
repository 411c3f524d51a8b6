-- 009_stats: the stats snapshot, the per-minute metrics and the retention history (docs/semantics.md, "Status
-- counters", docs/operations.md, "Per-minute metrics in PostgreSQL", docs/http-api.md, "Status and analytics").
--
-- Objects: tables queen.stats_snapshot, queen.stats_group_lag, queen.stats_refresh_state,
-- queen.stats_deleted_rows, queen.metrics_queue_minute, queen.metrics_server_minute, queen.retention_history;
-- function queen.refresh_stats (counters from queen.partition_counters, 006, lag from
-- queen.partition_group_lag, 008); trigger functions queen.stats_note_deleted_partitions and
-- queen.stats_note_deleted_consumers with their AFTER DELETE statement triggers on queen.partitions and
-- queen.consumers.
--
-- Why a snapshot: the status counters need a scan per partition (queen.partition_counters), far too dear
-- for the push/pop/ack transactions or for every dashboard poll. A background job (STATS_INTERVAL_MS) and
-- POST /api/v1/stats/refresh recompute it; readers get counters as of refreshed_at and report its age.
--
-- Locking: refresh_stats takes the transaction-level advisory try-lock with the two-key form
-- (1364542798, 1398030676) = ("QUEN", "STAT") read as big-endian 32-bit integers, so one session in the
-- cluster refreshes at a time and the others skip the cycle instead of queueing. It reads the hot tables
-- with plain MVCC snapshots and takes no row locks on them: pushes, pops and acks never wait for it, and it
-- never runs inside their transactions. The delete triggers run inside the transactions that delete
-- partitions or consumer rows (queue delete, consumer-group delete, partition cleanup; never push, pop or
-- ack, which delete neither) and only insert into queen.stats_deleted_rows, which no one else locks; the
-- refresh deletes the rows it has read, so a deleter never waits for it. Each replica writes only the
-- metrics rows of its own server id, so replicas never contend on them. retention_history is written by the
-- retention cycle.
--
-- Idempotent: tables and indexes IF NOT EXISTS, columns dropped IF EXISTS, functions CREATE OR REPLACE,
-- triggers CREATE OR REPLACE.

-- One row per level and scope, as of the last refresh:
--   partition  scope = partition id          counters of one partition (docs/semantics.md, "Status counters")
--   queue      scope = queue id              sums over its partitions
--   namespace  scope = namespace name        sums over its queues (queues without a namespace excluded)
--   task       scope = task name             sums over its queues (queues without a task excluded)
--   system     scope = ''                    sums over the tenant's queues; always present for tenant ''
--   consumer   scope = queue id '/' group    lag of one consumer group on one queue (docs/semantics.md, "Lag")
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
  -- partition and queue levels: the refresh that last changed the row (it is not written again while its
  -- counters stay the same); namespace, task, system and consumer levels: rewritten at every refresh.
  refreshed_at timestamptz NOT NULL,
  PRIMARY KEY (level, tenant, scope)
);
CREATE INDEX IF NOT EXISTS stats_snapshot_queue_idx ON queen.stats_snapshot (queue_id, level) WHERE queue_id IS NOT NULL;
-- Room for the refresh to rewrite a row in its page (a HOT update: no index entry), since nothing indexed
-- changes when counters do. Applies to pages filled from now on.
ALTER TABLE queen.stats_snapshot SET (fillfactor = 70);
-- The text state the refresh once compared to find changed partitions (before stats_refresh_state).
ALTER TABLE queen.stats_snapshot DROP COLUMN IF EXISTS source_state;

-- The lag of each (partition, group) as of the last refresh that recomputed it; the consumer level of the
-- snapshot sums it. Rows of deleted consumer rows are removed by the refresh.
CREATE TABLE IF NOT EXISTS queen.stats_group_lag (
  partition_id uuid NOT NULL,
  consumer_group text NOT NULL,
  queue_id uuid NOT NULL,
  unsettled bigint NOT NULL,
  oldest timestamptz,
  PRIMARY KEY (partition_id, consumer_group)
);
ALTER TABLE queen.stats_group_lag DROP COLUMN IF EXISTS source_state;
-- The oldest unsettled message of a group on a queue (one probe), and the rows of a deleted queue.
CREATE INDEX IF NOT EXISTS stats_group_lag_queue_idx ON queen.stats_group_lag (queue_id, consumer_group, oldest);

-- Where the last refresh left off: every transaction below horizon had ended when it began, so what those
-- transactions wrote is in the snapshot. No row: the next refresh recomputes everything.
CREATE TABLE IF NOT EXISTS queen.stats_refresh_state (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  horizon xid8 NOT NULL,
  refreshed_at timestamptz NOT NULL
);

-- Partitions and consumer rows deleted since the last refresh (consumer_group NULL: the partition), written
-- by the triggers below and consumed by the next refresh. A deleted row leaves nothing a scan could find,
-- and the deletes that make them (queue delete, consumer-group delete, partition cleanup) are rare, so they
-- say so instead of every refresh comparing the whole snapshot with the tables.
CREATE TABLE IF NOT EXISTS queen.stats_deleted_rows (
  partition_id uuid NOT NULL,
  consumer_group text,
  queue_id uuid NOT NULL
);

CREATE OR REPLACE FUNCTION queen.stats_note_deleted_partitions()
RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO queen.stats_deleted_rows (partition_id, consumer_group, queue_id)
  SELECT g.id, NULL, g.queue_id FROM deleted_partitions g;
  RETURN NULL;
END;
$fn$;

CREATE OR REPLACE FUNCTION queen.stats_note_deleted_consumers()
RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO queen.stats_deleted_rows (partition_id, consumer_group, queue_id)
  SELECT g.partition_id, g.consumer_group, g.queue_id FROM deleted_consumers g;
  RETURN NULL;
END;
$fn$;

-- Statement triggers on DELETE only: inserts and updates (every push, pop and ack) never fire them.
CREATE OR REPLACE TRIGGER stats_deleted_partitions AFTER DELETE ON queen.partitions
  REFERENCING OLD TABLE AS deleted_partitions
  FOR EACH STATEMENT EXECUTE FUNCTION queen.stats_note_deleted_partitions();
CREATE OR REPLACE TRIGGER stats_deleted_consumers AFTER DELETE ON queen.consumers
  REFERENCING OLD TABLE AS deleted_consumers
  FOR EACH STATEMENT EXECUTE FUNCTION queen.stats_note_deleted_consumers();

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

-- What retention, eviction and partition cleanup deleted (docs/semantics.md, "Retention, eviction and cleanup"). The
-- writer inserts one row per (queue, kind) and cycle with bucket = date_trunc('minute', now()); there is no unique key,
-- so readers sum. Kinds are the labels of queen_retention_deleted_total.
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
-- holds the stats lock; else the rows per level (partition: the partitions recomputed, whether or not
-- their counters changed; queue: the queue rows changed; namespace, task, system, consumer: every row,
-- rewritten) and the stale snapshot rows removed (cleanup).
--
-- Incremental: the work follows what changed since the last refresh, not what exists, because recomputing
-- every partition cost about 0.1 ms each, every few seconds, however idle (10 000 partitions: a tenth of a
-- core, measured), and so did comparing a state of every partition with the snapshot (100 000 partitions:
-- 364 ms with nothing changed, bench --scale --series stats).
--
-- What changed is found from row versions. Every change to a counter or a lag writes a partition row (push;
-- retention, message delete and queue clear, which also take away dead letters and message states), a
-- consumer row (pop, ack, lease renew, release or reclaim, seek, subscription skip) or a message_states row
-- (out-of-order settlement, failure, retry, dead-lettering, DLQ retry), or deletes partitions or consumer
-- rows (recorded by the triggers above). Any transaction whose id is at or above the stored horizon may have
-- written after the last refresh read, so the rows to look at are those whose xmin is at or above it:
-- 0 <= age(xmin) <= age(horizon), a 32-bit comparison valid while the horizon is less than 2^31 transactions
-- old (older, or no horizon: everything is recomputed). Freezing keeps the original xmin (PostgreSQL 9.4 and
-- later), so a frozen row still shows when it was written. A negative age is a transaction that took its id
-- after this refresh took its reference: the new horizon is below it, so the next refresh sees it. Finding
-- them is one pass over the partition, consumer and message-state rows with that comparison (100 000
-- partition rows: about 10 ms); only what the pass finds is recomputed and written.
--
-- Recomputed:
--   partition rows of partitions whose row, a consumer row or a message-state row was written, or a consumer
--     row deleted; and of partitions with a lease (consumers_lease_idx), because a lease running out
--     changes processing and pending with no write (reclaiming it writes);
--   group lag rows (stats_group_lag) of consumer rows written, of consumer rows whose partition row was
--     written, and of (partition, group) with message-state rows written;
--   queue rows by the difference between the new and the old partition rows (sums and partition counts, exact
--     in integers); their oldest (newest) message can only move back (forward) unless the partition that
--     held it changed or went away, and then both are summed again from the queue's partition rows; a queue
--     without a row is summed from its partition rows;
--   consumer rows likewise from the group lag rows, their oldest unsettled message by one probe
--     (stats_group_lag_queue_idx), their lag_seconds (the clock moves) at every refresh;
--   namespace, task and system rows from the queue rows, at every refresh (a row per queue, not partition).

-- jit = off: the planner's estimate for the partition statement (a function scan per changed partition) is
-- far above jit_above_cost, so a PostgreSQL built with LLVM compiled it on every refresh: 0.5 s of CPU for a
-- statement that then ran in 2 ms on 176 partitions (PostgreSQL 15, pg_stat_statements jit_* columns).
CREATE OR REPLACE FUNCTION queen.refresh_stats()
RETURNS TABLE (acquired boolean, partition_rows integer, queue_rows integer, namespace_rows integer,
               task_rows integer, system_rows integer, consumer_rows integer, cleanup_rows integer)
LANGUAGE plpgsql SET jit = off AS $fn$
DECLARE
  v_now timestamptz := clock_timestamp();
  -- Every transaction of this database below it has ended before anything is read: the next refresh
  -- starts from it.
  v_horizon xid8;
  v_snapshot pg_snapshot;
  -- age() of the oldest transaction of this database still running.
  v_oldest integer;
  -- The horizon of the last refresh, and its age: rows with 0 <= age(xmin) <= v_age were written since.
  v_since xid8;
  v_age integer;
  -- No usable horizon: recompute every row and sum every level from scratch.
  v_full boolean;
  v_removed integer;
  -- Rows written since the horizon: partitions; consumer rows and (partition, group) of message states as
  -- parallel arrays.
  v_parts uuid[];
  v_part_queues uuid[];
  v_cons_pids uuid[];
  v_cons_groups text[];
  v_state_pids uuid[];
  v_state_groups text[];
  -- Deleted since the last refresh (stats_deleted_rows).
  v_gone_parts uuid[];
  v_gone_part_queues uuid[];
  v_gone_cons_pids uuid[];
  v_gone_cons_groups text[];
  -- Queues whose oldest and newest message are looked up again; (queue, group) pairs whose row was adjusted.
  v_rescan uuid[] := '{}';
  v_lag_queues uuid[] := '{}';
  v_lag_groups text[] := '{}';
  v_q uuid[];
  v_g text[];
BEGIN
  partition_rows := 0; queue_rows := 0; namespace_rows := 0; task_rows := 0; system_rows := 0;
  consumer_rows := 0; cleanup_rows := 0;
  acquired := pg_try_advisory_xact_lock(1364542798, 1398030676);
  IF NOT acquired THEN
    RETURN NEXT;
    RETURN;
  END IF;

  -- The horizon: the oldest transaction of this database still running, else the first id not yet
  -- completed. Transactions of other databases (which cannot write these tables) are left out, so one
  -- running long elsewhere in the cluster does not hold it back; a running transaction's subtransactions
  -- have later ids than it. The activity snapshot is taken fresh (it is cached per transaction otherwise).
  v_snapshot := pg_current_snapshot();
  PERFORM pg_stat_clear_snapshot();
  SELECT max(age(x.xid)) INTO v_oldest
  FROM (SELECT a.backend_xid AS xid FROM pg_stat_activity a
        WHERE a.datname = current_database() AND a.backend_xid IS NOT NULL
        UNION ALL
        SELECT p.transaction FROM pg_prepared_xacts p WHERE p.database = current_database()) x;
  v_horizon := pg_snapshot_xmax(v_snapshot);
  IF v_oldest > age(xid(v_horizon)) THEN
    v_horizon := (v_horizon::text::numeric - (v_oldest - age(xid(v_horizon))))::text::xid8;
  END IF;
  SELECT r.horizon INTO v_since FROM queen.stats_refresh_state r;
  v_full := v_since IS NULL OR v_since > v_horizon
            OR v_horizon::text::numeric - v_since::text::numeric > 1000000000;
  IF NOT v_full THEN
    v_age := age(xid(v_since));
  END IF;

  -- Deletions first: what is read here was deleted before anything below reads the tables.
  WITH t AS (DELETE FROM queen.stats_deleted_rows d RETURNING d.partition_id, d.consumer_group, d.queue_id)
  SELECT coalesce(array_agg(t.partition_id) FILTER (WHERE t.consumer_group IS NULL), '{}'),
         coalesce(array_agg(t.queue_id) FILTER (WHERE t.consumer_group IS NULL), '{}'),
         coalesce(array_agg(t.partition_id) FILTER (WHERE t.consumer_group IS NOT NULL), '{}'),
         coalesce(array_agg(t.consumer_group) FILTER (WHERE t.consumer_group IS NOT NULL), '{}')
  INTO v_gone_parts, v_gone_part_queues, v_gone_cons_pids, v_gone_cons_groups
  FROM t;

  -- Deleted queues: every row under them.
  WITH gone_queues AS MATERIALIZED (
    SELECT s.queue_id FROM queen.stats_snapshot s
    WHERE s.level = 'queue' AND NOT EXISTS (SELECT 1 FROM queen.queues q WHERE q.id = s.queue_id)
  ), lag AS (
    DELETE FROM queen.stats_group_lag g WHERE g.queue_id IN (SELECT x.queue_id FROM gone_queues x)
  )
  DELETE FROM queen.stats_snapshot s
  WHERE s.queue_id IN (SELECT x.queue_id FROM gone_queues x) AND s.level IN ('partition', 'queue', 'consumer');
  GET DIAGNOSTICS cleanup_rows = ROW_COUNT;

  IF v_full THEN
    -- Rows of anything that no longer exists; the levels above are summed from scratch below.
    DELETE FROM queen.stats_snapshot s
    WHERE s.level = 'partition' AND NOT EXISTS (SELECT 1 FROM queen.partitions p WHERE p.id = s.partition_id);
    GET DIAGNOSTICS v_removed = ROW_COUNT;
    cleanup_rows := cleanup_rows + v_removed;
    DELETE FROM queen.stats_group_lag g
    WHERE NOT EXISTS (SELECT 1 FROM queen.consumers c
                      WHERE c.partition_id = g.partition_id AND c.consumer_group = g.consumer_group);
  ELSE
    -- Deleted partitions (of queues that still exist), taken off their queue's row. A queue whose oldest or
    -- newest message was in one of them has both looked up again below.
    WITH gone AS (
      DELETE FROM queen.stats_snapshot s
      USING (SELECT DISTINCT u.pid, q.tenant
             FROM unnest(v_gone_parts, v_gone_part_queues) AS u(pid, qid)
             JOIN queen.queues q ON q.id = u.qid) x
      WHERE s.level = 'partition' AND s.tenant = x.tenant AND s.scope = x.pid::text
        AND NOT EXISTS (SELECT 1 FROM queen.partitions p WHERE p.id = x.pid)
      RETURNING s.queue_id, s.tenant, s.total, s.pending, s.processing, s.completed, s.failed, s.dead_letter,
                s.oldest_message_at, s.newest_message_at
    ), delta AS (
      SELECT g.queue_id, g.tenant, count(*) AS n, sum(g.total) AS total, sum(g.pending) AS pending,
             sum(g.processing) AS processing, sum(g.completed) AS completed, sum(g.failed) AS failed,
             sum(g.dead_letter) AS dead_letter, min(g.oldest_message_at) AS oldest, max(g.newest_message_at) AS newest
      FROM gone g GROUP BY g.queue_id, g.tenant
    ), adjusted AS (
      UPDATE queen.stats_snapshot s
      SET partitions = s.partitions - d.n, total = s.total - d.total, pending = s.pending - d.pending,
          processing = s.processing - d.processing, completed = s.completed - d.completed,
          failed = s.failed - d.failed, dead_letter = s.dead_letter - d.dead_letter, refreshed_at = v_now
      FROM delta d
      WHERE s.level = 'queue' AND s.tenant = d.tenant AND s.scope = d.queue_id::text
    ), extremes AS (
      -- The queue row as it was before this statement.
      SELECT d.queue_id FROM delta d
      JOIN queen.stats_snapshot qs ON qs.level = 'queue' AND qs.tenant = d.tenant AND qs.scope = d.queue_id::text
      WHERE d.oldest <= qs.oldest_message_at OR d.newest >= qs.newest_message_at
    )
    SELECT (SELECT count(*) FROM gone)::integer, (SELECT coalesce(array_agg(x.queue_id), '{}') FROM extremes x)
    INTO v_removed, v_q;
    cleanup_rows := cleanup_rows + v_removed;
    v_rescan := v_rescan || v_q;

    -- Deleted consumer rows (not re-created since), taken off their group's row.
    WITH gone AS (
      DELETE FROM queen.stats_group_lag g
      USING (SELECT DISTINCT u.pid, u.grp FROM unnest(v_gone_cons_pids, v_gone_cons_groups) AS u(pid, grp)) x
      WHERE g.partition_id = x.pid AND g.consumer_group = x.grp
        AND NOT EXISTS (SELECT 1 FROM queen.consumers c WHERE c.partition_id = x.pid AND c.consumer_group = x.grp)
      RETURNING g.queue_id, g.consumer_group, g.unsettled
    ), delta AS (
      SELECT g.queue_id, g.consumer_group, count(*) AS n, sum(g.unsettled) AS unsettled
      FROM gone g GROUP BY g.queue_id, g.consumer_group
    ), applied AS (
      UPDATE queen.stats_snapshot s
      SET partitions = s.partitions - d.n, lag_messages = s.lag_messages - d.unsettled, refreshed_at = v_now
      FROM delta d JOIN queen.queues q ON q.id = d.queue_id
      WHERE s.level = 'consumer' AND s.tenant = q.tenant AND s.scope = d.queue_id::text || '/' || d.consumer_group
    )
    SELECT coalesce(array_agg(d.queue_id), '{}'), coalesce(array_agg(d.consumer_group), '{}') INTO v_q, v_g
    FROM delta d;
    v_lag_queues := v_lag_queues || v_q;
    v_lag_groups := v_lag_groups || v_g;
  END IF;

  -- What was written since the horizon (when v_full, the statements below read every row instead).
  SELECT coalesce(array_agg(p.id), '{}'), coalesce(array_agg(p.queue_id), '{}') INTO v_parts, v_part_queues
  FROM queen.partitions p
  WHERE NOT v_full AND age(p.xmin) BETWEEN 0 AND v_age;
  SELECT coalesce(array_agg(c.partition_id), '{}'), coalesce(array_agg(c.consumer_group), '{}')
  INTO v_cons_pids, v_cons_groups
  FROM queen.consumers c
  WHERE NOT v_full AND age(c.xmin) BETWEEN 0 AND v_age;
  SELECT coalesce(array_agg(x.partition_id), '{}'), coalesce(array_agg(x.consumer_group), '{}')
  INTO v_state_pids, v_state_groups
  FROM (SELECT DISTINCT s.partition_id, s.consumer_group FROM queen.message_states s
        WHERE NOT v_full AND age(s.xmin) BETWEEN 0 AND v_age) x;

  -- Partition rows, and the difference they make to their queue's row. The queue's oldest message can only
  -- move back, and its newest forward, unless the partition holding it changed: then both are looked up
  -- again below.
  WITH cur AS MATERIALIZED (
    SELECT x.id, x.queue_id, q.tenant
    FROM (SELECT p.id, p.queue_id FROM queen.partitions p WHERE v_full
          UNION ALL
          SELECT u.id, u.qid FROM unnest(v_parts, v_part_queues) AS u(id, qid)
          UNION
          SELECT p.id, p.queue_id FROM queen.partitions p
          WHERE NOT v_full
            AND p.id IN (SELECT unnest(v_cons_pids) UNION ALL SELECT unnest(v_state_pids)
                         UNION ALL SELECT unnest(v_gone_cons_pids)
                         UNION ALL SELECT k.partition_id FROM queen.consumers k WHERE k.lease_id IS NOT NULL)) x
    JOIN queen.queues q ON q.id = x.queue_id
  ), fresh AS MATERIALIZED (
    SELECT cur.id, cur.queue_id, cur.tenant, c.total, c.pending, c.processing, c.completed, c.failed, c.dead_letter,
           (SELECT m.created_at FROM queen.messages m WHERE m.partition_id = cur.id ORDER BY m.position LIMIT 1)
             AS oldest,
           (SELECT m.created_at FROM queen.messages m WHERE m.partition_id = cur.id ORDER BY m.position DESC LIMIT 1)
             AS newest
    FROM cur CROSS JOIN LATERAL queen.partition_counters(cur.id) c
  ), prev AS MATERIALIZED (
    SELECT s.tenant, s.scope, s.total, s.pending, s.processing, s.completed, s.failed, s.dead_letter,
           s.oldest_message_at, s.newest_message_at
    FROM cur JOIN queen.stats_snapshot s ON s.level = 'partition' AND s.tenant = cur.tenant AND s.scope = cur.id::text
  ), written AS (
    INSERT INTO queen.stats_snapshot AS s (level, tenant, scope, queue_id, partition_id, partitions, total, pending,
      processing, completed, failed, dead_letter, oldest_message_at, newest_message_at, refreshed_at)
    SELECT 'partition', f.tenant, f.id::text, f.queue_id, f.id, 1, f.total, f.pending, f.processing, f.completed,
           f.failed, f.dead_letter, f.oldest, f.newest, v_now
    FROM fresh f
    ON CONFLICT (level, tenant, scope) DO UPDATE SET
      queue_id = EXCLUDED.queue_id, partition_id = EXCLUDED.partition_id, partitions = 1, total = EXCLUDED.total,
      pending = EXCLUDED.pending, processing = EXCLUDED.processing, completed = EXCLUDED.completed,
      failed = EXCLUDED.failed, dead_letter = EXCLUDED.dead_letter, oldest_message_at = EXCLUDED.oldest_message_at,
      newest_message_at = EXCLUDED.newest_message_at, refreshed_at = EXCLUDED.refreshed_at
    -- A partition recomputed to the same counters (a leased one, say) is not written again.
    WHERE (s.total, s.pending, s.processing, s.completed, s.failed, s.dead_letter, s.oldest_message_at,
           s.newest_message_at)
          IS DISTINCT FROM (EXCLUDED.total, EXCLUDED.pending, EXCLUDED.processing, EXCLUDED.completed,
                            EXCLUDED.failed, EXCLUDED.dead_letter, EXCLUDED.oldest_message_at,
                            EXCLUDED.newest_message_at)
  ), delta AS (
    SELECT f.queue_id, f.tenant, count(*) FILTER (WHERE pr.scope IS NULL) AS n,
           sum(f.total - coalesce(pr.total, 0)) AS total, sum(f.pending - coalesce(pr.pending, 0)) AS pending,
           sum(f.processing - coalesce(pr.processing, 0)) AS processing,
           sum(f.completed - coalesce(pr.completed, 0)) AS completed, sum(f.failed - coalesce(pr.failed, 0)) AS failed,
           sum(f.dead_letter - coalesce(pr.dead_letter, 0)) AS dead_letter,
           min(f.oldest) AS oldest, max(f.newest) AS newest,
           -- The old values of partitions whose oldest (newest) moved.
           min(pr.oldest_message_at) FILTER (WHERE pr.oldest_message_at IS DISTINCT FROM f.oldest) AS moved_oldest,
           max(pr.newest_message_at) FILTER (WHERE pr.newest_message_at IS DISTINCT FROM f.newest) AS moved_newest
    FROM fresh f LEFT JOIN prev pr ON pr.tenant = f.tenant AND pr.scope = f.id::text
    GROUP BY f.queue_id, f.tenant
  ), target AS (
    -- The queue rows as they were before this statement.
    SELECT d.*, qs.oldest_message_at AS q_oldest, qs.newest_message_at AS q_newest
    FROM delta d
    JOIN queen.stats_snapshot qs ON qs.level = 'queue' AND qs.tenant = d.tenant AND qs.scope = d.queue_id::text
  ), adjusted AS (
    UPDATE queen.stats_snapshot s
    SET partitions = s.partitions + t.n, total = s.total + t.total, pending = s.pending + t.pending,
        processing = s.processing + t.processing, completed = s.completed + t.completed,
        failed = s.failed + t.failed, dead_letter = s.dead_letter + t.dead_letter,
        oldest_message_at = least(t.q_oldest, t.oldest), newest_message_at = greatest(t.q_newest, t.newest),
        refreshed_at = v_now
    FROM target t
    WHERE s.level = 'queue' AND s.tenant = t.tenant AND s.scope = t.queue_id::text
      AND ((t.n, t.total, t.pending, t.processing, t.completed, t.failed, t.dead_letter) <> (0, 0, 0, 0, 0, 0, 0)
           OR least(t.q_oldest, t.oldest) IS DISTINCT FROM t.q_oldest
           OR greatest(t.q_newest, t.newest) IS DISTINCT FROM t.q_newest)
  )
  SELECT (SELECT count(*) FROM fresh)::integer,
         (SELECT coalesce(array_agg(t.queue_id), '{}') FROM target t
          WHERE (t.moved_oldest <= t.q_oldest AND NOT coalesce(t.oldest <= t.q_oldest, false))
             OR (t.moved_newest >= t.q_newest AND NOT coalesce(t.newest >= t.q_newest, false)))
  INTO partition_rows, v_q;
  v_rescan := v_rescan || v_q;

  -- Queues without a row yet (new, or every queue when v_full): summed from their partition rows.
  INSERT INTO queen.stats_snapshot AS s (level, tenant, scope, queue_id, queues, partitions, total, pending,
    processing, completed, failed, dead_letter, oldest_message_at, newest_message_at, refreshed_at)
  SELECT 'queue', q.tenant, q.id::text, q.id, 1, count(ps.partition_id)::integer, coalesce(sum(ps.total), 0),
         coalesce(sum(ps.pending), 0), coalesce(sum(ps.processing), 0), coalesce(sum(ps.completed), 0),
         coalesce(sum(ps.failed), 0), coalesce(sum(ps.dead_letter), 0), min(ps.oldest_message_at),
         max(ps.newest_message_at), v_now
  FROM queen.queues q
  LEFT JOIN queen.stats_snapshot ps ON ps.level = 'partition' AND ps.queue_id = q.id
  WHERE v_full OR NOT EXISTS (SELECT 1 FROM queen.stats_snapshot x
                              WHERE x.level = 'queue' AND x.tenant = q.tenant AND x.scope = q.id::text)
  GROUP BY q.id
  ON CONFLICT (level, tenant, scope) DO UPDATE SET
    queue_id = EXCLUDED.queue_id, queues = 1, partitions = EXCLUDED.partitions, total = EXCLUDED.total,
    pending = EXCLUDED.pending, processing = EXCLUDED.processing, completed = EXCLUDED.completed,
    failed = EXCLUDED.failed, dead_letter = EXCLUDED.dead_letter, oldest_message_at = EXCLUDED.oldest_message_at,
    newest_message_at = EXCLUDED.newest_message_at, refreshed_at = EXCLUDED.refreshed_at;

  -- Queues whose oldest or newest message may have been in a partition that changed or went away.
  UPDATE queen.stats_snapshot s
  SET oldest_message_at = (SELECT min(ps.oldest_message_at) FROM queen.stats_snapshot ps
                           WHERE ps.level = 'partition' AND ps.queue_id = s.queue_id),
      newest_message_at = (SELECT max(ps.newest_message_at) FROM queen.stats_snapshot ps
                           WHERE ps.level = 'partition' AND ps.queue_id = s.queue_id),
      refreshed_at = v_now
  WHERE s.level = 'queue' AND s.queue_id IN (SELECT DISTINCT u.id FROM unnest(v_rescan) AS u(id));
  SELECT count(*)::integer INTO queue_rows FROM queen.stats_snapshot s WHERE s.level = 'queue' AND s.refreshed_at = v_now;

  INSERT INTO queen.stats_snapshot AS s (level, tenant, scope, queues, partitions, total, pending, processing,
    completed, failed, dead_letter, oldest_message_at, newest_message_at, refreshed_at)
  SELECT 'namespace', q.tenant, q.namespace, count(*)::integer, sum(qs.partitions)::integer, sum(qs.total),
         sum(qs.pending), sum(qs.processing), sum(qs.completed), sum(qs.failed), sum(qs.dead_letter),
         min(qs.oldest_message_at), max(qs.newest_message_at), v_now
  FROM queen.stats_snapshot qs
  JOIN queen.queues q ON q.id = qs.queue_id
  WHERE qs.level = 'queue' AND q.namespace <> ''
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
  WHERE qs.level = 'queue' AND q.task <> ''
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
  LEFT JOIN (SELECT qs0.* FROM queen.stats_snapshot qs0 JOIN queen.queues q ON q.id = qs0.queue_id
             WHERE qs0.level = 'queue') qs ON qs.tenant = t.tenant
  GROUP BY t.tenant
  ON CONFLICT (level, tenant, scope) DO UPDATE SET
    queues = EXCLUDED.queues, partitions = EXCLUDED.partitions, total = EXCLUDED.total, pending = EXCLUDED.pending,
    processing = EXCLUDED.processing, completed = EXCLUDED.completed, failed = EXCLUDED.failed,
    dead_letter = EXCLUDED.dead_letter, oldest_message_at = EXCLUDED.oldest_message_at,
    newest_message_at = EXCLUDED.newest_message_at, refreshed_at = EXCLUDED.refreshed_at;
  GET DIAGNOSTICS system_rows = ROW_COUNT;

  -- Lag per (partition, group), where its inputs changed, and the difference it makes per (queue, group):
  -- messages above each cursor that the group has not settled, counting messages created before a
  -- subscription start as settled (docs/semantics.md, "Lag").
  WITH keys AS (
    SELECT u.pid, u.grp FROM unnest(v_cons_pids, v_cons_groups) AS u(pid, grp)
    UNION
    SELECT u.pid, u.grp FROM unnest(v_state_pids, v_state_groups) AS u(pid, grp)
    UNION
    SELECT c.partition_id, c.consumer_group FROM unnest(v_parts) AS u(pid)
    JOIN queen.consumers c ON c.partition_id = u.pid
  ), cand AS MATERIALIZED (
    SELECT c.partition_id, c.consumer_group, c.queue_id, c.cursor_position, c.start_at
    FROM queen.consumers c WHERE v_full
    UNION ALL
    SELECT c.partition_id, c.consumer_group, c.queue_id, c.cursor_position, c.start_at
    FROM keys k JOIN queen.consumers c ON c.partition_id = k.pid AND c.consumer_group = k.grp
    WHERE NOT v_full
  ), fresh AS MATERIALIZED (
    SELECT ch.partition_id, ch.consumer_group, ch.queue_id, l.unsettled, l.oldest
    FROM cand ch
    CROSS JOIN LATERAL queen.partition_group_lag(ch.partition_id, ch.consumer_group, ch.cursor_position, ch.start_at) l
  ), prev AS MATERIALIZED (
    SELECT g.partition_id, g.consumer_group, g.unsettled
    FROM cand ch
    JOIN queen.stats_group_lag g ON g.partition_id = ch.partition_id AND g.consumer_group = ch.consumer_group
  ), written AS (
    INSERT INTO queen.stats_group_lag AS g (partition_id, consumer_group, queue_id, unsettled, oldest)
    SELECT f.partition_id, f.consumer_group, f.queue_id, f.unsettled, f.oldest FROM fresh f
    ON CONFLICT (partition_id, consumer_group) DO UPDATE SET
      queue_id = EXCLUDED.queue_id, unsettled = EXCLUDED.unsettled, oldest = EXCLUDED.oldest
    WHERE (g.unsettled, g.oldest) IS DISTINCT FROM (EXCLUDED.unsettled, EXCLUDED.oldest)
  ), delta AS (
    SELECT f.queue_id, f.consumer_group, count(*) FILTER (WHERE pr.partition_id IS NULL) AS n,
           sum(f.unsettled - coalesce(pr.unsettled, 0)) AS unsettled
    FROM fresh f
    LEFT JOIN prev pr ON pr.partition_id = f.partition_id AND pr.consumer_group = f.consumer_group
    GROUP BY f.queue_id, f.consumer_group
  ), applied AS (
    UPDATE queen.stats_snapshot s
    SET partitions = s.partitions + d.n, lag_messages = s.lag_messages + d.unsettled, refreshed_at = v_now
    FROM delta d JOIN queen.queues q ON q.id = d.queue_id
    WHERE s.level = 'consumer' AND s.tenant = q.tenant AND s.scope = d.queue_id::text || '/' || d.consumer_group
  )
  SELECT coalesce(array_agg(d.queue_id), '{}'), coalesce(array_agg(d.consumer_group), '{}') INTO v_q, v_g
  FROM delta d;
  v_lag_queues := v_lag_queues || v_q;
  v_lag_groups := v_lag_groups || v_g;

  -- (queue, group) pairs without a row yet (new, or every pair when v_full): summed from their lag rows.
  WITH pairs AS (
    SELECT DISTINCT l.queue_id, l.consumer_group FROM queen.stats_group_lag l WHERE v_full
    UNION
    SELECT u.qid, u.grp FROM unnest(v_lag_queues, v_lag_groups) AS u(qid, grp)
    JOIN queen.queues q ON q.id = u.qid
    WHERE NOT EXISTS (SELECT 1 FROM queen.stats_snapshot x
                      WHERE x.level = 'consumer' AND x.tenant = q.tenant AND x.scope = u.qid::text || '/' || u.grp)
  )
  INSERT INTO queen.stats_snapshot AS s (level, tenant, scope, queue_id, consumer_group, partitions, lag_messages,
    lag_seconds, oldest_message_at, refreshed_at)
  SELECT 'consumer', q.tenant, q.id::text || '/' || l.consumer_group, q.id, l.consumer_group, count(*)::integer,
         coalesce(sum(l.unsettled), 0), 0, min(l.oldest), v_now
  FROM pairs pr
  JOIN queen.stats_group_lag l ON l.queue_id = pr.queue_id AND l.consumer_group = pr.consumer_group
  JOIN queen.queues q ON q.id = l.queue_id
  GROUP BY q.id, l.consumer_group
  ON CONFLICT (level, tenant, scope) DO UPDATE SET
    queue_id = EXCLUDED.queue_id, consumer_group = EXCLUDED.consumer_group, partitions = EXCLUDED.partitions,
    lag_messages = EXCLUDED.lag_messages, oldest_message_at = EXCLUDED.oldest_message_at,
    refreshed_at = EXCLUDED.refreshed_at;

  IF v_full THEN
    -- Pairs with no lag row left.
    DELETE FROM queen.stats_snapshot s WHERE s.level = 'consumer' AND s.refreshed_at < v_now;
    GET DIAGNOSTICS v_removed = ROW_COUNT;
    cleanup_rows := cleanup_rows + v_removed;
  ELSE
    -- Groups whose last lag row on the queue went away; the oldest unsettled message of the rest
    -- (stats_group_lag_queue_idx).
    DELETE FROM queen.stats_snapshot s WHERE s.level = 'consumer' AND s.refreshed_at = v_now AND s.partitions <= 0;
    GET DIAGNOSTICS v_removed = ROW_COUNT;
    cleanup_rows := cleanup_rows + v_removed;
    UPDATE queen.stats_snapshot s
    SET oldest_message_at = (SELECT min(l.oldest) FROM queen.stats_group_lag l
                             WHERE l.queue_id = s.queue_id AND l.consumer_group = s.consumer_group)
    FROM (SELECT DISTINCT u.qid, u.grp FROM unnest(v_lag_queues, v_lag_groups) AS u(qid, grp)) x
    WHERE s.level = 'consumer' AND s.queue_id = x.qid AND s.consumer_group = x.grp;
  END IF;

  -- The age of each group's oldest unsettled message grows with the clock.
  UPDATE queen.stats_snapshot s
  SET lag_seconds = coalesce(extract(epoch FROM v_now - s.oldest_message_at), 0)::double precision,
      refreshed_at = v_now
  WHERE s.level = 'consumer';
  GET DIAGNOSTICS consumer_rows = ROW_COUNT;

  -- Namespaces, tasks and tenants that no longer have a queue.
  DELETE FROM queen.stats_snapshot WHERE refreshed_at < v_now AND level IN ('namespace', 'task', 'system');
  GET DIAGNOSTICS v_removed = ROW_COUNT;
  cleanup_rows := cleanup_rows + v_removed;

  INSERT INTO queen.stats_refresh_state AS r (singleton, horizon, refreshed_at) VALUES (true, v_horizon, v_now)
  ON CONFLICT (singleton) DO UPDATE SET horizon = EXCLUDED.horizon, refreshed_at = EXCLUDED.refreshed_at;
  RETURN NEXT;
END;
$fn$;
