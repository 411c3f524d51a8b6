-- 008_consumer_groups: consumer-group lag and seek (docs/semantics.md, "Seek" and "Lag").
--
-- Objects: functions queen.partition_group_lag, queen.consumer_lag, queen.seek_position,
-- queen.seek_consumer_group.
--
-- Locking: partition_group_lag and consumer_lag only read. seek_consumer_group takes the queue row FOR KEY
-- SHARE (so a concurrent queue delete, which locks it FOR UPDATE, cannot leave cursors behind under a deleted
-- queue, while pushes and configure, which take weaker row locks, are not blocked), creates the missing
-- consumer rows in partition id order, then locks the group's consumer rows FOR UPDATE in (partition id,
-- group) order, the canonical order of 001. It never locks partition rows, so a seek never waits for producers;
-- it waits for a pop or ack holding one of the rows, which is short.
--
-- Assumption: created_at never decreases along positions within a partition (pushes stamp it under the
-- partition lock that assigns positions); seek_position relies on it to binary-search by position, as
-- pop_messages (004) relies on it to skip a subscription's prefix.
--
-- Idempotent: CREATE OR REPLACE only.

-- Lag of one group on one partition: the messages above the cursor it has not settled, counting messages
-- created before p_start_at (a subscription start not yet passed) as settled, and the oldest of them.
-- Arithmetic (queen.backlog_above, 006) minus the sparse settled states when every message above the
-- cursor is past the start (created_at never decreases along positions, so checking the first is enough);
-- counted otherwise. The stats refresh calls it for every consumer row every few seconds.
CREATE OR REPLACE FUNCTION queen.partition_group_lag(p_partition_id uuid, p_group text, p_cursor bigint,
                                                     p_start_at timestamptz)
RETURNS TABLE (unsettled bigint, oldest timestamptz) LANGUAGE plpgsql STABLE AS $fn$
#variable_conflict use_column
DECLARE
  v_first_created timestamptz;
  v_settled bigint;
BEGIN
  SELECT m.created_at INTO v_first_created FROM queen.messages m
  WHERE m.partition_id = p_partition_id AND m.position > p_cursor ORDER BY m.position LIMIT 1;
  IF NOT FOUND THEN
    unsettled := 0;
    oldest := NULL;
    RETURN NEXT;
    RETURN;
  END IF;
  IF p_start_at IS NOT NULL AND v_first_created < p_start_at THEN
    RETURN QUERY
      SELECT count(*), min(m.created_at)
      FROM queen.messages m
      WHERE m.partition_id = p_partition_id AND m.position > p_cursor AND m.created_at >= p_start_at
        AND NOT EXISTS (SELECT 1 FROM queen.message_states st
                         WHERE st.partition_id = m.partition_id AND st.consumer_group = p_group
                           AND st.position = m.position AND st.settled);
    RETURN;
  END IF;
  SELECT count(*) INTO v_settled
  FROM queen.message_states st
  JOIN queen.messages m ON m.partition_id = st.partition_id AND m.position = st.position
  WHERE st.partition_id = p_partition_id AND st.consumer_group = p_group AND st.position > p_cursor AND st.settled;
  unsettled := queen.backlog_above(p_partition_id, p_cursor) - v_settled;
  SELECT m.created_at INTO oldest FROM queen.messages m
  WHERE m.partition_id = p_partition_id AND m.position > p_cursor
    AND NOT EXISTS (SELECT 1 FROM queen.message_states st
                     WHERE st.partition_id = m.partition_id AND st.consumer_group = p_group
                       AND st.position = m.position AND st.settled)
  ORDER BY m.position LIMIT 1;
  RETURN NEXT;
END;
$fn$;

-- Lag of every (partition, group) the tenant's groups are known on (docs/semantics.md, "Lag"): a group is known
-- on a queue when it has a consumer row or a subscription record there; queue mode only through consumer
-- rows. Partitions without a cursor of the group are measured from its subscription start (queue mode
-- and "all" groups: from the beginning), as the first pop there would deliver. offset_lag counts the
-- existing unsettled messages above the cursor; oldest_unsettled_at is the first one's created_at.
-- p_group NULL: every group.
CREATE OR REPLACE FUNCTION queen.consumer_lag(p_tenant text, p_group text)
RETURNS TABLE (queue_id uuid, queue_name text, partition_id uuid, partition_name text, consumer_group text,
               has_cursor boolean, offset_lag bigint, oldest_unsettled_at timestamptz, time_lag_seconds bigint,
               lease_active boolean, last_consumed_at timestamptz, total_consumed bigint)
LANGUAGE sql STABLE AS $fn$
  WITH known AS (
    SELECT k.queue_id AS qid, k.consumer_group AS grp
    FROM queen.consumers k JOIN queen.queues q0 ON q0.id = k.queue_id
    WHERE q0.tenant = p_tenant AND (p_group IS NULL OR k.consumer_group = p_group)
    UNION
    SELECT s0.queue_id, s0.consumer_group
    FROM queen.subscriptions s0 JOIN queen.queues q1 ON q1.id = s0.queue_id
    WHERE q1.tenant = p_tenant AND (p_group IS NULL OR s0.consumer_group = p_group)
  )
  SELECT q.id, q.name, p.id, p.name, g.grp, c.partition_id IS NOT NULL, l.unsettled, l.oldest,
         CASE WHEN l.oldest IS NULL THEN 0
              ELSE greatest(0, floor(extract(epoch FROM now() - l.oldest)))::bigint END,
         coalesce(c.lease_id IS NOT NULL AND c.lease_expires_at > now(), false),
         c.last_consumed_at, coalesce(c.total_consumed, 0)
  FROM known g
  JOIN queen.queues q ON q.id = g.qid
  JOIN queen.partitions p ON p.queue_id = g.qid
  LEFT JOIN queen.consumers c ON c.partition_id = p.id AND c.consumer_group = g.grp
  LEFT JOIN queen.subscriptions s ON s.queue_id = g.qid AND s.consumer_group = g.grp
  -- Messages created before a start not yet passed count as settled (004).
  CROSS JOIN LATERAL queen.partition_group_lag(p.id, g.grp, coalesce(c.cursor_position, 0),
                                               CASE WHEN c.partition_id IS NOT NULL THEN c.start_at
                                                    ELSE s.start_at END) l
