-- 015_ready_partitions: the index of partitions worth a pop, per (queue, group), so a wildcard pop costs what
-- it delivers rather than what the queue holds (docs/scale.md).
--
-- Objects: columns queen.partitions.last_push_xid and queen.consumers.ready_to, indexes
-- partitions_push_idx and consumers_ready_key_idx, table queen.ready_horizons, functions queen.refresh_ready
-- and queen.lower_ready_scan.
--
-- The model. A consumer row (partition, group) is a pop candidate while ready_to > cursor_position: ready_to
-- is the highest position the group knows to be stored there. Pushes never write consumer rows (they would
-- wait for pops and acks holding them); they stamp the partition row they already update with their
-- transaction id. A wildcard pop first absorbs the partitions stamped since its group's horizon: it raises
-- their consumer rows' ready_to (creating rows for partitions the group has never seen), then reads
-- candidates from consumers_ready_key_idx in least-recently-served order. A pop that finds no message at all
-- above a cursor lowers ready_to to the cursor; acks move cursors, and a row whose cursor reaches ready_to
-- leaves the index by itself.
--
-- Why nothing is missed. The horizon of (queue, group) is a transaction id below which every partition stamp
-- has been absorbed: it only moves up to pg_snapshot_xmin of a snapshot taken before the stamps were read, so
-- a push still running then (or not yet started) has an id at or above it and is read by a later absorption.
-- A consumer row that absorption cannot lock (a pop or ack holds it) keeps the horizon at or below that
-- partition's stamp, so the next absorption tries again. A pop that lowers ready_to holds the row's lock
-- from before its read of the messages, so a push it did not see has a stamp at or above any horizon set
-- while the lock is held. New rows default to "ready" (the largest bigint) until a pop has looked.
--
-- The scan bound. Every serve moves a row's index entry to the end (its key is the serve time) and leaves a
-- dead entry where it was; until vacuum those pile up at the start of the index, where every pop's read of
-- candidates begins (at 100 000 partitions that read cost more than the rest of the pop). So each (queue,
-- group) keeps scan_from, a key at or below the key of every ready row, and pops read from there. It rises
-- (at most every 100 ms, under the horizon lock) to the smallest key of the ready rows; everything that can
-- make a row ready with a smaller key lowers it first: absorption (under the same lock), and seeks, DLQ
-- retries and new rows of specific-partition pops (queen.lower_ready_scan, before they touch consumer rows,
-- so the lock order is horizon row, then consumer rows, as in absorption). Serves never lower a key.
--
-- Cost. Pushes: one more indexed column on the partition row they update (no HOT update for that row).
-- Pops: absorption reads the partitions stamped since the horizon (nothing when nothing was pushed),
-- candidates are an index range scan of the rows returned. A long-running writing transaction anywhere in
-- the cluster holds every horizon back, so until it ends each absorption re-reads (without writing) the
-- partitions pushed meanwhile, up to its limit per call.

ALTER TABLE queen.partitions ADD COLUMN IF NOT EXISTS last_push_xid xid8 NOT NULL DEFAULT '0';
CREATE INDEX IF NOT EXISTS partitions_push_idx ON queen.partitions (queue_id, last_push_xid);

ALTER TABLE queen.consumers ADD COLUMN IF NOT EXISTS ready_to bigint NOT NULL DEFAULT 9223372036854775807;
-- The key (never served first, as -infinity) is an expression so a pop can start its read at a bound.
CREATE INDEX IF NOT EXISTS consumers_ready_key_idx
  ON queen.consumers (queue_id, consumer_group, coalesce(last_served_at, '-infinity'::timestamptz), partition_id)
  WHERE ready_to > cursor_position;
DROP INDEX IF EXISTS queen.consumers_ready_idx;

-- Per (queue, group): partitions stamped by transactions below absorbed_below are reflected in the group's
-- consumer rows; every ready row's key is at or above (scan_from_at, scan_from_pid), last raised at
-- scan_checked_at. Queue mode has a row too (group '__QUEUE_MODE__'). Deleting the group's consumer rows
-- (consumer-group delete) deletes its horizon, so the next pop absorbs every partition again.
CREATE TABLE IF NOT EXISTS queen.ready_horizons (
  queue_id uuid NOT NULL REFERENCES queen.queues (id) ON DELETE CASCADE,
  consumer_group text NOT NULL,
  absorbed_below xid8 NOT NULL DEFAULT '0',
  scan_from_at timestamptz NOT NULL DEFAULT '-infinity',
  scan_from_pid uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000',
  scan_checked_at timestamptz NOT NULL DEFAULT '-infinity',
  PRIMARY KEY (queue_id, consumer_group)
);
ALTER TABLE queen.ready_horizons
  ADD COLUMN IF NOT EXISTS scan_from_at timestamptz NOT NULL DEFAULT '-infinity',
  ADD COLUMN IF NOT EXISTS scan_from_pid uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000',
  ADD COLUMN IF NOT EXISTS scan_checked_at timestamptz NOT NULL DEFAULT '-infinity';

