-- 002_push: queen.push_batch(), the one statement the engine runs per push batch.
--
-- Objects: type queen.push_row; functions queen.push_batch(tenant, item arrays, payloads jsonb, replay),
-- queen.push_messages(tenant, items jsonb, replay) (the same with the items as JSON) and
-- queen.push_messages_general(tenant, items jsonb, replay) (queue and partition creation, caps).
--
-- Locking: queues are created in name order; queues with a cap (maxSize, maxPartitions) are locked FOR
-- UPDATE in name order; partitions are created-or-locked by one INSERT .. ON CONFLICT DO UPDATE in
-- (queue name, partition name) order. The partition row lock is held to commit, so positions become
-- visible in increasing order (docs/semantics.md, "Positions and order") and concurrent duplicates resolve under it
-- (docs/semantics.md, "Transaction ids and deduplication"). The same UPDATE stamps each partition row with the pushing
-- transaction's id (last_push_xid): wildcard pops find the partitions pushed since they last looked through it
-- (015_ready_partitions.sql).
--
-- Items as JSON (one object each): i (index in the batch), q (queue), p (partition), id (message id,
-- UUIDv7 from the broker), tx (transaction id), gen (true when the broker generated tx, so no earlier
-- message can carry it), tr (trace id), sub (producer sub), pl (payload), enc (payload is ciphertext),
-- acc (acceptance time; spool replay passes the original one). Items must carry i = their index in the
-- array. queen.push_batch() takes the same fields as one array each.
--
-- Result: one row per item: status queued | duplicate | failed, the message id (the original's for a
-- duplicate), the partition id, and an error for failed items. Replay (p_replay) ignores maxSize and
-- maxPartitions (a buffered answer was a promise) and the encryption re-check (ciphertext is stored as
-- it was spooled).

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
                 WHERE n.nspname = 'queen' AND t.typname = 'push_row') THEN
    CREATE TYPE queen.push_row AS (
      i integer, q text, p text, id uuid, tx text, gen boolean, tr uuid, sub text, pl jsonb, enc boolean,
      acc timestamptz, queue_id uuid, partition_id uuid, status text, error text, result_id uuid
    );
  END IF;
END $$;

-- The general path: creates queues and partitions, applies caps. queen.push_messages() below takes the fast
-- path when every queue and partition exists and no queue has a cap, and calls this one otherwise.
CREATE OR REPLACE FUNCTION queen.push_messages_general(p_tenant text, p_items jsonb, p_replay boolean DEFAULT false)
RETURNS TABLE (idx integer, status text, message_id uuid, partition_id uuid, error text)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  v_now timestamptz := clock_timestamp();
  v_rows queen.push_row[];
