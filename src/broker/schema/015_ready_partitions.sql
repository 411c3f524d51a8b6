-- 015_ready_partitions: the index of partitions worth a pop, per (queue, group), so a wildcard pop costs what
-- it delivers rather than what the queue holds (docs/scale.md).
--
-- Objects: columns queen.partitions.last_push_xid and queen.consumers.ready_to, indexes
-- partitions_push_idx and consumers_ready_idx, table queen.ready_horizons, function queen.absorb_pushes.
--
-- The model. A consumer row (partition, group) is a pop candidate while ready_to > cursor_position: ready_to
-- is the highest position the group knows to be stored there. Pushes never write consumer rows (they would
-- wait for pops and acks holding them); they stamp the partition row they already update with their
-- transaction id. A wildcard pop first absorbs the partitions stamped since its group's horizon: it raises
-- their consumer rows' ready_to (creating rows for partitions the group has never seen), then reads
-- candidates from consumers_ready_idx in least-recently-served order. A pop that finds no message at all
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
-- Cost. Pushes: one more indexed column on the partition row they update (no HOT update for that row).
-- Pops: absorption reads the partitions stamped since the horizon (nothing when nothing was pushed),
-- candidates are an index range scan of the rows returned. A long-running writing transaction anywhere in
-- the cluster holds every horizon back, so until it ends each absorption re-reads (without writing) the
-- partitions pushed meanwhile, up to its limit per call.

ALTER TABLE queen.partitions ADD COLUMN IF NOT EXISTS last_push_xid xid8 NOT NULL DEFAULT '0';
CREATE INDEX IF NOT EXISTS partitions_push_idx ON queen.partitions (queue_id, last_push_xid);

ALTER TABLE queen.consumers ADD COLUMN IF NOT EXISTS ready_to bigint NOT NULL DEFAULT 9223372036854775807;
CREATE INDEX IF NOT EXISTS consumers_ready_idx
  ON queen.consumers (queue_id, consumer_group, last_served_at NULLS FIRST, partition_id)
  WHERE ready_to > cursor_position;

-- Per (queue, group): partitions stamped by transactions below absorbed_below are reflected in the group's
-- consumer rows. Queue mode has a row too (group '__QUEUE_MODE__'). Deleting the group's consumer rows
-- (consumer-group delete) deletes its horizon, so the next pop absorbs every partition again.
CREATE TABLE IF NOT EXISTS queen.ready_horizons (
  queue_id uuid NOT NULL REFERENCES queen.queues (id) ON DELETE CASCADE,
  consumer_group text NOT NULL,
  absorbed_below xid8 NOT NULL DEFAULT '0',
  PRIMARY KEY (queue_id, consumer_group)
);

-- Absorbs, for one (queue, group), the partitions stamped since its horizon: at most p_limit of them per
-- call, oldest stamps first (all partitions of one stamp together). The horizon row serialises absorbers of
-- a group until they commit: with p_wait false, absorbed = false says another pop holds it (its work becomes
-- visible when that pop commits); with p_wait true this waits for it. more = true: partitions beyond the
-- limit are left for the next call. p_start is the subscription start given to consumer rows this creates
-- (NULL: from the beginning).
CREATE OR REPLACE FUNCTION queen.absorb_pushes(p_queue_id uuid, p_group text, p_start timestamptz, p_limit integer,
                                               p_wait boolean, OUT absorbed boolean, OUT more boolean)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $fn$
#variable_conflict use_column
DECLARE
  -- Taken before the stamps are read: every transaction below it has ended, so its stamp is visible below.
  v_horizon xid8 := pg_snapshot_xmin(pg_current_snapshot());
  v_from xid8;
  v_cut xid8;
  v_held xid8;
