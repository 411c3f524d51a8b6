-- 005_ack: queen.ack_messages(), one call per ack batch (docs/semantics.md, "Ack"). Whole leases acked as
-- completed take queen.ack_leases_drained (014) first.
--
-- Objects: function queen.ack_messages.
--
-- Locking: locks every consumer row (partition, group) the batch touches, in (partition id, group)
-- order, before changing anything; never locks partition rows.
--
-- Items (one JSON object each): i (index in the batch), t (tenant; a partition of another tenant answers
-- 'Message not found'), pid (partition id), tx (transaction id), g (group),
-- l (lease id or null), st (completed | failed | dlq | retry), err (error text or null).
--
-- Rules: an ack with a lease id applies only while that lease is live on (partition, group) and covers
-- the message; without one, only while some live lease covers it. Settling moves the cursor over
-- contiguously settled positions only, never backwards. Failures are counted per (message, group); the
-- failure that exceeds retryLimit dead-letters. A lease is released once every message it delivered
-- has an outcome. Items are independent: each answers on its own, in request order.

CREATE OR REPLACE FUNCTION queen.ack_messages(p_items jsonb)
RETURNS TABLE (idx integer, success boolean, error text, lease_released boolean, dlq boolean, already_acked boolean,
               queue_name text, partition_name text)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  v_now timestamptz := clock_timestamp();
  it record;
  c queen.consumers%ROWTYPE;
  st queen.message_states%ROWTYPE;
  v_has_consumer boolean;
  v_has_state boolean;
  v_pid uuid := NULL;
  v_tenant text := NULL;
  v_qname text;
  v_pname text;
  v_retry_limit integer;
  v_retry_delay_ms integer;
  v_position bigint;
  v_failures integer;
  v_live boolean;
  v_settle boolean;
  v_new_cursor bigint;
  o_success boolean;
  o_error text;
  o_released boolean;
  o_dlq boolean;
  o_already boolean;