$fn$;

-- The cursor of a seek to p_timestamp on one partition: every existing message at or below it was
-- created at or before p_timestamp, every one above it after (docs/semantics.md, "Seek"). Binary search on
-- positions, one primary-key probe per step, so seeking far back in a long partition costs O(log n)
-- instead of a scan (messages have no created_at index, and adding one would tax every push). The
-- result is then moved up over deleted positions, so no cursor is left below a gap with nothing to
-- deliver: the epoch gives 0 on a partition whose first message is still at position 1.
CREATE OR REPLACE FUNCTION queen.seek_position(p_partition_id uuid, p_timestamp timestamptz)
RETURNS bigint LANGUAGE plpgsql STABLE AS $fn$
DECLARE
  v_head bigint;
  v_lo bigint := 0;
  v_hi bigint;
  v_mid bigint;
  v_pos bigint;
  v_created timestamptz;
BEGIN
  SELECT p.next_position - 1 INTO v_head FROM queen.partitions p WHERE p.id = p_partition_id;
  v_hi := v_head;
  -- Invariant: existing messages at or below v_lo are <= p_timestamp, those above v_hi are after it.
  WHILE v_lo < v_hi LOOP
    v_mid := v_lo + (v_hi - v_lo + 1) / 2;
    SELECT m.position, m.created_at INTO v_pos, v_created FROM queen.messages m
    WHERE m.partition_id = p_partition_id AND m.position >= v_mid AND m.position <= v_hi
    ORDER BY m.position LIMIT 1;
    IF NOT FOUND THEN
      v_hi := v_mid - 1;
    ELSIF v_created <= p_timestamp THEN
      v_lo := v_pos;
    ELSE
      v_hi := v_pos - 1;
    END IF;
  END LOOP;
  RETURN coalesce((SELECT m.position - 1 FROM queen.messages m
                   WHERE m.partition_id = p_partition_id AND m.position > v_lo
                   ORDER BY m.position LIMIT 1), v_head);
END;
$fn$;

-- Seeks a group on every partition of a queue (p_partition NULL), or on one partition by name, to the
-- partition head (p_to_end) or to p_timestamp (docs/semantics.md, "Seek"). Partitions the group never read get a
-- consumer row, so the seek also overrides the subscription there. The group's leases on those rows are
-- released (later acks under them are refused), its per-message state there (failure counts, retry
-- times, out-of-order settled marks) is deleted, and a pending subscription start is cleared; DLQ
-- entries stay. queue_id NULL: no such queue; partitions_updated 0 with a partition name: no such
-- partition. cursor_moved_to: the highest new cursor (the one partition's, for a partition seek).
CREATE OR REPLACE FUNCTION queen.seek_consumer_group(p_tenant text, p_queue text, p_group text, p_partition text,
                                                     p_to_end boolean, p_timestamp timestamptz,
                                                     OUT queue_id uuid, OUT partitions_updated integer,
                                                     OUT cursor_moved_to bigint)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  v_queue_id uuid;
  v_partitions uuid[];
BEGIN
  partitions_updated := 0;
  SELECT q.id INTO v_queue_id FROM queen.queues q WHERE q.tenant = p_tenant AND q.name = p_queue FOR KEY SHARE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  queue_id := v_queue_id;

  SELECT coalesce(array_agg(p.id ORDER BY p.id), '{}') INTO v_partitions FROM queen.partitions p
  WHERE p.queue_id = v_queue_id AND (p_partition IS NULL OR p.name = p_partition);
  IF cardinality(v_partitions) = 0 THEN
    RETURN;
  END IF;
  -- Cursors may move back: wildcard pops must read candidates from the start (015); before any consumer row
  -- is locked, the lock order of absorption.
  PERFORM queen.lower_ready_scan(v_queue_id, p_group);

  INSERT INTO queen.consumers (partition_id, consumer_group, queue_id)
  SELECT u.id, p_group, v_queue_id FROM unnest(v_partitions) AS u(id)
  ORDER BY u.id
  ON CONFLICT (partition_id, consumer_group) DO NOTHING;
  PERFORM 1 FROM queen.consumers k
  WHERE k.partition_id = ANY (v_partitions) AND k.consumer_group = p_group
  ORDER BY k.partition_id
  FOR UPDATE;

  WITH moved AS (
    UPDATE queen.consumers k
    SET cursor_position = CASE WHEN p_to_end
                               THEN (SELECT p.next_position - 1 FROM queen.partitions p WHERE p.id = k.partition_id)
                               ELSE queen.seek_position(k.partition_id, p_timestamp) END,
        start_at = NULL, lease_id = NULL, lease_expires_at = NULL, lease_to = NULL
    WHERE k.partition_id = ANY (v_partitions) AND k.consumer_group = p_group
    RETURNING k.cursor_position
  )
  SELECT count(*)::integer, max(mv.cursor_position) INTO partitions_updated, cursor_moved_to FROM moved mv;

  DELETE FROM queen.message_states s WHERE s.partition_id = ANY (v_partitions) AND s.consumer_group = p_group;
END;
$fn$;
