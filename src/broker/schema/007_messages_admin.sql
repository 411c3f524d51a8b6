-- 007_messages_admin: per-message administration and the message status of one group (docs/http-api.md, "Clear a
-- queue" and "Messages, DLQ and traces"; docs/semantics.md, "Failures and the dead-letter queue" and "Status
-- counters").
--
-- Objects: functions queen.message_group_status, queen.message_bus_status, queen.partition_newest_messages,
-- queen.release_idle_lease, queen.delete_message, queen.clear_queue (whole queue or one partition; two
-- signatures), queen.retry_message, queen.dead_letter_message.
--
-- Locking: follows the canonical order of 001 (queue row, partition rows by name, consumer rows by
-- (partition id, group)). delete_message locks the partition's consumer rows (and the queue row first when
-- the queue keeps a maxSize counter); clear_queue locks the queue row, the partition rows it clears (so no
-- push lands between deleting the messages and moving the cursors to the partition heads) and their consumer
-- rows; retry_message locks the consumer rows of the groups it requeues for, or, when only a DLQ payload
-- copy is left, no consumer row at all and lets queen.push_messages lock the partition row;
-- dead_letter_message locks the one consumer row of its group. None of them waits on a consumer row while
-- holding a partition row it did not take in that order, so they cannot deadlock with push, pop, ack or
-- transactions.
--
-- Several messages of a partition can share a transaction id once the dedup window has passed. Delete and
-- get act on the newest one; the DLQ move uses the ack rule (the oldest one above the group's cursor, else
-- the newest); retry acts on the newest one the group holds in the DLQ.

