-- 006_admin: queue deletion and the status counters of queues and partitions.
--
-- Objects: functions queen.delete_queue, queen.backlog_above, queen.partition_counters.
--
-- Locking: delete_queue locks the queue row, then deletes partitions (waiting for running pushes, which
-- hold partition rows) and everything keyed by them; the hot tables carry no foreign keys (001), so the
-- cascade is spelled out here.

CREATE OR REPLACE FUNCTION queen.delete_queue(p_tenant text, p_name text)
RETURNS boolean LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  v_queue_id uuid;
  v_partitions uuid[];
BEGIN
  SELECT q.id INTO v_queue_id FROM queen.queues q WHERE q.tenant = p_tenant AND q.name = p_name FOR UPDATE;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  SELECT coalesce(array_agg(p.id ORDER BY p.name), '{}') INTO v_partitions
  FROM (SELECT p0.id, p0.name FROM queen.partitions p0 WHERE p0.queue_id = v_queue_id ORDER BY p0.name FOR UPDATE) p;

  DELETE FROM queen.messages WHERE partition_id = ANY (v_partitions);
  DELETE FROM queen.message_states WHERE partition_id = ANY (v_partitions);
  DELETE FROM queen.consumers WHERE queue_id = v_queue_id;
  DELETE FROM queen.dead_letters WHERE queue_id = v_queue_id;
  DELETE FROM queen.dedup_entries WHERE partition_id = ANY (v_partitions);
  DELETE FROM queen.traces WHERE partition_id = ANY (v_partitions);
  -- partitions and subscriptions follow through their foreign keys.
  DELETE FROM queen.queues WHERE id = v_queue_id;
  RETURN true;
END;
$fn$;

-- The number of stored messages of a partition above a position. Positions are handed out densely and
-- retention removes a partition's oldest rows first, so the stored positions are usually one unbroken span:
-- when the count of stored messages (partitions.message_count, 012) equals the span from the oldest stored
-- position to the head, there is no hole and the answer is arithmetic; otherwise (a single-message delete
-- left a hole) the rows are counted. The stats refresh asks this for partitions and groups every few
-- seconds, and counting a backlog of millions each time cost seconds of PostgreSQL CPU per refresh
-- (measured).
CREATE OR REPLACE FUNCTION queen.backlog_above(p_partition_id uuid, p_position bigint)
RETURNS bigint LANGUAGE plpgsql STABLE AS $fn$
DECLARE
  v_count bigint;
  v_next bigint;
  v_oldest bigint;
BEGIN
  SELECT p.message_count, p.next_position INTO v_count, v_next FROM queen.partitions p WHERE p.id = p_partition_id;
  IF coalesce(v_count, 0) = 0 THEN
    RETURN 0;
  END IF;
  SELECT m.position INTO v_oldest FROM queen.messages m WHERE m.partition_id = p_partition_id
  ORDER BY m.position LIMIT 1;
  IF v_oldest IS NOT NULL AND v_count = v_next - v_oldest THEN
    RETURN greatest(0, v_next - greatest(p_position + 1, v_oldest));
  END IF;
  RETURN (SELECT count(*) FROM queen.messages m WHERE m.partition_id = p_partition_id AND m.position > p_position);
END;
$fn$;

-- Status counters of one partition (docs/semantics.md, "Status counters"), relative to queue mode when it has a cursor
-- on the partition, else to the slowest known group; with no group every message is pending. The total comes from
-- partitions.message_count (012) and only the backlog above the cursor is counted, so the cost does not grow with the
-- partition's history.
CREATE OR REPLACE FUNCTION queen.partition_counters(p_partition_id uuid)
RETURNS TABLE (total bigint, pending bigint, processing bigint, completed bigint, failed bigint, dead_letter bigint)
LANGUAGE plpgsql STABLE ROWS 1 AS $fn$
#variable_conflict use_column
DECLARE
  g queen.consumers%ROWTYPE;
  v_settled_above bigint;
  v_above bigint;
BEGIN
  SELECT p.message_count INTO total FROM queen.partitions p WHERE p.id = p_partition_id;
  total := coalesce(total, 0);
  SELECT * INTO g FROM queen.consumers c WHERE c.partition_id = p_partition_id
  ORDER BY (c.consumer_group = '__QUEUE_MODE__') DESC, c.cursor_position ASC LIMIT 1;
  IF NOT FOUND THEN
    pending := total; processing := 0; completed := 0; failed := 0; dead_letter := 0;
    RETURN NEXT;
    RETURN;
  END IF;

  -- Only the backlog above the cursor is counted; everything at or below it is settled.
  v_above := queen.backlog_above(p_partition_id, g.cursor_position);
  SELECT count(*) FILTER (WHERE s.settled), count(*) FILTER (WHERE NOT s.settled AND s.failures > 0)
  INTO v_settled_above, failed
  FROM queen.message_states s
  JOIN queen.messages m ON m.partition_id = s.partition_id AND m.position = s.position
  WHERE s.partition_id = p_partition_id AND s.consumer_group = g.consumer_group AND s.position > g.cursor_position;
  SELECT count(*) INTO dead_letter FROM queen.dead_letters d
  WHERE d.partition_id = p_partition_id AND d.consumer_group = g.consumer_group;

  processing := 0;
  IF g.lease_id IS NOT NULL AND g.lease_expires_at > clock_timestamp() THEN
    SELECT count(*) INTO processing FROM queen.messages m
    LEFT JOIN queen.message_states s
      ON s.partition_id = m.partition_id AND s.consumer_group = g.consumer_group AND s.position = m.position
    WHERE m.partition_id = p_partition_id AND m.position > g.cursor_position AND m.position <= g.lease_to
      AND NOT coalesce(s.settled, false) AND s.outcome_lease_id IS DISTINCT FROM g.lease_id;
  END IF;
  completed := greatest(0, total - v_above + v_settled_above - dead_letter);
  pending := greatest(0, total - completed - dead_letter - processing - failed);
  RETURN NEXT;
END;
$fn$;