-- Lowers the scan bound of (queue, group) to the start, before the caller makes rows ready with keys that may
-- lie below it (a seek, a DLQ retry, a row created outside absorption). Waits for an absorbing pop of the
-- group to commit. No horizon row: no bound to lower.
CREATE OR REPLACE FUNCTION queen.lower_ready_scan(p_queue_id uuid, p_group text)
RETURNS void LANGUAGE sql AS $fn$
  UPDATE queen.ready_horizons h
  SET scan_from_at = '-infinity', scan_from_pid = '00000000-0000-0000-0000-000000000000'
  WHERE h.queue_id = p_queue_id AND h.consumer_group = p_group
$fn$;

-- Readies a wildcard pop of (queue, group): absorbs the partitions stamped since the horizon, at most
-- p_limit of them per call, oldest stamps first (all partitions of one stamp together), and raises the scan
-- bound when it was last raised over 100 ms ago. The horizon row serialises this work until the pop commits:
-- with p_wait false, absorbed = false says another pop holds it (its work becomes visible when that pop
-- commits); with p_wait true this waits for it. more = true: partitions beyond the limit are left for the
-- next call. scan_at, scan_pid: where the pop may start reading candidates. p_start is the subscription
-- start given to consumer rows this creates (NULL: from the beginning).
DROP FUNCTION IF EXISTS queen.absorb_pushes(uuid, text, timestamptz, integer, boolean);
CREATE OR REPLACE FUNCTION queen.refresh_ready(p_queue_id uuid, p_group text, p_start timestamptz, p_limit integer,
                                               p_wait boolean, OUT absorbed boolean, OUT more boolean,
                                               OUT scan_at timestamptz, OUT scan_pid uuid)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan SET enable_seqscan = off SET enable_sort = off
  SET jit = off AS $fn$
-- The generic plans here are made with the statistics of their first use, often an empty consumers table.
-- So every read of queen.consumers by partition is pinned to one lookup per partition: a LATERAL subquery
-- with OFFSET 0 (a primary-key read per stamped partition), then the ctid of the row read there. Otherwise
-- one absorption could read every consumer row of the group once per stamped partition (7 s for 10 000
-- partitions, measured). A guard "partition_id = ANY (the stamped ids)" on each lookup, used before, has
-- PostgreSQL sort the whole array again at every lookup: raising 20 000 rows took 11.7 s, not 0.6.
-- And enable_sort = off: the bound's read must walk consumers_ready_key_idx in its order; costed on an empty
-- table, reading every row of the group through another index and sorting them looked as cheap.
#variable_conflict use_column
DECLARE
  -- Taken before the stamps are read: every transaction below it has ended, so its stamp is visible below.
  v_horizon xid8 := pg_snapshot_xmin(pg_current_snapshot());
  v_now timestamptz := clock_timestamp();
  h queen.ready_horizons%ROWTYPE;
  v_cut xid8;
  v_held xid8;
  v_ids uuid[];
  v_last bigint[];
  v_xids xid8[];
  v_first bigint[];
  v_low_at timestamptz;
  v_low_pid uuid;
  v_raise boolean;