BEGIN
  more := false;
  -- Nothing stamped at or above the committed horizon: nothing to absorb, and no lock or write needed (the
  -- common case of a drain, or of a pop right after another one).
  SELECT h.absorbed_below INTO v_from FROM queen.ready_horizons h
  WHERE h.queue_id = p_queue_id AND h.consumer_group = p_group;
  IF FOUND AND NOT EXISTS (SELECT 1 FROM queen.partitions p
                           WHERE p.queue_id = p_queue_id AND p.last_push_xid >= v_from) THEN
    absorbed := true;
    RETURN;
  END IF;
  absorbed := false;
  LOOP
    IF p_wait THEN
      SELECT h.absorbed_below INTO v_from FROM queen.ready_horizons h
      WHERE h.queue_id = p_queue_id AND h.consumer_group = p_group
      FOR UPDATE;
    ELSE
      SELECT h.absorbed_below INTO v_from FROM queen.ready_horizons h
      WHERE h.queue_id = p_queue_id AND h.consumer_group = p_group
      FOR UPDATE SKIP LOCKED;
    END IF;
    EXIT WHEN FOUND;
    -- Not locked: another pop holds the row, or it does not exist yet. Only the second may insert (an insert
    -- meeting a row another pop has updated would wait for that pop).
    IF NOT EXISTS (SELECT 1 FROM queen.ready_horizons h WHERE h.queue_id = p_queue_id AND h.consumer_group = p_group) THEN
      INSERT INTO queen.ready_horizons (queue_id, consumer_group) VALUES (p_queue_id, p_group)
      ON CONFLICT DO NOTHING;
      IF FOUND THEN
        v_from := '0';
        EXIT;
      END IF;
    END IF;
    IF NOT p_wait THEN
      RETURN;
    END IF;
  END LOOP;
  absorbed := true;

  -- The limit: stamps below v_cut are absorbed now. When the first p_limit + 1 partitions share one stamp,
  -- that whole stamp is absorbed (one push batch is never split).
  SELECT p.last_push_xid INTO v_cut FROM queen.partitions p
  WHERE p.queue_id = p_queue_id AND p.last_push_xid >= v_from
  ORDER BY p.last_push_xid OFFSET p_limit LIMIT 1;
  IF v_cut IS NOT NULL THEN
    more := true;
    IF v_cut = v_from OR NOT EXISTS (SELECT 1 FROM queen.partitions p
                                     WHERE p.queue_id = p_queue_id AND p.last_push_xid >= v_from
                                       AND p.last_push_xid < v_cut) THEN
      SELECT min(p.last_push_xid) INTO v_cut FROM queen.partitions p
      WHERE p.queue_id = p_queue_id AND p.last_push_xid > v_cut;
      more := v_cut IS NOT NULL;
    END IF;
  END IF;

  -- Raise the rows that can be locked now, create the missing ones; a stamped partition whose row is
  -- locked by another transaction (or created by one meanwhile) holds the horizon at its stamp.
  WITH stamped AS MATERIALIZED (
    -- first_cursor: where a row created now starts. A group subscribed after a partition's newest message
    -- starts past all of it, as its first pop would; a partition with nothing for the group gets no row yet.
    SELECT p.id, p.next_position - 1 AS last_position, p.last_push_xid,
           CASE WHEN p_start IS NOT NULL AND p.newest_created_at < p_start THEN p.next_position - 1 ELSE 0 END
             AS first_cursor
    FROM queen.partitions p
    WHERE p.queue_id = p_queue_id AND p.last_push_xid >= v_from AND (v_cut IS NULL OR p.last_push_xid < v_cut)
  ), behind AS MATERIALIZED (
    SELECT s.id, s.last_position, s.last_push_xid, s.first_cursor, c.partition_id IS NOT NULL AS has_row
    FROM stamped s
    LEFT JOIN queen.consumers c ON c.partition_id = s.id AND c.consumer_group = p_group
    WHERE (c.partition_id IS NULL AND s.last_position > s.first_cursor) OR c.ready_to < s.last_position
  ), lockable AS (
    SELECT c.partition_id FROM queen.consumers c
    WHERE c.partition_id IN (SELECT b.id FROM behind b WHERE b.has_row) AND c.consumer_group = p_group
    FOR UPDATE SKIP LOCKED
  ), raised AS (
    UPDATE queen.consumers k SET ready_to = greatest(k.ready_to, b.last_position)
    FROM behind b
    WHERE k.partition_id IN (SELECT l.partition_id FROM lockable l) AND k.consumer_group = p_group
      AND b.id = k.partition_id
    RETURNING k.partition_id
  ), created AS (
    INSERT INTO queen.consumers (partition_id, consumer_group, queue_id, start_at, cursor_position, ready_to)
    SELECT b.id, p_group, p_queue_id, p_start, b.first_cursor, b.last_position
    FROM behind b WHERE NOT b.has_row
    ON CONFLICT DO NOTHING
    RETURNING partition_id
  )
  SELECT min(b.last_push_xid) INTO v_held FROM behind b
  WHERE b.id NOT IN (SELECT r.partition_id FROM raised r UNION ALL SELECT c.partition_id FROM created c);

  -- Never lowered (snapshot horizons only grow; the guard costs nothing).
  v_held := greatest(v_from, least(v_horizon, coalesce(v_held, v_horizon), coalesce(v_cut, v_horizon)));
  IF v_held <> v_from THEN
    UPDATE queen.ready_horizons h SET absorbed_below = v_held
    WHERE h.queue_id = p_queue_id AND h.consumer_group = p_group;
  END IF;
END;
$fn$;
