-- 004_pop: queen.pop_messages(), one call per pop request (docs/semantics.md, "Pop").
--
-- Objects: functions queen.prepare_claim, queen.pop_messages.
--
-- Candidates. A specific-partition pop reads its partition. A wildcard pop absorbs the partitions pushed
-- since its group last looked (queen.refresh_ready, 015) and reads candidates from the ready index of 015 in
-- least-recently-served order, so it costs what it delivers, not what the queue holds (docs/scale.md).
--
-- Locking: takes consumer rows (partition, group) FOR UPDATE SKIP LOCKED, as many at once as the pop may
-- still claim, in least-recently-served order; never locks partition rows, so pops never wait for pushes. A
-- row another pop is claiming at this instant is skipped, not waited for (docs/semantics.md, "Fairness of wildcard
-- pops"). A wildcard pop that found nothing while another pop of its group was absorbing waits for that one (its
-- horizon row) and looks again, so "nothing" never means "not absorbed yet".
--
-- Parameters: queue id; partition id (NULL = wildcard); group ('__QUEUE_MODE__' = queue mode); batch;
-- max partitions to claim; lease id of this pop; auto-ack; subscription mode for a named group's first
-- contact ('all' | 'new' | 'from') and its start time for 'from'.
--
-- Result rows: kind = 'message' (one per delivered message, grouped by partition, in position order),
-- or a single row 'lease_held' / 'window_buffer' (specific-partition pops only). No row: nothing
-- deliverable. A last row 'more' says the batch or partition limit stopped the pop while candidate
-- partitions remained (or pushes were left to absorb), so the next parked consumer is worth a try.

-- Readies a consumer row the caller has locked for delivery: reclaims an expired lease (counting its
-- failures) and applies a subscription start not yet passed (messages created before it form a prefix, since
-- created_at never decreases along positions, and are skipped). Returns the cursor to deliver above, and
-- whether a lease was reclaimed (a durable change).
CREATE OR REPLACE FUNCTION queen.prepare_claim(p_partition_id uuid, p_group text, p_now timestamptz,
                                               OUT cursor_position bigint, OUT reclaimed boolean)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  c queen.consumers%ROWTYPE;
  v_skip_to bigint;
BEGIN
  reclaimed := false;
  SELECT * INTO c FROM queen.consumers k WHERE k.partition_id = p_partition_id AND k.consumer_group = p_group;
  IF c.lease_id IS NOT NULL THEN
    -- An expired lease met by a pop is reclaimed here rather than waiting for the reclaim cycle.
    PERFORM queen.reclaim_lease(p_partition_id, p_group);
    reclaimed := true;
    SELECT * INTO c FROM queen.consumers k WHERE k.partition_id = p_partition_id AND k.consumer_group = p_group;
  END IF;
  IF c.start_at IS NOT NULL THEN
    IF EXISTS (SELECT 1 FROM queen.messages x WHERE x.partition_id = p_partition_id
               AND x.position > c.cursor_position AND x.created_at < c.start_at) THEN
      SELECT x.position INTO v_skip_to FROM queen.messages x
      WHERE x.partition_id = p_partition_id AND x.created_at < c.start_at
      ORDER BY x.position DESC LIMIT 1;
      c.cursor_position := greatest(c.cursor_position, v_skip_to);
    END IF;
    IF c.start_at <= p_now THEN
      c.start_at := NULL;
    END IF;
    UPDATE queen.consumers k SET cursor_position = c.cursor_position, start_at = c.start_at
    WHERE k.partition_id = p_partition_id AND k.consumer_group = p_group;
    DELETE FROM queen.message_states s
    WHERE s.partition_id = p_partition_id AND s.consumer_group = p_group AND s.position <= c.cursor_position;
  END IF;
  cursor_position := c.cursor_position;
END;
$fn$;