BEGIN
  -- 1. Auto-create missing queues, in name order (docs/semantics.md, "Auto-creation").
  INSERT INTO queen.queues (tenant, name, namespace, task)
  SELECT p_tenant, n.q, split_part(n.q, '.', 1), split_part(n.q, '.', 2)
  FROM (SELECT DISTINCT x.q FROM jsonb_to_recordset(p_items) AS x(q text)) n
  WHERE NOT EXISTS (SELECT 1 FROM queen.queues e WHERE e.tenant = p_tenant AND e.name = n.q)
  ORDER BY n.q
  ON CONFLICT (tenant, name) DO NOTHING;

  SELECT array_agg(ROW(x.i, x.q, x.p, x.id, x.tx, coalesce(x.gen, false), x.tr, x.sub, x.pl, coalesce(x.enc, false),
                       coalesce(x.acc, v_now), qq.id, NULL, 'pending', NULL, NULL)::queen.push_row ORDER BY x.i)
  INTO v_rows
  FROM jsonb_to_recordset(p_items)
       AS x(i integer, q text, p text, id uuid, tx text, gen boolean, tr uuid, sub text, pl jsonb, enc boolean, acc timestamptz)
  JOIN queen.queues qq ON qq.tenant = p_tenant AND qq.name = x.q;

  -- 2. Capped queues are locked (name order) so their caps are exact; items over a cap fail.
  IF NOT p_replay AND EXISTS (
    SELECT 1 FROM queen.queues qq WHERE qq.id IN (SELECT r.queue_id FROM unnest(v_rows) r)
      AND (qq.max_size > 0 OR qq.max_partitions > 0)) THEN
    PERFORM 1 FROM queen.queues qq
    WHERE qq.id IN (SELECT r.queue_id FROM unnest(v_rows) r) AND (qq.max_size > 0 OR qq.max_partitions > 0)
    ORDER BY qq.name FOR UPDATE;

    -- New partitions beyond maxPartitions, in order of first appearance in the batch.
    WITH wanted AS (
      SELECT r.queue_id, r.p, min(r.i) AS first_i
      FROM unnest(v_rows) r JOIN queen.queues qq ON qq.id = r.queue_id
      WHERE qq.max_partitions > 0
        AND NOT EXISTS (SELECT 1 FROM queen.partitions pp WHERE pp.queue_id = r.queue_id AND pp.name = r.p)
      GROUP BY r.queue_id, r.p
    ), ranked AS (
      SELECT w.queue_id, w.p, row_number() OVER (PARTITION BY w.queue_id ORDER BY w.first_i) AS rn,
             qq.max_partitions - (SELECT count(*) FROM queen.partitions pp WHERE pp.queue_id = w.queue_id) AS room,
             qq.name AS qname, qq.max_partitions
      FROM wanted w JOIN queen.queues qq ON qq.id = w.queue_id
    )
    SELECT array_agg(CASE WHEN k.queue_id IS NOT NULL
                          THEN ROW(r.i, r.q, r.p, r.id, r.tx, r.gen, r.tr, r.sub, r.pl, r.enc, r.acc, r.queue_id, NULL,
                                   'failed', format('queue ''%s'' has reached maxPartitions %s', k.qname, k.max_partitions),
                                   NULL)::queen.push_row
                          ELSE ROW(r.*)::queen.push_row END ORDER BY r.i)
    INTO v_rows
    FROM unnest(v_rows) r
    LEFT JOIN ranked k ON k.queue_id = r.queue_id AND k.p = r.p AND k.rn > k.room;
  END IF;

  -- 3. Create or lock every partition the batch writes to, in canonical order.
  WITH targets AS (
    SELECT DISTINCT r.queue_id, r.q, r.p FROM unnest(v_rows) r WHERE r.status = 'pending'
  ), locked AS (
    INSERT INTO queen.partitions AS pp (queue_id, name)
    SELECT t.queue_id, t.p FROM targets t ORDER BY t.q, t.p
    ON CONFLICT (queue_id, name) DO UPDATE SET last_activity_at = v_now
    RETURNING pp.id, pp.queue_id, pp.name
  )
  SELECT array_agg(ROW(r.i, r.q, r.p, r.id, r.tx, r.gen, r.tr, r.sub, r.pl, r.enc, r.acc, r.queue_id, l.id, r.status,
                       r.error, NULL)::queen.push_row ORDER BY r.i)
  INTO v_rows
  FROM unnest(v_rows) r LEFT JOIN locked l ON l.queue_id = r.queue_id AND l.name = r.p;

  -- 4. Per-item decisions: encryption re-check, dedup (earlier messages, tombstones, earlier in this
  --    batch), maxSize.
  WITH base AS (
    SELECT r.*, qq.encryption_enabled, qq.dedup_window_seconds, qq.max_size, qq.stored_messages, qq.name AS qname
    FROM unnest(v_rows) r JOIN queen.queues qq ON qq.id = r.queue_id
  ), checked AS (
    SELECT b.*,
      CASE
        WHEN b.status <> 'pending' THEN NULL
        WHEN NOT p_replay AND b.encryption_enabled <> b.enc THEN NULL
        WHEN b.dedup_window_seconds = 0 OR (b.gen AND NOT p_replay) THEN NULL
        ELSE coalesce(
          (SELECT m.id FROM queen.messages m
            WHERE m.partition_id = b.partition_id AND m.transaction_id = b.tx
              AND m.accepted_at >= b.acc - make_interval(secs => b.dedup_window_seconds)
            ORDER BY m.position DESC LIMIT 1),
          (SELECT d.message_id FROM queen.dedup_entries d
            WHERE d.partition_id = b.partition_id AND d.transaction_id = b.tx
              AND d.accepted_at >= b.acc - make_interval(secs => b.dedup_window_seconds)))
      END AS earlier_id,
      CASE WHEN b.status = 'pending' AND b.dedup_window_seconds > 0 THEN
        first_value(b.id) OVER (PARTITION BY b.partition_id, b.tx ORDER BY b.i)
      END AS first_in_batch_id
    FROM base b
  ), decided AS (
    SELECT c.*,
      CASE
        WHEN c.status <> 'pending' THEN c.status
        WHEN NOT p_replay AND c.encryption_enabled <> c.enc THEN 'failed'
        WHEN c.earlier_id IS NOT NULL THEN 'duplicate'
        WHEN c.first_in_batch_id IS NOT NULL AND c.first_in_batch_id <> c.id THEN 'duplicate'
        ELSE 'accept'
      END AS decision
    FROM checked c
  ), sized AS (
    SELECT d.*,
      CASE WHEN d.decision = 'accept' AND NOT p_replay AND d.max_size > 0
        THEN d.stored_messages + count(*) FILTER (WHERE d.decision = 'accept')
               OVER (PARTITION BY d.queue_id ORDER BY d.i ROWS UNBOUNDED PRECEDING) > d.max_size
        ELSE false END AS over_size
    FROM decided d
  )
  SELECT array_agg(ROW(s.i, s.q, s.p, s.id, s.tx, s.gen, s.tr, s.sub, s.pl, s.enc, s.acc, s.queue_id, s.partition_id,
      CASE WHEN s.over_size THEN 'failed' WHEN s.decision = 'accept' THEN 'queued' ELSE s.decision END,
      CASE
        WHEN s.over_size THEN format('queue ''%s'' is full (maxSize %s)', s.qname, s.max_size)
        WHEN s.decision = 'failed' AND s.status = 'pending' THEN 'encryption_mismatch'
        ELSE s.error END,
      CASE
        WHEN s.over_size OR s.decision = 'failed' THEN NULL
        WHEN s.decision = 'accept' THEN s.id
        ELSE coalesce(s.earlier_id, s.first_in_batch_id) END)::queen.push_row ORDER BY s.i)
  INTO v_rows
  FROM sized s;

  -- 5. Store the accepted messages with positions taken from the locked partitions. created_at never
  --    decreases along positions: it is at least the partition's newest created_at.
  WITH accepted AS (
    SELECT r.*, row_number() OVER (PARTITION BY r.partition_id ORDER BY r.i) AS nth
    FROM unnest(v_rows) r WHERE r.status = 'queued'
  ), placed AS (
    SELECT a.*, pp.next_position + a.nth - 1 AS position,
           greatest(v_now, coalesce(pp.newest_created_at, v_now)) AS created_at
    FROM accepted a JOIN queen.partitions pp ON pp.id = a.partition_id
  ), inserted AS (
    INSERT INTO queen.messages (partition_id, position, id, transaction_id, payload, is_encrypted, trace_id,
                                producer_sub, created_at, accepted_at)
    SELECT pl.partition_id, pl.position, pl.id, pl.tx, coalesce(pl.pl, 'null'::jsonb), pl.enc, pl.tr, pl.sub,
           pl.created_at, pl.acc
    FROM placed pl ORDER BY pl.partition_id, pl.position
    RETURNING queen.messages.partition_id, queen.messages.created_at
  ), per_partition AS (
    SELECT ins.partition_id, count(*) AS n, max(ins.created_at) AS newest FROM inserted ins GROUP BY ins.partition_id
  ), moved AS (
    UPDATE queen.partitions pp
    SET next_position = pp.next_position + pc.n, message_count = pp.message_count + pc.n,
        newest_created_at = pc.newest, last_activity_at = v_now, last_push_xid = pg_current_xact_id()
    FROM per_partition pc WHERE pp.id = pc.partition_id
    RETURNING pp.queue_id, pc.n
  )
  UPDATE queen.queues qq SET stored_messages = qq.stored_messages + sums.n
  FROM (SELECT mv.queue_id, sum(mv.n) AS n FROM moved mv GROUP BY mv.queue_id) sums
  WHERE qq.id = sums.queue_id AND qq.max_size > 0;

  RETURN QUERY SELECT r.i, r.status, r.result_id, r.partition_id, r.error FROM unnest(v_rows) r ORDER BY r.i;
