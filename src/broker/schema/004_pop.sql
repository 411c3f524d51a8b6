-- 004_pop: queen.pop_messages(), one call per pop request (semantics.md section 4).
--
-- Objects: function queen.pop_messages.
--
-- Locking: takes consumer rows (partition, group) FOR UPDATE SKIP LOCKED, one partition at a time in
-- least-recently-served order; never locks partition rows, so pops never wait for pushes. A row another
-- pop is claiming at this instant is skipped, not waited for (4.5).
--
-- Parameters: queue id; partition id (NULL = wildcard); group ('__QUEUE_MODE__' = queue mode); batch;
-- max partitions to claim; lease id of this pop; auto-ack; subscription mode for a named group's first
-- contact ('all' | 'new' | 'from') and its start time for 'from'.
--
-- Result rows: kind = 'message' (one per delivered message, grouped by partition, in position order),
-- or a single row 'lease_held' / 'window_buffer' (specific-partition pops only). No row: nothing
-- deliverable. A last row 'more' says the batch or partition limit stopped the pop while candidate
-- partitions remained, so the next parked consumer is worth a try.

-- Runs with plan_cache_mode = force_generic_plan (re-planning on every call cost more than the pop itself)
-- and enable_seqscan = off: a generic plan is made with the table sizes of its first use in a session and
-- kept until an analyze invalidates it, and one made while queen.messages was freshly vacuumed empty read
-- the whole table on every pop as it grew again (measured: 28-34 ms per pop of 100 from 30 000 messages
-- instead of 1.3-1.5 ms, until autovacuum's next analyze). Every read here is by key.
CREATE OR REPLACE FUNCTION queen.pop_messages(p_queue_id uuid, p_partition_id uuid, p_group text, p_batch integer,
                                              p_max_partitions integer, p_lease_id uuid, p_auto_ack boolean,
                                              p_sub_mode text, p_sub_from timestamptz)
RETURNS TABLE (kind text, partition_id uuid, partition_name text, message_id uuid, transaction_id text, trace_id uuid,
               payload jsonb, is_encrypted boolean, producer_sub text, created_at text, retry_count integer)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $fn$
#variable_conflict use_column
DECLARE
  v_now timestamptz := clock_timestamp();
  q queen.queues%ROWTYPE;
  v_start timestamptz;
  v_remaining integer := p_batch;
  v_claimed integer := 0;
  v_count integer;
  v_skip_to bigint;
  v_delay_cutoff timestamptz;
  cand record;
  candidates refcursor;
  -- Candidates read per pass (wildcard pops): a bounded sort instead of sorting every candidate partition.
  v_window integer := greatest(p_max_partitions, 1) * 4 + 16;
  v_fetched integer;
  v_said_more boolean := false;
  c queen.consumers%ROWTYPE;
  -- Whether this pop changed durable state beyond leases (see the end).
  v_must_persist boolean := p_auto_ack;
BEGIN
  SELECT * INTO q FROM queen.queues WHERE id = p_queue_id;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  v_delay_cutoff := v_now - make_interval(secs => q.delayed_processing_seconds);

  -- A named group's subscription is recorded at first contact and never changed by later pops (4.6).
  IF p_group <> '__QUEUE_MODE__' THEN
    SELECT s.start_at INTO v_start FROM queen.subscriptions s
    WHERE s.queue_id = p_queue_id AND s.consumer_group = p_group;
    IF NOT FOUND THEN
      v_start := CASE p_sub_mode WHEN 'new' THEN v_now WHEN 'from' THEN p_sub_from END;
      INSERT INTO queen.subscriptions (queue_id, consumer_group, mode, start_at)
      VALUES (p_queue_id, p_group, coalesce(p_sub_mode, 'all'), v_start)
      ON CONFLICT DO NOTHING;
      v_must_persist := true;
      IF NOT FOUND THEN
        SELECT s.start_at INTO v_start FROM queen.subscriptions s
        WHERE s.queue_id = p_queue_id AND s.consumer_group = p_group;
      END IF;
    END IF;
  END IF;

  -- Candidates: partitions with a message above the group's cursor and no live lease, least recently
  -- served first (never served first), ties by partition id. Two separate statements rather than one
  -- with "p_partition_id IS NULL OR ...", so each keeps one cached plan that fits it (the function runs
  -- with plan_cache_mode = force_generic_plan; re-planning on every call cost more than the pop itself).
  -- A wildcard pop reads them in windows: the first v_window in that order (a bounded sort: on a queue of
  -- 10 000 partitions the statement took 10-13 ms instead of 15-20), and a window eight times larger when
  -- that one was full and the pop still wants partitions (the first rows may be held by concurrent pops).
  -- A later window starts from the top again: partitions this pop leased are no longer candidates, the
  -- others are tried again, which changes nothing.
  <<windows>>
  LOOP
    v_fetched := 0;
    IF p_partition_id IS NULL THEN
      OPEN candidates FOR
        SELECT p.id, p.name, p.newest_created_at, (c0.partition_id IS NOT NULL) AS has_row
        FROM queen.partitions p
        LEFT JOIN queen.consumers c0
          ON c0.partition_id = p.id AND c0.consumer_group = p_group AND c0.queue_id = p_queue_id
        WHERE p.queue_id = p_queue_id
          AND p.next_position - 1 > coalesce(c0.cursor_position, 0)
          AND (c0.lease_id IS NULL OR c0.lease_expires_at <= v_now)
        ORDER BY c0.last_served_at ASC NULLS FIRST, p.id
        LIMIT v_window;
    ELSE
      OPEN candidates FOR
        SELECT p.id, p.name, p.newest_created_at, (c0.partition_id IS NOT NULL) AS has_row
        FROM queen.partitions p
        LEFT JOIN queen.consumers c0
          ON c0.partition_id = p.id AND c0.consumer_group = p_group AND c0.queue_id = p_queue_id
        WHERE p.id = p_partition_id AND p.queue_id = p_queue_id
          AND p.next_position - 1 > coalesce(c0.cursor_position, 0);
    END IF;
    LOOP
      FETCH candidates INTO cand;
      EXIT WHEN NOT FOUND;
      v_fetched := v_fetched + 1;
      IF v_remaining <= 0 OR v_claimed >= p_max_partitions THEN
        -- Candidates are left: tell the caller another waiting consumer may find something.
        kind := 'more';
        v_said_more := true;
        RETURN NEXT;
        EXIT;
      END IF;

      IF NOT cand.has_row THEN
        INSERT INTO queen.consumers (partition_id, consumer_group, queue_id, start_at)
        VALUES (cand.id, p_group, p_queue_id, v_start)
        ON CONFLICT DO NOTHING;
      END IF;
      -- A row leased since the candidates were read is filtered before it is locked: a lock taken only to find
      -- a live lease would be held to the end of this pop and make the ack of that lease wait for it.
      SELECT * INTO c FROM queen.consumers k
      WHERE k.partition_id = cand.id AND k.consumer_group = p_group
        AND (k.lease_id IS NULL OR k.lease_expires_at <= v_now)
      FOR UPDATE SKIP LOCKED;
      -- Not found: another pop holds the row, or it carries a live lease (the filter above, re-checked on the
      -- newest row version when the lock meets a concurrent update). The lease test here is only a guard;
      -- lease_id and lease_expires_at are always set and cleared together.
      IF NOT FOUND OR c.lease_expires_at > v_now THEN
        IF p_partition_id IS NOT NULL THEN
          kind := 'lease_held';
          RETURN NEXT;
          RETURN;
        END IF;
        CONTINUE;
      END IF;

      IF c.lease_id IS NOT NULL THEN
        -- An expired lease met by a pop is reclaimed here rather than waiting for the reclaim cycle.
        PERFORM queen.reclaim_lease(c.partition_id, c.consumer_group);
        v_must_persist := true;
        SELECT * INTO c FROM queen.consumers k WHERE k.partition_id = cand.id AND k.consumer_group = p_group;
      END IF;

      -- Subscription start not passed yet: messages created before it are skipped (they form a prefix,
      -- since created_at never decreases along positions).
      IF c.start_at IS NOT NULL THEN
        IF EXISTS (SELECT 1 FROM queen.messages x WHERE x.partition_id = cand.id AND x.position > c.cursor_position
                   AND x.created_at < c.start_at) THEN
          SELECT x.position INTO v_skip_to FROM queen.messages x
          WHERE x.partition_id = cand.id AND x.created_at < c.start_at
          ORDER BY x.position DESC LIMIT 1;
          c.cursor_position := greatest(c.cursor_position, v_skip_to);
        END IF;
        IF c.start_at <= v_now THEN
          c.start_at := NULL;
        END IF;
        UPDATE queen.consumers k SET cursor_position = c.cursor_position, start_at = c.start_at
        WHERE k.partition_id = cand.id AND k.consumer_group = p_group;
        DELETE FROM queen.message_states s
        WHERE s.partition_id = cand.id AND s.consumer_group = p_group AND s.position <= c.cursor_position;
      END IF;

      -- windowBuffer: the whole partition waits until its newest message is old enough (4.3).
      IF q.window_buffer_seconds > 0
         AND cand.newest_created_at > v_now - make_interval(secs => q.window_buffer_seconds) THEN
        IF p_partition_id IS NOT NULL THEN
          kind := 'window_buffer';
          RETURN NEXT;
          RETURN;
        END IF;
        CONTINUE;
      END IF;

      -- The deliverable prefix: unsettled messages above the cursor in position order, stopping at the
      -- first one still inside delayedProcessing or waiting for its retry time (order holds, 4.3). One
      -- statement returns the rows and takes the lease (or, with autoAck, moves the cursor) on the way.
      RETURN QUERY
      WITH delivered AS (
        SELECT t.* FROM (
          SELECT mm.position, mm.id, mm.transaction_id, mm.trace_id, mm.payload, mm.is_encrypted, mm.producer_sub,
                 mm.created_at, coalesce(s.settled, false) AS settled, coalesce(s.failures, 0) AS failures,
                 sum(CASE WHEN NOT coalesce(s.settled, false)
                               AND (s.retry_at > v_now OR mm.created_at > v_delay_cutoff) THEN 1 ELSE 0 END)
                   OVER (ORDER BY mm.position) AS blocked
          FROM (SELECT x.* FROM queen.messages x
                WHERE x.partition_id = cand.id AND x.position > c.cursor_position
                ORDER BY x.position
                -- Settled-out-of-order messages are skipped, so read that many more.
                LIMIT v_remaining + (SELECT count(*) FROM queen.message_states s2
                                     WHERE s2.partition_id = cand.id AND s2.consumer_group = p_group
                                       AND s2.position > c.cursor_position AND s2.settled)) mm
          LEFT JOIN queen.message_states s
            ON s.partition_id = cand.id AND s.consumer_group = p_group AND s.position = mm.position
        ) t
        WHERE t.blocked = 0 AND NOT t.settled
        ORDER BY t.position
        LIMIT v_remaining
      ), summary AS (
        SELECT count(*) AS n, max(d.position) AS last FROM delivered d
      ), claimed AS (
        UPDATE queen.consumers k
        SET lease_id = CASE WHEN p_auto_ack THEN k.lease_id ELSE p_lease_id END,
            lease_expires_at = CASE WHEN p_auto_ack THEN k.lease_expires_at
                                    ELSE v_now + make_interval(secs => q.lease_time_seconds) END,
            lease_to = CASE WHEN p_auto_ack THEN k.lease_to ELSE sm.last END,
            -- autoAck settles at delivery: every message up to the last delivered one is settled now.
            cursor_position = CASE WHEN p_auto_ack THEN sm.last ELSE k.cursor_position END,
            total_consumed = k.total_consumed + CASE WHEN p_auto_ack THEN sm.n ELSE 0 END,
            last_consumed_at = CASE WHEN p_auto_ack THEN v_now ELSE k.last_consumed_at END,
            last_served_at = v_now,
            batches_consumed = k.batches_consumed + 1
        FROM summary sm
        WHERE k.partition_id = cand.id AND k.consumer_group = p_group AND sm.n > 0
        RETURNING k.cursor_position
      )
      SELECT 'message'::text, cand.id, cand.name, d.id, d.transaction_id, d.trace_id, d.payload, d.is_encrypted,
             d.producer_sub, to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), d.failures
      FROM delivered d
      ORDER BY d.position;
      GET DIAGNOSTICS v_count = ROW_COUNT;

      IF v_count = 0 THEN
        CONTINUE;
      END IF;

      IF p_auto_ack THEN
        -- At-most-once (4.8): forget per-message state below the new cursor and move past settled ones.
        DELETE FROM queen.message_states s
        WHERE s.partition_id = cand.id AND s.consumer_group = p_group
          AND s.position <= (SELECT k.cursor_position FROM queen.consumers k
                             WHERE k.partition_id = cand.id AND k.consumer_group = p_group);
        PERFORM queen.settle_forward(cand.id, p_group);
      END IF;

      v_remaining := v_remaining - v_count;
      v_claimed := v_claimed + 1;
    END LOOP;
    CLOSE candidates;
    IF p_partition_id IS NOT NULL OR v_fetched < v_window THEN
      EXIT windows;
    END IF;
    IF v_remaining <= 0 OR v_claimed >= p_max_partitions THEN
      -- Done at the end of a full window: candidates may lie beyond it.
      IF NOT v_said_more THEN
        kind := 'more';
        RETURN NEXT;
      END IF;
      EXIT windows;
    END IF;
    v_window := v_window * 8;
  END LOOP;

  -- A pop that only took leases commits without waiting for its WAL flush. Were PostgreSQL to crash before
  -- the flush, the leases would be gone and their messages deliverable again, which is what a lease expiry
  -- does anyway (at-least-once; the consumer's ack then answers "Invalid or expired lease"). The next
  -- durable commit of any session flushes it too. autoAck pops, a new subscription and a reclaimed lease
  -- (a counted failure, perhaps a dead-letter) commit durably. The setting lasts until the end of the
  -- transaction, which is this statement alone: the broker runs pops in autocommit, and a caller inside a
  -- larger transaction would relax that whole transaction's commit.
  IF v_claimed > 0 AND NOT v_must_persist THEN
    PERFORM set_config('synchronous_commit', 'off', true);
  END IF;
END;
$fn$;