BEGIN
  -- Lock every consumer row the batch touches, in (partition id, group) order, before changing anything
  -- (whole leases acked as completed take the cheaper queen.ack_leases_drained() before they reach this function).
  PERFORM 1 FROM queen.consumers k
  WHERE (k.partition_id, k.consumer_group) IN (SELECT x.pid, x.g
                                               FROM jsonb_to_recordset(p_items) AS x(pid uuid, g text))
  ORDER BY k.partition_id, k.consumer_group
  FOR UPDATE;

  FOR it IN
    SELECT x.* FROM jsonb_to_recordset(p_items) AS x(i integer, t text, pid uuid, tx text, g text, l uuid, st text, err text)
    ORDER BY x.i
  LOOP
    o_success := false; o_error := NULL; o_released := NULL; o_dlq := false; o_already := false;

    IF v_pid IS DISTINCT FROM it.pid OR v_tenant IS DISTINCT FROM coalesce(it.t, '') THEN
      SELECT pp.name, qq.name, qq.retry_limit, qq.retry_delay_ms INTO v_pname, v_qname, v_retry_limit, v_retry_delay_ms
      FROM queen.partitions pp JOIN queen.queues qq ON qq.id = pp.queue_id
      WHERE pp.id = it.pid AND qq.tenant = coalesce(it.t, '');
      IF NOT FOUND THEN
        v_pname := NULL; v_qname := NULL;
      END IF;
      v_pid := it.pid;
      v_tenant := coalesce(it.t, '');
    END IF;

    <<item>>
    BEGIN
      IF v_qname IS NULL THEN
        o_error := 'Message not found';
        EXIT item;
      END IF;

      SELECT * INTO c FROM queen.consumers k WHERE k.partition_id = it.pid AND k.consumer_group = it.g;
      v_has_consumer := FOUND;

      -- Several messages may share a transaction id (after the dedup window): prefer the oldest one
      -- above the cursor, else the newest.
      SELECT m.position INTO v_position FROM queen.messages m
      WHERE m.partition_id = it.pid AND m.transaction_id = it.tx
      ORDER BY (m.position > coalesce(c.cursor_position, 0)) DESC,
               CASE WHEN m.position > coalesce(c.cursor_position, 0) THEN m.position ELSE -m.position END
      LIMIT 1;
      IF NOT FOUND THEN
        o_error := 'Message not found';
        EXIT item;
      END IF;

      IF NOT v_has_consumer THEN
        o_error := CASE WHEN it.l IS NOT NULL THEN 'Invalid or expired lease' ELSE 'Message not in flight' END;
        EXIT item;
      END IF;

      SELECT * INTO st FROM queen.message_states s
      WHERE s.partition_id = it.pid AND s.consumer_group = it.g AND s.position = v_position;
      v_has_state := FOUND;

      IF v_position <= c.cursor_position OR (v_has_state AND st.settled) THEN
        o_success := true;
        o_already := true;
        EXIT item;
      END IF;

      v_live := c.lease_id IS NOT NULL AND c.lease_expires_at > v_now AND v_position <= c.lease_to;
      IF it.l IS NOT NULL AND (NOT v_live OR c.lease_id <> it.l) THEN
        o_error := 'Invalid or expired lease';
        EXIT item;
      END IF;
      IF it.l IS NULL AND NOT v_live THEN
        o_error := 'Message not in flight';
        EXIT item;
      END IF;

      o_success := true;
      v_settle := false;
      v_failures := CASE WHEN v_has_state THEN st.failures ELSE 0 END;

      IF it.st = 'completed' THEN
        v_settle := true;
      ELSIF it.st = 'dlq' THEN
        PERFORM queen.dead_letter(it.pid, v_position, it.g, coalesce(it.err, 'Moved to the dead-letter queue'),
                                  v_failures);
        o_dlq := true;
      ELSIF v_has_state AND st.outcome_lease_id = c.lease_id THEN
        -- A second failed/retry for the same delivery changes nothing.
        NULL;
      ELSIF it.st = 'failed' THEN
        v_failures := v_failures + 1;
        IF v_failures > v_retry_limit THEN
          PERFORM queen.dead_letter(it.pid, v_position, it.g, coalesce(it.err, 'Retries exhausted'), v_failures);
          o_dlq := true;
        ELSE
          INSERT INTO queen.message_states AS s (partition_id, consumer_group, position, failures, retry_at,
                                                 last_error, outcome_lease_id)
          VALUES (it.pid, it.g, v_position, v_failures, v_now + make_interval(secs => v_retry_delay_ms / 1000.0),
                  left(it.err, 4096), c.lease_id)
          ON CONFLICT (partition_id, consumer_group, position) DO UPDATE
            SET failures = EXCLUDED.failures, retry_at = EXCLUDED.retry_at, last_error = EXCLUDED.last_error,
                outcome_lease_id = EXCLUDED.outcome_lease_id;
        END IF;
      ELSE -- retry: deliverable again at once, no failure counted
        INSERT INTO queen.message_states AS s (partition_id, consumer_group, position, retry_at, outcome_lease_id)
        VALUES (it.pid, it.g, v_position, v_now, c.lease_id)
        ON CONFLICT (partition_id, consumer_group, position) DO UPDATE
          SET retry_at = EXCLUDED.retry_at, outcome_lease_id = EXCLUDED.outcome_lease_id;
      END IF;

      IF v_settle THEN
        -- Fast path: the first existing message above the cursor settles by moving the cursor.
        IF NOT EXISTS (SELECT 1 FROM queen.messages m WHERE m.partition_id = it.pid
                       AND m.position > c.cursor_position AND m.position < v_position) THEN
          v_new_cursor := v_position;
          IF v_has_state THEN
            DELETE FROM queen.message_states s
            WHERE s.partition_id = it.pid AND s.consumer_group = it.g AND s.position = v_position;
          END IF;
          IF EXISTS (SELECT 1 FROM queen.message_states s WHERE s.partition_id = it.pid AND s.consumer_group = it.g
                     AND s.position > v_position AND s.settled) THEN
            v_new_cursor := queen.advance_cursor(it.pid, it.g, v_position);
            DELETE FROM queen.message_states s
            WHERE s.partition_id = it.pid AND s.consumer_group = it.g AND s.position <= v_new_cursor;
          END IF;
          c.cursor_position := v_new_cursor;
        ELSE
          INSERT INTO queen.message_states AS s (partition_id, consumer_group, position, settled, failures)
          VALUES (it.pid, it.g, v_position, true, v_failures)
          ON CONFLICT (partition_id, consumer_group, position) DO UPDATE SET settled = true, retry_at = NULL;
          -- Messages below it may all be settled already (a deleted message leaves the invariant "the
          -- first message above the cursor is unsettled" to be restored here).
          v_new_cursor := queen.advance_cursor(it.pid, it.g, c.cursor_position);
          IF v_new_cursor > c.cursor_position THEN
            DELETE FROM queen.message_states s
            WHERE s.partition_id = it.pid AND s.consumer_group = it.g AND s.position <= v_new_cursor;
            c.cursor_position := v_new_cursor;
          END IF;
        END IF;
        UPDATE queen.consumers k
        SET cursor_position = c.cursor_position, total_consumed = k.total_consumed + 1, last_consumed_at = v_now
        WHERE k.partition_id = it.pid AND k.consumer_group = it.g;
      ELSIF o_dlq THEN
        c.cursor_position := queen.settle_forward(it.pid, it.g);
      END IF;

      -- Release the lease once every message it delivered has an outcome.
      IF NOT queen.lease_has_open_messages(it.pid, it.g, c.cursor_position, c.lease_to, c.lease_id) THEN
        UPDATE queen.consumers k SET lease_id = NULL, lease_expires_at = NULL, lease_to = NULL
        WHERE k.partition_id = it.pid AND k.consumer_group = it.g;
        o_released := true;
      ELSE
        o_released := false;
      END IF;
    END;

    idx := it.i;
    success := o_success;
    error := o_error;
    lease_released := o_released;
    dlq := o_dlq;
    already_acked := o_already;
    queue_name := v_qname;
    partition_name := v_pname;
    RETURN NEXT;
  END LOOP;
END;
$fn$;

-- queen.ack_leases(), a whole-lease ack of development builds, was replaced by queen.ack_leases_drained
-- (014) before any release: it goes.
DROP FUNCTION IF EXISTS queen.ack_leases(uuid[], text[], uuid[], integer[], text[]);