END;
$fn$;

-- The fast path of a push batch: every queue and partition already exists and no queue has a cap (the
-- steady state). The items arrive as parallel arrays (element n of each array is item n - 1) and the payloads
-- as one JSON array: PostgreSQL parses arrays of uuid and text at about half the cost of the same fields as
-- JSON objects through jsonb_to_recordset (measured on 100-item pushes: 8.6 against 15.6 µs per item).
-- p_traces, p_subs and p_accepted may be NULL when every item's value is NULL (unnest pads with NULLs).
--
-- Two statements: lock the partitions (canonical order), reading what the batch needs of them and their
-- queues once per distinct (queue, partition); then decide, insert, advance the partitions and answer in one
-- statement. The lock comes first and alone, so the second statement's snapshot sees every message committed
-- before it (the dedup check of concurrent duplicates relies on it); a locked row is read in its newest
-- version, so next_position is current. Same rules and result as the general path, which it calls with the
-- items as JSON when a queue or partition is missing or a queue has a cap.
--
-- plan_cache_mode = force_generic_plan: under the default, plpgsql re-planned both statements at every call
-- (measured with pg_stat_statements on a push of 4 items: 1.03 ms per call, 0.75 ms with cached generic
-- plans). A generic plan is made once per session with the table sizes of that moment and kept until an
-- analyze invalidates it: made while a table was small or freshly vacuumed empty, it scanned whole tables
-- where a key lookup was meant (the dedup probe read every message of the table for every item: pushes 10x
-- slower until autovacuum's next analyze). So every read here is by key: enable_seqscan = off, and the
-- probe's lookups are LATERAL subqueries kept apart by OFFSET 0 (flattened, they became a full index scan
-- filtered by a join).
CREATE OR REPLACE FUNCTION queen.push_batch(
  p_tenant text, p_queues text[], p_partitions text[], p_ids uuid[], p_txs text[], p_generated boolean[],
  p_traces uuid[], p_subs text[], p_encrypted boolean[], p_payloads jsonb, p_replay boolean DEFAULT false,
  p_accepted timestamptz[] DEFAULT NULL)