BEGIN
  more := false;
  absorbed := false;
  scan_at := '-infinity';
  scan_pid := '00000000-0000-0000-0000-000000000000';
  -- Nothing stamped at or above the committed horizon and a fresh bound: no lock or write needed (the common
  -- case of a drain, or of a pop right after another one).
  SELECT * INTO h FROM queen.ready_horizons x WHERE x.queue_id = p_queue_id AND x.consumer_group = p_group;
  IF FOUND THEN
    scan_at := h.scan_from_at;
    scan_pid := h.scan_from_pid;
    v_raise := h.scan_checked_at < v_now - interval '100 milliseconds';
    IF NOT v_raise AND NOT EXISTS (SELECT 1 FROM queen.partitions p
                                   WHERE p.queue_id = p_queue_id AND p.last_push_xid >= h.absorbed_below) THEN
      absorbed := true;
      RETURN;
    END IF;
  END IF;

  LOOP
    IF p_wait THEN
      SELECT * INTO h FROM queen.ready_horizons x
      WHERE x.queue_id = p_queue_id AND x.consumer_group = p_group
      FOR UPDATE;
    ELSE
      SELECT * INTO h FROM queen.ready_horizons x
      WHERE x.queue_id = p_queue_id AND x.consumer_group = p_group
      FOR UPDATE SKIP LOCKED;
    END IF;
    EXIT WHEN FOUND;
    -- Not locked: another pop holds the row, or it does not exist yet. Only the second may insert (an insert
    -- meeting a row another pop has updated would wait for that pop).
    IF NOT EXISTS (SELECT 1 FROM queen.ready_horizons x WHERE x.queue_id = p_queue_id AND x.consumer_group = p_group) THEN
      INSERT INTO queen.ready_horizons AS x (queue_id, consumer_group) VALUES (p_queue_id, p_group)
      ON CONFLICT DO NOTHING
      RETURNING * INTO h;
      EXIT WHEN FOUND;
    END IF;
    IF NOT p_wait THEN
      RETURN;
    END IF;
  END LOOP;
  absorbed := true;
  scan_at := h.scan_from_at;
  scan_pid := h.scan_from_pid;

  -- The limit: stamps below v_cut are absorbed now. When the first p_limit + 1 partitions share one stamp,
  -- that whole stamp is absorbed (one push batch is never split).
  SELECT p.last_push_xid INTO v_cut FROM queen.partitions p
  WHERE p.queue_id = p_queue_id AND p.last_push_xid >= h.absorbed_below
  ORDER BY p.last_push_xid OFFSET p_limit LIMIT 1;
  IF v_cut IS NOT NULL THEN
    more := true;
    IF NOT EXISTS (SELECT 1 FROM queen.partitions p
                   WHERE p.queue_id = p_queue_id AND p.last_push_xid >= h.absorbed_below AND p.last_push_xid < v_cut) THEN
      SELECT min(p.last_push_xid) INTO v_cut FROM queen.partitions p
      WHERE p.queue_id = p_queue_id AND p.last_push_xid > v_cut;
      more := v_cut IS NOT NULL;
    END IF;
  END IF;

  -- first_cursor: where a row created now starts. A group subscribed after a partition's newest message
  -- starts past all of it, as its first pop would; a partition with nothing for the group gets no row yet.
  SELECT coalesce(array_agg(p.id), '{}'), array_agg(p.next_position - 1), array_agg(p.last_push_xid),
         array_agg(CASE WHEN p_start IS NOT NULL AND p.newest_created_at < p_start THEN p.next_position - 1 ELSE 0 END)
  INTO v_ids, v_last, v_xids, v_first
  FROM queen.partitions p
  WHERE p.queue_id = p_queue_id AND p.last_push_xid >= h.absorbed_below AND (v_cut IS NULL OR p.last_push_xid < v_cut);

  IF cardinality(v_ids) > 0 THEN
    -- Raise the rows that can be locked now, create the missing ones; a stamped partition whose row is
    -- locked by another transaction (or created by one meanwhile) holds the horizon at its stamp. The
    -- smallest key of the rows raised or created lowers the scan bound.
    WITH stamped AS (
      SELECT u.id, u.last_position, u.last_push_xid, u.first_cursor
      FROM unnest(v_ids, v_last, v_xids, v_first) AS u(id, last_position, last_push_xid, first_cursor)
    ), behind AS MATERIALIZED (
      SELECT s.id, s.last_position, s.last_push_xid, s.first_cursor, c.ct IS NOT NULL AS has_row, c.ct
      FROM stamped s
      LEFT JOIN LATERAL (
        -- The key as a range of (partition, group) rows, which only the primary key can read (and reads as
        -- the one row): a plain "consumer_group = p_group", costed on an empty table, was planned as a read
        -- of the whole consumers_served_idx by its second column. With the group under COLLATE "C" instead,
        -- each lookup read the partition's row of every group.
        SELECT c.ctid AS ct, c.ready_to FROM queen.consumers c
        WHERE c.partition_id = s.id
          AND (c.partition_id, c.consumer_group) >= (s.id, p_group)
          AND (c.partition_id, c.consumer_group) <= (s.id, p_group)
        OFFSET 0
      ) c ON true
      WHERE (c.ct IS NULL AND s.last_position > s.first_cursor) OR c.ready_to < s.last_position
    ), lockable AS (
      SELECT c.ctid AS ct, c.partition_id, b.last_position FROM behind b
      JOIN queen.consumers c ON c.ctid = b.ct
      WHERE b.has_row AND c.partition_id = b.id AND c.consumer_group = p_group
      FOR UPDATE OF c SKIP LOCKED
    ), raised AS (
      UPDATE queen.consumers k SET ready_to = greatest(k.ready_to, l.last_position)
      FROM lockable l
      WHERE k.ctid = l.ct AND k.partition_id = l.partition_id AND k.consumer_group = p_group
      RETURNING k.partition_id, coalesce(k.last_served_at, '-infinity'::timestamptz) AS key_at
    ), created AS (
      INSERT INTO queen.consumers (partition_id, consumer_group, queue_id, start_at, cursor_position, ready_to)
      SELECT b.id, p_group, p_queue_id, p_start, b.first_cursor, b.last_position
      FROM behind b WHERE NOT b.has_row
      ON CONFLICT DO NOTHING
      RETURNING partition_id, '-infinity'::timestamptz AS key_at
    ), touched AS (
      SELECT r.partition_id, r.key_at FROM raised r UNION ALL SELECT c.partition_id, c.key_at FROM created c
    )
    SELECT (SELECT min(b.last_push_xid) FROM behind b WHERE b.id NOT IN (SELECT t.partition_id FROM touched t)),
           lowest.key_at, lowest.partition_id
    INTO v_held, v_low_at, v_low_pid
    FROM (SELECT 1) one
    LEFT JOIN LATERAL (SELECT t.key_at, t.partition_id FROM touched t ORDER BY t.key_at, t.partition_id LIMIT 1) lowest
      ON true;
    IF v_low_pid IS NOT NULL AND (v_low_at, v_low_pid) < (scan_at, scan_pid) THEN
      scan_at := v_low_at;
      scan_pid := v_low_pid;
    END IF;
  END IF;

  -- Raise the bound to the smallest key of the ready rows (leased ones included: a lease may end without a
  -- write to the row's key); with none, past any key, since every way back into the index lowers it. Once
  -- every 10 s the read starts from the index's start instead, so a row made ready below the bound by a
  -- path that did not lower it (a hand-made UPDATE, say) waits 10 s at most, never forever.
  IF h.scan_checked_at < v_now - interval '100 milliseconds' THEN
    IF floor(extract(epoch FROM v_now) / 10) <> floor(extract(epoch FROM h.scan_checked_at) / 10) THEN
      scan_at := '-infinity';
      scan_pid := '00000000-0000-0000-0000-000000000000';
    END IF;
    SELECT coalesce(k.last_served_at, '-infinity'::timestamptz), k.partition_id INTO v_low_at, v_low_pid
    FROM queen.consumers k
    WHERE k.queue_id = p_queue_id AND k.consumer_group = p_group AND k.ready_to > k.cursor_position
      AND (coalesce(k.last_served_at, '-infinity'::timestamptz), k.partition_id) >= (scan_at, scan_pid)
    ORDER BY coalesce(k.last_served_at, '-infinity'::timestamptz), k.partition_id
    LIMIT 1;
    IF FOUND THEN
      scan_at := v_low_at;
      scan_pid := v_low_pid;
    ELSE
      scan_at := 'infinity';
      scan_pid := 'ffffffff-ffff-ffff-ffff-ffffffffffff';
    END IF;
    h.scan_checked_at := v_now;
  END IF;

  -- Never lowered (snapshot horizons only grow; the guard costs nothing).
  v_held := greatest(h.absorbed_below, least(v_horizon, coalesce(v_held, v_horizon), coalesce(v_cut, v_horizon)));
  IF v_held <> h.absorbed_below OR scan_at <> h.scan_from_at OR scan_pid <> h.scan_from_pid
     OR h.scan_checked_at = v_now THEN
    UPDATE queen.ready_horizons x
    SET absorbed_below = v_held, scan_from_at = scan_at, scan_from_pid = scan_pid, scan_checked_at = h.scan_checked_at
    WHERE x.queue_id = p_queue_id AND x.consumer_group = p_group;
  END IF;
END;
$fn$;