-- The status of one message for one group (docs/http-api.md, "List messages"): dead_letter when the group holds a DLQ
-- entry for it; completed when it is settled for the group (at or below the cursor, settled out of order, or created
-- before the group's subscription start); processing while a live lease of the group covers it without an outcome yet;
-- otherwise pending (including a message waiting for its retry after a failure). A group without a cursor on the
-- partition has settled nothing except what precedes its subscription.
CREATE OR REPLACE FUNCTION queen.message_group_status(p_partition_id uuid, p_position bigint,
                                                      p_created_at timestamptz, p_group text)
RETURNS text LANGUAGE sql STABLE AS $fn$
  SELECT CASE
    WHEN EXISTS (SELECT 1 FROM queen.dead_letters d
                 WHERE d.partition_id = p_partition_id AND d.position = p_position AND d.consumer_group = p_group)
      THEN 'dead_letter'
    WHEN c.partition_id IS NULL THEN
      CASE WHEN p_created_at < (SELECT s.start_at FROM queen.subscriptions s
                                JOIN queen.partitions p ON p.queue_id = s.queue_id
                                WHERE p.id = p_partition_id AND s.consumer_group = p_group)
           OR coalesce(st.settled, false)
        THEN 'completed' ELSE 'pending' END
    WHEN p_position <= c.cursor_position OR coalesce(st.settled, false) OR p_created_at < c.start_at THEN 'completed'
    WHEN c.lease_id IS NOT NULL AND c.lease_expires_at > clock_timestamp() AND p_position <= c.lease_to
         AND st.outcome_lease_id IS DISTINCT FROM c.lease_id THEN 'processing'
    ELSE 'pending'
  END
  FROM (SELECT 1) AS one
  LEFT JOIN queen.consumers c ON c.partition_id = p_partition_id AND c.consumer_group = p_group
  LEFT JOIN queen.message_states st
    ON st.partition_id = p_partition_id AND st.consumer_group = p_group AND st.position = p_position
$fn$;

-- For GET /api/v1/messages: the newest messages of one partition with a position in (p_above, p_upto] and
-- created in [p_from, p_to], with their status for p_group when p_status is set and only those with that
-- status; at most p_limit rows, newest first. A loop over a cursor rather than one statement: the cursor
-- reads the primary key backwards and the loop stops after p_limit matches, so a status is computed only for
-- the rows read. The planner cannot know how wide the position range is and estimates it small, so left to
-- itself it read the whole range with a bitmap scan and sorted it (as one statement it also computed the
-- status of every row: 100 s on 2 million messages; as this loop, 2 s): bitmap scans and sorts are off here,
-- which leaves the backward primary-key scan.
CREATE OR REPLACE FUNCTION queen.partition_newest_messages(p_partition_id uuid, p_above bigint, p_upto bigint,
                                                           p_from timestamptz, p_to timestamptz, p_group text,
                                                           p_status text, p_limit bigint)
RETURNS TABLE (m_id uuid, m_position bigint, m_transaction_id text, m_trace_id uuid, m_producer_sub text,
               m_created_at timestamptz, m_status text)
LANGUAGE plpgsql STABLE SET enable_bitmapscan = off SET enable_sort = off SET jit = off AS $fn$
DECLARE
  r record;
  v_found bigint := 0;
BEGIN
  IF p_limit <= 0 OR p_upto <= p_above THEN
    RETURN;
  END IF;
  FOR r IN
    SELECT x.id, x.position, x.transaction_id, x.trace_id, x.producer_sub, x.created_at
    FROM queen.messages x
    WHERE x.partition_id = p_partition_id AND x.position > p_above AND x.position <= p_upto
    ORDER BY x.position DESC
  LOOP
    -- created_at never decreases along positions: below the window's start nothing further matches.
    EXIT WHEN r.created_at < p_from;
    CONTINUE WHEN p_to IS NOT NULL AND r.created_at > p_to;
    m_status := CASE WHEN p_status IS NOT NULL
                     THEN queen.message_group_status(p_partition_id, r.position, r.created_at, p_group) END;
    CONTINUE WHEN m_status IS DISTINCT FROM p_status;
    m_id := r.id; m_position := r.position; m_transaction_id := r.transaction_id; m_trace_id := r.trace_id;
    m_producer_sub := r.producer_sub; m_created_at := r.created_at;
    RETURN NEXT;
    v_found := v_found + 1;
    EXIT WHEN v_found >= p_limit;
  END LOOP;
END;
$fn$;

-- How many named groups (fan-out, "bus" groups) know the message's queue, and how many of them are done
-- with the message (completed or dead-lettered). Known groups: those with a cursor on the partition plus
-- those subscribed to the queue, as for completed retention (docs/semantics.md, "Retention, eviction and cleanup").
CREATE OR REPLACE FUNCTION queen.message_bus_status(p_partition_id uuid, p_position bigint, p_created_at timestamptz,
                                                    OUT consumed_by integer, OUT total_groups integer)
LANGUAGE sql STABLE AS $fn$
  SELECT (count(*) FILTER (WHERE queen.message_group_status(p_partition_id, p_position, p_created_at, g.consumer_group)
                                 IN ('completed', 'dead_letter')))::integer,
         count(*)::integer
  FROM (SELECT c.consumer_group FROM queen.consumers c
        WHERE c.partition_id = p_partition_id AND c.consumer_group <> '__QUEUE_MODE__'
        UNION
        SELECT s.consumer_group FROM queen.subscriptions s
        JOIN queen.partitions p ON p.queue_id = s.queue_id
        WHERE p.id = p_partition_id AND s.consumer_group <> '__QUEUE_MODE__') g
$fn$;

-- Releases the live lease of (partition, group) when no message delivered under it is still open, as an ack
-- does after the last outcome (docs/semantics.md, "Ack statuses"). Expired leases are left to the reclaim cycle, which
-- records them for "Lease already expired" answers. The caller holds the consumer row's lock. True when released.
CREATE OR REPLACE FUNCTION queen.release_idle_lease(p_partition_id uuid, p_group text)
RETURNS boolean LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
BEGIN
  UPDATE queen.consumers k SET lease_id = NULL, lease_expires_at = NULL, lease_to = NULL
  WHERE k.partition_id = p_partition_id AND k.consumer_group = p_group
    AND k.lease_id IS NOT NULL AND k.lease_expires_at > clock_timestamp()
    AND NOT queen.lease_has_open_messages(k.partition_id, k.consumer_group, k.cursor_position, k.lease_to, k.lease_id);
  RETURN FOUND;
END;
$fn$;

-- DELETE /api/v1/messages/:partitionId/:transactionId (docs/http-api.md, "Delete a message"). Deletes the newest
-- message with that transaction id, its DLQ entries (payload copies included), its traces and every group's state for
-- it; when retention already deleted the message and only a DLQ payload copy is left, the copy is what gets deleted. A
-- message still inside the dedup window leaves a dedup entry, so a producer retry stays a duplicate (docs/semantics.md,
-- "Transaction ids and deduplication"). The deleted message counts as settled for every group: each cursor moves over
-- it if it was the first open position, and a live lease left with nothing open is released, so nothing waits for a
-- message that no longer exists. deleted is false when neither the message nor a DLQ copy exists in the tenant.
CREATE OR REPLACE FUNCTION queen.delete_message(p_tenant text, p_partition_id uuid, p_transaction_id text,
                                                OUT deleted boolean, OUT queue_name text, OUT partition_name text,
                                                OUT leases_released integer)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  v_queue_id uuid;
  v_window integer;
  v_max_size bigint;
  v_position bigint;
  v_message_id uuid;
  v_accepted_at timestamptz;
  g record;
BEGIN
  deleted := false;
  leases_released := 0;
  SELECT q.id, q.name, p.name, q.dedup_window_seconds, q.max_size
  INTO v_queue_id, queue_name, partition_name, v_window, v_max_size
  FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
  WHERE p.id = p_partition_id AND q.tenant = p_tenant;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  -- The maxSize counter lives on the queue row, which comes first in the canonical order.
  IF v_max_size > 0 THEN
    PERFORM 1 FROM queen.queues q WHERE q.id = v_queue_id FOR UPDATE;
  END IF;
  -- Every group's row, so no pop or ack of the partition runs between the delete and the cursor moves.
  PERFORM 1 FROM queen.consumers k WHERE k.partition_id = p_partition_id ORDER BY k.consumer_group FOR UPDATE;

  SELECT m.position, m.id, m.accepted_at INTO v_position, v_message_id, v_accepted_at
  FROM queen.messages m
  WHERE m.partition_id = p_partition_id AND m.transaction_id = p_transaction_id
  ORDER BY m.position DESC LIMIT 1;
  IF FOUND THEN
    IF v_window > 0 AND v_accepted_at >= clock_timestamp() - make_interval(secs => v_window) THEN
      INSERT INTO queen.dedup_entries AS e (partition_id, transaction_id, message_id, accepted_at)
      VALUES (p_partition_id, p_transaction_id, v_message_id, v_accepted_at)
      ON CONFLICT (partition_id, transaction_id) DO UPDATE
        SET message_id = EXCLUDED.message_id, accepted_at = EXCLUDED.accepted_at
        WHERE e.accepted_at < EXCLUDED.accepted_at;
    END IF;
    DELETE FROM queen.messages m WHERE m.partition_id = p_partition_id AND m.position = v_position;
    UPDATE queen.queues q SET stored_messages = greatest(0, q.stored_messages - 1)
    WHERE q.id = v_queue_id AND q.max_size > 0;
    UPDATE queen.partitions p SET message_count = greatest(0, p.message_count - 1) WHERE p.id = p_partition_id;
  ELSE
    SELECT d.position, d.message_id INTO v_position, v_message_id
    FROM queen.dead_letters d
    WHERE d.partition_id = p_partition_id AND d.transaction_id = p_transaction_id
    ORDER BY d.position DESC LIMIT 1;
    IF NOT FOUND THEN
      RETURN;
    END IF;
  END IF;
  deleted := true;

  DELETE FROM queen.dead_letters d WHERE d.partition_id = p_partition_id AND d.position = v_position;
  DELETE FROM queen.traces t WHERE t.partition_id = p_partition_id AND t.message_id = v_message_id;
  DELETE FROM queen.message_states s WHERE s.partition_id = p_partition_id AND s.position = v_position;

  FOR g IN
    SELECT k.consumer_group FROM queen.consumers k WHERE k.partition_id = p_partition_id ORDER BY k.consumer_group
  LOOP
    PERFORM queen.settle_forward(p_partition_id, g.consumer_group);
    IF queen.release_idle_lease(p_partition_id, g.consumer_group) THEN
      leases_released := leases_released + 1;
    END IF;
  END LOOP;
END;
$fn$;

-- DELETE /api/v1/queues/:queue/clear[?partition=] (docs/http-api.md, "Clear a queue"). Deletes every message of the
-- queue, or of its partition named p_partition when that is not NULL, with their DLQ entries (payload copies included),
-- traces and per-group state; keeps the queue, its options, partitions, subscriptions and consumer rows. Cursors of the
-- cleared partitions move to their heads and their leases are released; other partitions are not touched (their leases
-- stay live). Messages still inside the dedup window leave dedup entries, so a producer retry stays a duplicate. The
-- counters follow: the cleared partitions' message_count becomes 0 and the queue's maxSize counter drops by the
-- messages deleted (to 0 for the whole queue). Returns the number of messages deleted, or NULL when the queue does not
-- exist in the tenant; a partition the queue does not have has nothing to clear (0).
--
-- Two signatures rather than one with a defaulted p_partition: a (text, text, text DEFAULT NULL) function
-- next to the (text, text) one an installed schema (or a broker of the previous version re-applying its
-- own 007 during a rolling upgrade) already holds would make every two-argument call ambiguous. So the
-- three-argument function does the work and the two-argument one, the old signature, clears the whole queue
-- through it; both stay CREATE OR REPLACE.
CREATE OR REPLACE FUNCTION queen.clear_queue(p_tenant text, p_name text, p_partition text)
RETURNS bigint LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  v_queue_id uuid;
  v_window integer;
  v_partitions uuid[];
  v_deleted bigint;
BEGIN
  SELECT q.id, q.dedup_window_seconds INTO v_queue_id, v_window
  FROM queen.queues q WHERE q.tenant = p_tenant AND q.name = p_name FOR UPDATE;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  -- Partition rows are what pushes lock to take positions: holding them keeps the heads still until commit.
  SELECT coalesce(array_agg(p.id ORDER BY p.name), '{}') INTO v_partitions
  FROM (SELECT p0.id, p0.name FROM queen.partitions p0
        WHERE p0.queue_id = v_queue_id AND (p_partition IS NULL OR p0.name = p_partition)
        ORDER BY p0.name FOR UPDATE) p;
  IF p_partition IS NOT NULL AND cardinality(v_partitions) = 0 THEN
    RETURN 0;
  END IF;
  PERFORM 1 FROM queen.consumers k
  WHERE k.queue_id = v_queue_id AND (p_partition IS NULL OR k.partition_id = ANY (v_partitions))
  ORDER BY k.partition_id, k.consumer_group FOR UPDATE;

  IF v_window > 0 THEN
    INSERT INTO queen.dedup_entries AS e (partition_id, transaction_id, message_id, accepted_at)
    SELECT DISTINCT ON (m.partition_id, m.transaction_id) m.partition_id, m.transaction_id, m.id, m.accepted_at
    FROM queen.messages m
    WHERE m.partition_id = ANY (v_partitions)
      AND m.accepted_at >= clock_timestamp() - make_interval(secs => v_window)
    ORDER BY m.partition_id, m.transaction_id, m.accepted_at DESC
    ON CONFLICT (partition_id, transaction_id) DO UPDATE
      SET message_id = EXCLUDED.message_id, accepted_at = EXCLUDED.accepted_at
      WHERE e.accepted_at < EXCLUDED.accepted_at;
  END IF;

  DELETE FROM queen.traces t WHERE t.partition_id = ANY (v_partitions);
  DELETE FROM queen.dead_letters d
  WHERE d.queue_id = v_queue_id AND (p_partition IS NULL OR d.partition_id = ANY (v_partitions));
  DELETE FROM queen.message_states s WHERE s.partition_id = ANY (v_partitions);
  DELETE FROM queen.messages m WHERE m.partition_id = ANY (v_partitions);
  GET DIAGNOSTICS v_deleted = ROW_COUNT;

  UPDATE queen.consumers k
  SET cursor_position = greatest(k.cursor_position, p.next_position - 1),
      lease_id = NULL, lease_expires_at = NULL, lease_to = NULL
  FROM queen.partitions p
  WHERE p.id = k.partition_id AND k.queue_id = v_queue_id
    AND (p_partition IS NULL OR k.partition_id = ANY (v_partitions));
  IF p_partition IS NULL THEN
    UPDATE queen.queues q SET stored_messages = 0 WHERE q.id = v_queue_id;
  ELSE
    -- The counter is kept only while a cap is set (001), as queen.delete_message decrements it.
    UPDATE queen.queues q SET stored_messages = greatest(0, q.stored_messages - v_deleted)
    WHERE q.id = v_queue_id AND q.max_size > 0;
  END IF;
  UPDATE queen.partitions p SET message_count = 0 WHERE p.id = ANY (v_partitions);
  RETURN v_deleted;
END;
$fn$;

-- The signature of earlier brokers: clears the whole queue.
CREATE OR REPLACE FUNCTION queen.clear_queue(p_tenant text, p_name text)
RETURNS bigint LANGUAGE sql AS $fn$
  SELECT queen.clear_queue(p_tenant, p_name, NULL::text)
$fn$;

-- POST /api/v1/messages/:partitionId/:transactionId/retry (docs/http-api.md, "Retry a message"). Takes the message out
-- of the DLQ of p_group (or of every group holding it, when NULL) and makes it deliverable to those groups again, ahead
-- of their next message, with its failure count back at 0. No row: the message is not in the DLQ of that group.
--
-- Model. The DLQ entry settled the message for the group, so the group's cursor may have passed it since.
-- For each group: if the cursor is at or above the message, it moves back to (position - 1) and every
-- existing message in (position, old cursor] gets an out-of-order "settled" mark in queen.message_states,
-- so exactly this one message is delivered again and nothing else is; the cursor invariant holds (every
-- message at or below position - 1 was settled already). The cost is one state row per message the cursor
-- had passed, which an operator's retry can afford, and settle_forward folds them away once the message
-- is acked. Then the message's own state row becomes unsettled with 0 failures and no retry time. If a live
-- lease of the group covers the position (it was dead-lettered during that lease, or the cursor moved back
-- into the lease's range), the row records that lease as having had its outcome, as a `retry` ack does:
-- the holder never received this delivery, so the lease must neither wait for it nor count a failure on
-- it when it expires.
--
-- Copy only. When retention already deleted the message and the queue kept DLQ payload copies, the copy is
-- pushed as a new message to the same partition through queen.push_messages (replay mode: the payload is
-- stored as it was copied, ciphertext included, and caps do not refuse a message that was accepted once),
-- with the new id and transaction id the broker generated; it reaches every group. Its transaction id is
-- returned in new_transaction_id.
CREATE OR REPLACE FUNCTION queen.retry_message(p_tenant text, p_partition_id uuid, p_transaction_id text,
                                               p_group text, p_new_id uuid, p_new_transaction_id text)
RETURNS TABLE (queue_name text, partition_name text, consumer_groups text[], new_transaction_id text)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  v_qname text;
  v_pname text;
  v_position bigint;
  v_groups text[];
  v_group text;
  v_has_consumer boolean;
  v_lease_covers boolean;
  c queen.consumers%ROWTYPE;
  v_copy queen.dead_letters%ROWTYPE;
  v_pushed record;
BEGIN
  SELECT q.name, p.name INTO v_qname, v_pname
  FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
  WHERE p.id = p_partition_id AND q.tenant = p_tenant;
  IF NOT FOUND THEN
    RETURN;
  END IF;

  SELECT d.position INTO v_position FROM queen.dead_letters d
  WHERE d.partition_id = p_partition_id AND d.transaction_id = p_transaction_id
    AND (p_group IS NULL OR d.consumer_group = p_group)
  ORDER BY d.position DESC LIMIT 1;
  IF NOT FOUND THEN
    RETURN;
  END IF;

  IF NOT EXISTS (SELECT 1 FROM queen.messages m WHERE m.partition_id = p_partition_id AND m.position = v_position) THEN
    SELECT d.* INTO v_copy FROM queen.dead_letters d
    WHERE d.partition_id = p_partition_id AND d.position = v_position AND d.has_payload_copy
      AND (p_group IS NULL OR d.consumer_group = p_group)
    ORDER BY d.consumer_group LIMIT 1;
    IF NOT FOUND THEN
      -- Neither the message nor a copy of its payload is left: there is nothing to deliver again.
      RETURN;
    END IF;
    WITH removed AS (
      DELETE FROM queen.dead_letters d
      WHERE d.partition_id = p_partition_id AND d.position = v_position AND d.has_payload_copy
        AND (p_group IS NULL OR d.consumer_group = p_group)
      RETURNING d.consumer_group
    )
    SELECT coalesce(array_agg(r.consumer_group ORDER BY r.consumer_group), '{}') INTO v_groups FROM removed r;
    IF cardinality(v_groups) = 0 THEN
      RETURN;
    END IF;
    SELECT x.status, x.error INTO v_pushed
    FROM queen.push_messages(p_tenant, jsonb_build_array(jsonb_build_object(
      'i', 0, 'q', v_qname, 'p', v_pname, 'id', p_new_id, 'tx', p_new_transaction_id, 'gen', true,
      'tr', v_copy.trace_id, 'sub', v_copy.producer_sub, 'pl', v_copy.payload, 'enc', v_copy.is_encrypted)), true) x;
    IF v_pushed.status IS DISTINCT FROM 'queued' THEN
      RAISE EXCEPTION 'dead-letter copy was not stored again: %', coalesce(v_pushed.error, v_pushed.status);
    END IF;
    RETURN QUERY SELECT v_qname, v_pname, v_groups, p_new_transaction_id;
    RETURN;
  END IF;

  -- Cursors may move back: wildcard pops of those groups must read candidates from the start (015); before
  -- any consumer row is locked, the lock order of absorption.
  PERFORM queen.lower_ready_scan(pp.queue_id, d.consumer_group)
  FROM queen.dead_letters d JOIN queen.partitions pp ON pp.id = d.partition_id
  WHERE d.partition_id = p_partition_id AND d.position = v_position AND (p_group IS NULL OR d.consumer_group = p_group)
  ORDER BY d.consumer_group;
  PERFORM 1 FROM queen.consumers k
  WHERE k.partition_id = p_partition_id
    AND k.consumer_group IN (SELECT d.consumer_group FROM queen.dead_letters d
                             WHERE d.partition_id = p_partition_id AND d.position = v_position
                               AND (p_group IS NULL OR d.consumer_group = p_group))
  ORDER BY k.consumer_group FOR UPDATE;
  -- The delete decides which groups are requeued: a concurrent retry of the same entry finds it gone.
  WITH removed AS (
    DELETE FROM queen.dead_letters d
    WHERE d.partition_id = p_partition_id AND d.position = v_position
      AND (p_group IS NULL OR d.consumer_group = p_group)
    RETURNING d.consumer_group
  )
  SELECT coalesce(array_agg(r.consumer_group ORDER BY r.consumer_group), '{}') INTO v_groups FROM removed r;
  IF cardinality(v_groups) = 0 THEN
    RETURN;
  END IF;

  FOREACH v_group IN ARRAY v_groups LOOP
    SELECT * INTO c FROM queen.consumers k WHERE k.partition_id = p_partition_id AND k.consumer_group = v_group;
    v_has_consumer := FOUND;
    IF v_has_consumer AND c.cursor_position >= v_position THEN
      INSERT INTO queen.message_states AS s (partition_id, consumer_group, position, settled)
      SELECT m.partition_id, v_group, m.position, true FROM queen.messages m
      WHERE m.partition_id = p_partition_id AND m.position > v_position AND m.position <= c.cursor_position
      ON CONFLICT (partition_id, consumer_group, position) DO UPDATE SET settled = true, retry_at = NULL;
      UPDATE queen.consumers k SET cursor_position = v_position - 1
      WHERE k.partition_id = p_partition_id AND k.consumer_group = v_group;
    END IF;
    v_lease_covers := v_has_consumer AND c.lease_id IS NOT NULL AND c.lease_expires_at > clock_timestamp()
                      AND v_position <= c.lease_to;
    INSERT INTO queen.message_states AS s (partition_id, consumer_group, position, settled, failures, retry_at,
                                           last_error, outcome_lease_id)
    VALUES (p_partition_id, v_group, v_position, false, 0, NULL, NULL, CASE WHEN v_lease_covers THEN c.lease_id END)
    ON CONFLICT (partition_id, consumer_group, position) DO UPDATE
      SET settled = false, failures = 0, retry_at = NULL, last_error = NULL,
          outcome_lease_id = EXCLUDED.outcome_lease_id;
  END LOOP;
  RETURN QUERY SELECT v_qname, v_pname, v_groups, NULL::text;
END;
$fn$;

-- POST /api/v1/messages/:partitionId/:transactionId/dlq (docs/http-api.md, "Dead-letter a message"). Dead-letters the
-- message for one group with the given error and its failure count so far, settles it for that group (the cursor moves
-- over it when it was the first open position) and releases the group's live lease when nothing else it delivered is
-- open. A later ack of it answers alreadyAcked, as for any settled message. A group that has no cursor on the partition
-- yet gets the DLQ entry and the settled mark only: creating its consumer row here
-- would bypass the subscription its first pop records. outcome: moved | not_found | already_settled.
CREATE OR REPLACE FUNCTION queen.dead_letter_message(p_tenant text, p_partition_id uuid, p_transaction_id text,
                                                     p_group text, p_error text,
                                                     OUT outcome text, OUT queue_name text, OUT partition_name text,
                                                     OUT lease_released boolean)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  c queen.consumers%ROWTYPE;
  v_has_consumer boolean;
  v_position bigint;
  v_created_at timestamptz;
  v_failures integer;
BEGIN
  outcome := 'not_found';
  lease_released := false;
  SELECT q.name, p.name INTO queue_name, partition_name
  FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
  WHERE p.id = p_partition_id AND q.tenant = p_tenant;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT * INTO c FROM queen.consumers k
  WHERE k.partition_id = p_partition_id AND k.consumer_group = p_group FOR UPDATE;
  v_has_consumer := FOUND;

  SELECT m.position, m.created_at INTO v_position, v_created_at FROM queen.messages m
  WHERE m.partition_id = p_partition_id AND m.transaction_id = p_transaction_id
  ORDER BY (m.position > coalesce(c.cursor_position, 0)) DESC,
           CASE WHEN m.position > coalesce(c.cursor_position, 0) THEN m.position ELSE -m.position END
  LIMIT 1;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF queen.message_group_status(p_partition_id, v_position, v_created_at, p_group) IN ('completed', 'dead_letter') THEN
    outcome := 'already_settled';
    RETURN;
  END IF;

  SELECT s.failures INTO v_failures FROM queen.message_states s
  WHERE s.partition_id = p_partition_id AND s.consumer_group = p_group AND s.position = v_position;
  PERFORM queen.dead_letter(p_partition_id, v_position, p_group, p_error, coalesce(v_failures, 0));
  outcome := 'moved';
  IF v_has_consumer THEN
    PERFORM queen.settle_forward(p_partition_id, p_group);
    lease_released := queen.release_idle_lease(p_partition_id, p_group);
  END IF;
END;
$fn$;