RETURNS TABLE (idx integer, status text, message_id uuid, partition_id uuid, error text)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan SET enable_seqscan = off SET jit = off AS $fn$
#variable_conflict use_column
DECLARE
  v_now timestamptz := clock_timestamp();
  v_wanted integer;
  v_locked integer;
  v_capped boolean;
  -- One element per distinct (queue, partition) of the batch.
  k_queue text[];
  k_partition text[];
  k_partition_id uuid[];
  k_next_position bigint[];
  k_newest_created_at timestamptz[];
  k_encryption boolean[];
  k_dedup_window integer[];
BEGIN
  SELECT count(*), count(l.partition_id), coalesce(bool_or(l.capped), false),
         array_agg(l.q), array_agg(l.p), array_agg(l.partition_id), array_agg(l.next_position),
         array_agg(l.newest_created_at), array_agg(l.encryption_enabled), array_agg(l.dedup_window_seconds)
  INTO v_wanted, v_locked, v_capped, k_queue, k_partition, k_partition_id, k_next_position, k_newest_created_at,
       k_encryption, k_dedup_window
  FROM (
    -- Lookups by index, once per distinct queue and once per distinct (queue, partition), the partitions
    -- locked in key order (plain joins would be planned as hash joins over every queue and partition:
    -- unnest is always estimated at 10 rows).
    WITH keys AS MATERIALIZED (
      SELECT DISTINCT u.q, u.p FROM unnest(p_queues, p_partitions) AS u(q, p)
    ), queues AS MATERIALIZED (
      SELECT found_queue.*
      FROM (SELECT DISTINCT k.q FROM keys k) dq
      CROSS JOIN LATERAL (
        SELECT q2.id, q2.name, q2.encryption_enabled, q2.dedup_window_seconds,
               NOT p_replay AND (q2.max_size > 0 OR q2.max_partitions > 0) AS capped
        FROM queen.queues q2 WHERE q2.tenant = p_tenant AND q2.name = dq.q LIMIT 1
      ) found_queue
    )
    SELECT kq.q, kq.p, kq.encryption_enabled, kq.dedup_window_seconds, kq.capped, found.*
    FROM (SELECT k.q, k.p, qs.id AS queue_id, qs.encryption_enabled, qs.dedup_window_seconds, qs.capped
          FROM keys k LEFT JOIN queues qs ON qs.name = k.q
          ORDER BY k.q, k.p) kq
    LEFT JOIN LATERAL (
      SELECT p2.id AS partition_id, p2.next_position, p2.newest_created_at
      FROM queen.partitions p2
      WHERE p2.queue_id = kq.queue_id AND p2.name = kq.p
      LIMIT 1
      FOR UPDATE
    ) found ON true
  ) l;

  IF v_locked < v_wanted OR v_capped THEN
    RETURN QUERY SELECT * FROM queen.push_messages_general(p_tenant, (
      SELECT jsonb_agg(jsonb_build_object('i', u.n - 1, 'q', u.q, 'p', u.p, 'id', u.id, 'tx', u.tx, 'gen', u.gen,
                                          'tr', u.tr, 'sub', u.sub, 'pl', p_payloads -> (u.n::integer - 1),
                                          'enc', u.enc, 'acc', u.acc) ORDER BY u.n)
      FROM unnest(p_queues, p_partitions, p_ids, p_txs, p_generated, p_traces, p_subs, p_encrypted, p_accepted)
           WITH ORDINALITY AS u(q, p, id, tx, gen, tr, sub, enc, acc, n)), p_replay);
    RETURN;
  END IF;

  RETURN QUERY
  WITH items AS (
    SELECT (u.n - 1)::integer AS i, u.id, u.tx, coalesce(u.gen, false) AS gen, u.tr, u.sub,
           coalesce(u.enc, false) AS enc, coalesce(u.acc, v_now) AS acc, k.partition_id, k.next_position,
           k.newest_created_at, k.encryption_enabled, k.dedup_window_seconds
    FROM unnest(p_queues, p_partitions, p_ids, p_txs, p_generated, p_traces, p_subs, p_encrypted, p_accepted)
         WITH ORDINALITY AS u(q, p, id, tx, gen, tr, sub, enc, acc, n)
    JOIN unnest(k_queue, k_partition, k_partition_id, k_next_position, k_newest_created_at, k_encryption,
                k_dedup_window)
         AS k(q, p, partition_id, next_position, newest_created_at, encryption_enabled, dedup_window_seconds)
      ON k.q = u.q AND k.p = u.p
  ), meta AS (
    SELECT it.*, first_value(it.id) OVER (PARTITION BY it.partition_id, it.tx ORDER BY it.i) AS first_id FROM items it
  ), probe_keys AS (
    -- The transaction ids to look up: the first of each in the batch, unless the broker generated it.
    SELECT m.partition_id, array_agg(m.tx) AS txs,
           min(m.acc - make_interval(secs => m.dedup_window_seconds)) AS since
    FROM meta m
    WHERE m.dedup_window_seconds > 0 AND NOT (m.gen AND NOT p_replay) AND m.first_id = m.id
    GROUP BY m.partition_id
  ), found AS MATERIALIZED (
    -- One key lookup per distinct transaction id of the batch, on both index columns. Usually empty;
    -- MATERIALIZED keeps the planner from folding it into the items, OFFSET 0 keeps each lookup a key
    -- lookup (see above). Not `transaction_id = ANY (txs)`: a plan made before the first ANALYZE (a new
    -- database) then probes by partition alone and reads the whole partition on every push (docs/design.md,
    -- "Plans that do not depend on statistics").
    SELECT pk.partition_id, e.transaction_id AS tx, e.id, e.accepted_at, 1 AS source, e.position
    FROM probe_keys pk
    CROSS JOIN LATERAL unnest(pk.txs) AS t(tx)
    CROSS JOIN LATERAL (
      SELECT e.transaction_id, e.id, e.accepted_at, e.position FROM queen.messages e
      WHERE e.partition_id = pk.partition_id AND e.transaction_id = t.tx AND e.accepted_at >= pk.since
      OFFSET 0
    ) e
    UNION ALL
    SELECT pk.partition_id, d.transaction_id, d.message_id, d.accepted_at, 2, NULL
    FROM probe_keys pk
    CROSS JOIN LATERAL unnest(pk.txs) AS t(tx)
    CROSS JOIN LATERAL (
      SELECT d.transaction_id, d.message_id, d.accepted_at FROM queen.dedup_entries d
      WHERE d.partition_id = pk.partition_id AND d.transaction_id = t.tx AND d.accepted_at >= pk.since
      OFFSET 0
    ) d
  ), earlier AS (
    -- Per first item of a transaction id: the newest earlier message with that id inside the item's own
    -- window (replayed items carry their original acceptance time), else a tombstone of a deleted one.
    SELECT DISTINCT ON (m.id) m.id AS first_id, f.id
    FROM meta m
    JOIN found f ON f.partition_id = m.partition_id AND f.tx = m.tx
    WHERE f.accepted_at >= m.acc - make_interval(secs => m.dedup_window_seconds)
      AND m.dedup_window_seconds > 0 AND NOT (m.gen AND NOT p_replay) AND m.first_id = m.id
    ORDER BY m.id, f.source, f.position DESC
  ), decided AS (
    -- A later item with the same transaction id answers what the first one stands for: the earlier
    -- message when the first is a duplicate itself, else the first (stored by this statement).
    SELECT m.i, m.id, m.tx, m.tr, m.sub, m.enc, m.acc, m.partition_id, m.next_position, m.newest_created_at,
      CASE
        WHEN NOT p_replay AND m.encryption_enabled <> m.enc THEN 'failed'
        WHEN m.dedup_window_seconds > 0 AND m.first_id <> m.id THEN 'duplicate'
        WHEN earlier.id IS NOT NULL THEN 'duplicate'
        ELSE 'queued'
      END AS decision,
      coalesce(earlier.id, CASE WHEN m.dedup_window_seconds > 0 AND m.first_id <> m.id THEN m.first_id END)
        AS earlier_id
    FROM meta m
    LEFT JOIN earlier ON earlier.first_id = m.first_id
  ), numbered AS (
    SELECT d.*, row_number() OVER (PARTITION BY d.partition_id ORDER BY d.i) AS nth
    FROM decided d WHERE d.decision = 'queued'
  ), inserted AS (
    INSERT INTO queen.messages (partition_id, position, id, transaction_id, payload, is_encrypted, trace_id,
                                producer_sub, created_at, accepted_at)
    SELECT n.partition_id, n.next_position + n.nth - 1, n.id, n.tx, coalesce(p_payloads -> n.i, 'null'::jsonb),
           n.enc, n.tr, n.sub, greatest(v_now, coalesce(n.newest_created_at, v_now)), n.acc
    FROM numbered n
    ORDER BY n.partition_id, n.nth
    RETURNING queen.messages.partition_id
  ), counts AS (
    SELECT ins.partition_id, count(*) AS n FROM inserted ins GROUP BY ins.partition_id
  ), moved AS (
    UPDATE queen.partitions pp
    SET next_position = pp.next_position + c.n, message_count = pp.message_count + c.n,
        newest_created_at = greatest(v_now, coalesce(pp.newest_created_at, v_now)),
        last_activity_at = v_now, last_push_xid = pg_current_xact_id()
    FROM counts c WHERE pp.id = c.partition_id
    RETURNING pp.id
  )
  SELECT d.i, d.decision,
         CASE d.decision WHEN 'queued' THEN d.id WHEN 'duplicate' THEN d.earlier_id END,
         d.partition_id,
         CASE WHEN d.decision = 'failed' THEN 'encryption_mismatch' END
  FROM decided d
  ORDER BY d.i;