-- Runs with plan_cache_mode = force_generic_plan (re-planning on every call cost more than the pop itself)
-- and enable_seqscan = off: a generic plan is made with the table sizes of its first use in a session and
-- kept until an analyze invalidates it, and one made while queen.messages was freshly vacuumed empty read
-- the whole table on every pop as it grew again (measured: 28-34 ms per pop of 100 from 30 000 messages
-- instead of 1.3-1.5 ms, until autovacuum's next analyze). Every read here is by key.
-- jit = off, here and in every function that disables a plan node: a disabled node that nothing can replace
-- (a sort) still runs, estimated at 10^10, far above jit_above_cost, so a PostgreSQL built with LLVM (Debian's
-- and the PGDG packages, jit = on by default) compiled the statement on every call: 0.9 s per pop of 100 on
-- PostgreSQL 15, for statements that then ran in 2 ms. These statements are short; JIT never pays off here.
CREATE OR REPLACE FUNCTION queen.pop_messages(p_queue_id uuid, p_partition_id uuid, p_group text, p_batch integer,
                                              p_max_partitions integer, p_lease_id uuid, p_auto_ack boolean,
                                              p_sub_mode text, p_sub_from timestamptz)
RETURNS TABLE (kind text, partition_id uuid, partition_name text, message_id uuid, transaction_id text, trace_id uuid,
               payload jsonb, is_encrypted boolean, producer_sub text, created_at text, retry_count integer)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan SET enable_seqscan = off SET enable_sort = off
  SET jit = off AS $fn$
-- enable_sort = off: candidate reads must walk consumers_ready_key_idx in its order; costed on an empty table
-- (the generic plan keeps the statistics of its first use), reading every row of the group through another
-- index and sorting them looked as cheap. Sorts no plan can avoid (the answer's order) are still made.
#variable_conflict use_column
DECLARE
  -- Partitions absorbed per call of queen.refresh_ready: bounds the first pop of a group on a large queue.
  c_absorb_limit CONSTANT integer := 2000;
  -- Calls one empty-handed pop may make (a queue of 100 000 partitions takes 50).
  c_absorb_calls CONSTANT integer := 64;
  v_absorb_calls integer := 1;
  v_now timestamptz := clock_timestamp();
  q queen.queues%ROWTYPE;
  v_start timestamptz;
  v_remaining integer := p_batch;
  v_claimed integer := 0;
  v_count integer;
  v_delay_cutoff timestamptz;
  v_absorb record;
  v_waited boolean := false;
  v_more boolean := false;
  -- Wildcard: rows locked by this pop so far (never locked twice), and those of them it did not claim.
  v_tried uuid[] := '{}';
  v_idle uuid[] := '{}';
  -- One round's rows: every locked one, and those delivered from (window buffer passed), in order.
  v_locked uuid[];
  v_pids uuid[];
  v_names text[];
  v_cursors bigint[];
  -- Where those rows are (ctid): locked by this pop, they stay there until it writes them itself.
  v_ctids tid[];
  v_special boolean;
  v_round_claimed uuid[];
  v_wanted integer;
  -- The key of the last row locked, in the ready index's order.
  v_last_at timestamptz;
  v_last_pid uuid;
  v_round_last_at timestamptz;
  v_round_last_pid uuid;
  v_name text;
  v_newest timestamptz;
  r record;
  v_prepared record;
  -- The consumer row of a one-partition pop, with its ctid (ct).
  c record;
BEGIN
  SELECT * INTO q FROM queen.queues WHERE id = p_queue_id;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  v_delay_cutoff := v_now - make_interval(secs => q.delayed_processing_seconds);

  -- A named group's subscription is recorded at first contact and never changed by later pops (docs/semantics.md,
  -- "Subscription modes").
  IF p_group <> '__QUEUE_MODE__' THEN
    SELECT s.start_at INTO v_start FROM queen.subscriptions s
    WHERE s.queue_id = p_queue_id AND s.consumer_group = p_group;
    IF NOT FOUND THEN
      v_start := CASE p_sub_mode WHEN 'new' THEN v_now WHEN 'from' THEN p_sub_from END;
      INSERT INTO queen.subscriptions (queue_id, consumer_group, mode, start_at)
      VALUES (p_queue_id, p_group, coalesce(p_sub_mode, 'all'), v_start)
      ON CONFLICT DO NOTHING;
      IF NOT FOUND THEN
        SELECT s.start_at INTO v_start FROM queen.subscriptions s
        WHERE s.queue_id = p_queue_id AND s.consumer_group = p_group;
      END IF;
    END IF;
  END IF;

  IF p_partition_id IS NOT NULL THEN
    -- One partition: its row is created at first contact and must carry no live lease.
    SELECT p.name, p.newest_created_at INTO v_name, v_newest
    FROM queen.partitions p
    LEFT JOIN queen.consumers c0 ON c0.partition_id = p.id AND c0.consumer_group = p_group
    WHERE p.id = p_partition_id AND p.queue_id = p_queue_id
      AND p.next_position - 1 > coalesce(c0.cursor_position, 0);
    IF NOT FOUND THEN
      RETURN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM queen.consumers k WHERE k.partition_id = p_partition_id AND k.consumer_group = p_group) THEN
      -- A new row is ready with the smallest key: the group's wildcard pops must read from the start (015).
      PERFORM queen.lower_ready_scan(p_queue_id, p_group);
      INSERT INTO queen.consumers (partition_id, consumer_group, queue_id, start_at)
      VALUES (p_partition_id, p_group, p_queue_id, v_start)
      ON CONFLICT DO NOTHING;
    END IF;
    -- A row leased since the read above is filtered before it is locked: a lock taken only to find a live
    -- lease would be held to the end of this pop and make the ack of that lease wait for it.
    SELECT k.*, k.ctid AS ct INTO c FROM queen.consumers k
    WHERE k.partition_id = p_partition_id AND k.consumer_group = p_group
      AND (k.lease_id IS NULL OR k.lease_expires_at <= v_now)
    FOR UPDATE SKIP LOCKED;
    IF NOT FOUND OR c.lease_expires_at > v_now THEN
      kind := 'lease_held';
      RETURN NEXT;
      RETURN;
    END IF;
    IF c.lease_id IS NOT NULL OR c.start_at IS NOT NULL THEN
      SELECT * INTO v_prepared FROM queen.prepare_claim(p_partition_id, p_group, v_now);
      c.cursor_position := v_prepared.cursor_position;
      -- prepare_claim may have rewritten the row. The key as a row range: only the primary key can read it
      -- (see queen.refresh_ready, 015).
      SELECT k.ctid INTO c.ct FROM queen.consumers k
      WHERE k.partition_id = p_partition_id
        AND (k.partition_id, k.consumer_group) >= (p_partition_id, p_group)
        AND (k.partition_id, k.consumer_group) <= (p_partition_id, p_group);
    END IF;
    -- windowBuffer: the whole partition waits until its newest message is old enough (docs/semantics.md, "What is
    -- deliverable").
    IF q.window_buffer_seconds > 0 AND v_newest > v_now - make_interval(secs => q.window_buffer_seconds) THEN
      kind := 'window_buffer';
      RETURN NEXT;
      RETURN;
    END IF;
    v_locked := ARRAY[p_partition_id];
    v_pids := v_locked;
    v_names := ARRAY[v_name];
    v_cursors := ARRAY[c.cursor_position];
    v_ctids := ARRAY[c.ct];
  ELSE
    v_absorb := queen.refresh_ready(p_queue_id, p_group, v_start, c_absorb_limit, false);
    v_more := v_absorb.more;
  END IF;

  <<rounds>>
  LOOP
    IF p_partition_id IS NULL THEN
      v_wanted := least(p_max_partitions - v_claimed, v_remaining);
      -- Lock the next candidates: rows with messages the group has not settled and no live lease, least
      -- recently served first (never served first), ties by partition id; as many as the pop may still claim,
      -- read from the scan bound on (015). Partitions inside their window buffer are locked (so they count as
      -- tried) but not delivered from.
      SELECT coalesce(array_agg(l.partition_id ORDER BY l.key_at, l.partition_id), '{}'),
             coalesce(array_agg(l.partition_id ORDER BY l.key_at, l.partition_id) FILTER (WHERE NOT l.buffered), '{}'),
             coalesce(array_agg(l.name ORDER BY l.key_at, l.partition_id) FILTER (WHERE NOT l.buffered), '{}'),
             coalesce(array_agg(l.cursor_position ORDER BY l.key_at, l.partition_id) FILTER (WHERE NOT l.buffered), '{}'),
             coalesce(array_agg(l.ct ORDER BY l.key_at, l.partition_id) FILTER (WHERE NOT l.buffered), '{}'),
             coalesce(bool_or((l.lease_id IS NOT NULL OR l.start_at IS NOT NULL) AND NOT l.buffered), false),
             (array_agg(l.key_at ORDER BY l.key_at DESC, l.partition_id DESC))[1],
             (array_agg(l.partition_id ORDER BY l.key_at DESC, l.partition_id DESC))[1]
      INTO v_locked, v_pids, v_names, v_cursors, v_ctids, v_special, v_round_last_at, v_round_last_pid
      FROM (
        SELECT k.partition_id, coalesce(k.last_served_at, '-infinity'::timestamptz) AS key_at, k.cursor_position,
               k.ctid AS ct, k.lease_id, k.start_at, p.name,
               q.window_buffer_seconds > 0
                 AND p.newest_created_at > v_now - make_interval(secs => q.window_buffer_seconds) AS buffered
        FROM queen.consumers k
        JOIN queen.partitions p ON p.id = k.partition_id
        WHERE k.queue_id = p_queue_id AND k.consumer_group = p_group AND k.ready_to > k.cursor_position
          AND (coalesce(k.last_served_at, '-infinity'::timestamptz), k.partition_id)
              >= (v_absorb.scan_at, v_absorb.scan_pid)
          AND (k.lease_id IS NULL OR k.lease_expires_at <= v_now)
          AND NOT (k.partition_id = ANY (v_tried))
        ORDER BY coalesce(k.last_served_at, '-infinity'::timestamptz), k.partition_id
        LIMIT v_wanted
        FOR UPDATE OF k SKIP LOCKED
      ) l;
      IF cardinality(v_locked) > 0 THEN
        v_last_at := v_round_last_at;
        v_last_pid := v_round_last_pid;
      END IF;

      IF cardinality(v_locked) = 0 THEN
        -- Nothing (more) to claim. Before answering "nothing": wait for another pop of the group that was
        -- absorbing pushes (once), and absorb on while pushes are left beyond the limit.
        IF v_claimed = 0 AND v_absorb_calls < c_absorb_calls
           AND (v_absorb.more OR (NOT v_absorb.absorbed AND NOT v_waited)) THEN
          v_waited := v_waited OR NOT v_absorb.absorbed;
          v_absorb_calls := v_absorb_calls + 1;
          v_absorb := queen.refresh_ready(p_queue_id, p_group, v_start, c_absorb_limit, true);
          v_more := v_absorb.more;
          CONTINUE rounds;
        END IF;
        EXIT rounds;
      END IF;
      v_tried := v_tried || v_locked;

      IF v_special THEN
        FOR r IN
          SELECT k.partition_id FROM queen.consumers k
          WHERE k.partition_id = ANY (v_pids) AND k.consumer_group = p_group
            AND (k.lease_id IS NOT NULL OR k.start_at IS NOT NULL)
          ORDER BY k.partition_id
        LOOP
          SELECT * INTO v_prepared FROM queen.prepare_claim(r.partition_id, p_group, v_now);
        END LOOP;
        -- prepare_claim wrote some of the rows: read their cursors and places again.
        SELECT array_agg(k.cursor_position ORDER BY u.ord), array_agg(k.ctid ORDER BY u.ord) INTO v_cursors, v_ctids
        FROM unnest(v_pids) WITH ORDINALITY AS u(pid, ord)
        CROSS JOIN LATERAL (
          SELECT k.cursor_position, k.ctid FROM queen.consumers k
          WHERE k.partition_id = u.pid
            AND (k.partition_id, k.consumer_group) >= (u.pid, p_group)
            AND (k.partition_id, k.consumer_group) <= (u.pid, p_group)
          OFFSET 0
        ) k;
      END IF;
    END IF;

    IF cardinality(v_pids) > 0 THEN
      -- The deliverable prefix of each partition, in order: unsettled messages above the cursor in position
      -- order, stopping at the first one still inside delayedProcessing or waiting for its retry time (order
      -- holds, 4.3); the batch is filled from the first partition, then the next, until it is full or the
      -- partition limit is reached (docs/semantics.md, "Batches and multi-partition pops"). The same statement takes
      -- the leases (or, with autoAck, moves the cursors), and lowers ready_to where no message at all is left above the
      -- cursor. Each write to queen.consumers finds its row by its ctid (read when it was locked, or again after
      -- prepare_claim rewrote it; no other transaction can move a locked row), so a generic plan made while the table
      -- was empty cannot read every row of the group instead (see queen.refresh_ready).
      RETURN QUERY
      WITH cand AS (
        -- One probe of the group's per-message states above each cursor: usually there are none, and then no
        -- delivered message probes them again.
        SELECT u.pid, u.pname, u.cur, u.ct, u.ord, st.any_state, st.settled_above
        FROM unnest(v_pids, v_names, v_cursors, v_ctids) WITH ORDINALITY AS u(pid, pname, cur, ct, ord)
        CROSS JOIN LATERAL (
          SELECT count(*) > 0 AS any_state, count(*) FILTER (WHERE s2.settled) AS settled_above
          FROM queen.message_states s2
          WHERE s2.partition_id = u.pid AND s2.consumer_group = p_group AND s2.position > u.cur
        ) st
      ), scanned AS MATERIALIZED (
        SELECT cd.ord, cd.pid, cd.ct, cd.pname, mm.position, mm.id, mm.transaction_id, mm.trace_id, mm.payload,
               mm.is_encrypted, mm.producer_sub, mm.created_at, coalesce(s.settled, false) AS settled,
               coalesce(s.failures, 0) AS failures,
               sum(CASE WHEN NOT coalesce(s.settled, false)
                             AND (s.retry_at > v_now OR mm.created_at > v_delay_cutoff) THEN 1 ELSE 0 END)
                 OVER (PARTITION BY cd.ord ORDER BY mm.position) AS blocked
        FROM cand cd
        CROSS JOIN LATERAL (
          SELECT x.* FROM queen.messages x
          WHERE x.partition_id = cd.pid AND x.position > cd.cur
          ORDER BY x.position
          -- Settled-out-of-order messages are skipped, so read that many more.
          LIMIT v_remaining + cd.settled_above
        ) mm
        -- A lookup per message, only where the partition has states (OFFSET 0 keeps it one: flattened into a
        -- join, the generic plan read every state row of the group).
        LEFT JOIN LATERAL (
          SELECT s1.settled, s1.failures, s1.retry_at FROM queen.message_states s1
          WHERE cd.any_state AND s1.partition_id = cd.pid AND s1.consumer_group = p_group AND s1.position = mm.position
          OFFSET 0
        ) s ON true
      ), ranked AS (
        SELECT sc.*, dense_rank() OVER (ORDER BY sc.ord) AS nth_partition,
               row_number() OVER (ORDER BY sc.ord, sc.position) AS nth
        FROM scanned sc
        WHERE sc.blocked = 0 AND NOT sc.settled
      ), delivered AS (
        SELECT rk.* FROM ranked rk WHERE rk.nth <= v_remaining AND rk.nth_partition <= p_max_partitions - v_claimed
      ), summary AS (
        SELECT d.pid, d.ct, count(*) AS n, max(d.position) AS last FROM delivered d GROUP BY d.pid, d.ct
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
            -- Never below the row's last serve (a pop that started earlier may claim it later): keys only
            -- rise, which the scan bound of 015 relies on.
            last_served_at = greatest(v_now, k.last_served_at),
            batches_consumed = k.batches_consumed + 1
        FROM summary sm
        WHERE k.ctid = sm.ct AND k.partition_id = sm.pid AND k.consumer_group = p_group
        RETURNING k.partition_id
      ), emptied AS (
        UPDATE queen.consumers k SET ready_to = k.cursor_position
        FROM cand cd
        WHERE k.ctid = cd.ct AND k.partition_id = cd.pid AND k.consumer_group = p_group
          AND NOT EXISTS (SELECT 1 FROM scanned sc WHERE sc.pid = cd.pid)
        RETURNING k.partition_id
      )
      SELECT 'message'::text, d.pid, d.pname, d.id, d.transaction_id, d.trace_id, d.payload, d.is_encrypted,
             d.producer_sub, to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), d.failures
      FROM delivered d
      WHERE queen.require((SELECT count(*) FROM claimed) = (SELECT count(*) FROM summary),
                          'a consumer row claimed by a pop was not written')
      ORDER BY d.ord, d.position;
      GET DIAGNOSTICS v_count = ROW_COUNT;

      IF v_count > 0 THEN
        -- The rows claimed just now carry this pop's serve time.
        SELECT coalesce(array_agg(k.partition_id ORDER BY k.partition_id), '{}') INTO v_round_claimed
        FROM queen.consumers k
        WHERE k.partition_id = ANY (v_pids) AND k.consumer_group = p_group AND k.last_served_at = v_now;
        v_remaining := v_remaining - v_count;
        v_claimed := v_claimed + cardinality(v_round_claimed);
        IF p_auto_ack THEN
          -- At-most-once (docs/semantics.md, "autoAck"): forget per-message state below the new cursor and move past
          -- settled ones.
          FOR r IN SELECT u.pid FROM unnest(v_round_claimed) AS u(pid) LOOP
            DELETE FROM queen.message_states s
            WHERE s.partition_id = r.pid AND s.consumer_group = p_group
              AND s.position <= (SELECT k.cursor_position FROM queen.consumers k
                                 WHERE k.partition_id = r.pid AND k.consumer_group = p_group);
            PERFORM queen.settle_forward(r.pid, p_group);
          END LOOP;
        END IF;
      ELSE
        v_round_claimed := '{}';
      END IF;
    ELSE
      v_round_claimed := '{}';
    END IF;

    EXIT rounds WHEN p_partition_id IS NOT NULL;
    v_idle := v_idle || ARRAY(SELECT u.pid FROM unnest(v_locked) AS u(pid) WHERE NOT (u.pid = ANY (v_round_claimed)));
    EXIT rounds WHEN v_remaining <= 0 OR v_claimed >= p_max_partitions;
  END LOOP;

  -- Stopped by a limit: say whether another consumer would find something: a candidate after the last row
  -- this pop locked, in the ready index's order (a row it claimed with autoAck and left messages on counts:
  -- its serve moved it there). Rows before it were locked by this pop or by other pops, which answer for
  -- their own.
  IF p_partition_id IS NULL AND (v_remaining <= 0 OR v_claimed >= p_max_partitions) AND NOT v_more
     AND v_last_pid IS NOT NULL THEN
    SELECT true INTO v_more FROM queen.consumers k
    WHERE k.queue_id = p_queue_id AND k.consumer_group = p_group AND k.ready_to > k.cursor_position
      AND (coalesce(k.last_served_at, '-infinity'::timestamptz), k.partition_id) > (v_last_at, v_last_pid)
      AND (k.lease_id IS NULL OR k.lease_expires_at <= v_now)
      AND NOT (k.partition_id = ANY (v_idle))
    ORDER BY coalesce(k.last_served_at, '-infinity'::timestamptz), k.partition_id
    LIMIT 1;
    v_more := coalesce(v_more, false);
  END IF;
  IF p_partition_id IS NULL AND (v_remaining <= 0 OR v_claimed >= p_max_partitions) AND v_more THEN
    kind := 'more';
    RETURN NEXT;
  END IF;

  -- Every pop commits durably (synchronous_commit as the server has it): a lease committed without its
  -- WAL flush, or without the synchronous standby's, is forgotten by a crash or a failover, and its
  -- messages went to a second consumer while the first still held them (docs/design.md, "Leases commit durably").
END;
$fn$;