END;
$fn$;

-- A push batch given as one JSON array of items (see the top of this file), for callers that build items in
-- SQL (dead-letter replay, 007) and for tests: the same as queen.push_batch().
CREATE OR REPLACE FUNCTION queen.push_messages(p_tenant text, p_items jsonb, p_replay boolean DEFAULT false)
RETURNS TABLE (idx integer, status text, message_id uuid, partition_id uuid, error text)
LANGUAGE sql AS $fn$
  SELECT b.*
  FROM (
    SELECT array_agg(x.q ORDER BY x.i) AS q, array_agg(x.p ORDER BY x.i) AS p, array_agg(x.id ORDER BY x.i) AS id,
           array_agg(x.tx ORDER BY x.i) AS tx, array_agg(x.gen ORDER BY x.i) AS gen,
           array_agg(x.tr ORDER BY x.i) AS tr, array_agg(x.sub ORDER BY x.i) AS sub,
           array_agg(x.enc ORDER BY x.i) AS enc, jsonb_agg(coalesce(x.pl, 'null'::jsonb) ORDER BY x.i) AS pl,
           array_agg(x.acc ORDER BY x.i) AS acc
    FROM jsonb_to_recordset(p_items)
         AS x(i integer, q text, p text, id uuid, tx text, gen boolean, tr uuid, sub text, pl jsonb, enc boolean,
              acc timestamptz)
  ) a
  CROSS JOIN LATERAL queen.push_batch(p_tenant, a.q, a.p, a.id, a.tx, a.gen, a.tr, a.sub, a.enc, a.pl, p_replay,
                                      a.acc) b
  WHERE a.q IS NOT NULL
$fn$;
