-- 010_retention: the housekeeping cycles that delete (docs/semantics.md, "Retention, eviction and cleanup";
-- docs/reliability.md, "Hazards", H29): retention of expired messages, retention of completed messages, eviction
-- after maxWaitTimeSeconds, the purges (dedup entries, expired leases, per-minute history), the repair of cursors left
-- below emptied ranges, and the cleanup of inactive partitions.
--
-- Objects: functions queen.retention_position_before, queen.retention_age_seconds,
-- queen.retention_known_groups, queen.retention_group_bound, queen.retention_candidates,
-- queen.retention_remove_messages, queen.eviction_dead_letter, queen.maintenance_delete,
-- queen.retention_purge_dedup, queen.retention_purge_expired_leases, queen.retention_purge_history,
-- queen.retention_repair_cursors, queen.retention_cleanup_partitions. No table: the history rows go to
-- queen.retention_history (009).
--
-- Election: the functions take no advisory lock themselves. The jobs (src/broker/jobs/) run each batch in
-- its own transaction that first takes pg_try_advisory_xact_lock(1364542798, k) with k = 1380275278
-- ("RETN", the retention cycle) or k = 1163281236 ("EVCT", the eviction cycle), "QUEN" being 1364542798;
-- a replica whose first batch does not get it skips the cycle, and one whose later batch does not get it
-- leaves the rest of the cycle to the replica that took it. The row locks below make concurrent runs
-- safe anyway.
--
-- queen.maintenance_delete keeps its first name, which predates the word "housekeeping" (docs/conventions.md,
-- "Naming"): renaming a function replicas call would break the ones still running during a rolling upgrade.
--
-- Locking: the canonical order of 001. queen.maintenance_delete plans a batch of partitions and looks for
-- deletable messages without locks; then it locks the rows of the capped queues of the partitions with
-- work (max_size > 0, whose stored_messages counter it decrements) FOR NO KEY UPDATE in (name, tenant)
-- order; then, one partition at a time in id order, every consumer row of the partition FOR UPDATE in
-- group order (waiting for a running pop or ack, which is short), and the message rows it deletes FOR
-- UPDATE in position order. Under the consumer-row locks no pop can lease and no ack can settle on the
-- partition, so the live leases it reads are the live leases at delete time, and no message inside one is
-- deleted. It never locks partition rows, so it never waits for producers.
-- queen.retention_cleanup_partitions locks partition rows FOR UPDATE SKIP LOCKED (a running push holds its
-- partition row, so that partition is skipped), re-checks emptiness in fresh statements under the lock,
-- then locks the partition's consumer rows; a push that arrives after the lock waits, and its INSERT ..
-- ON CONFLICT DO UPDATE (002) creates a new partition row once the deleted one is gone, so no acknowledged
-- push is cascaded away. The repair and purge functions lock only the rows they change, with SKIP LOCKED.
--
-- Residual window: a group's very first pop on a partition inserts its consumer row, which a running
-- deletion cannot see or lock; such a pop may lease a message that the deletion removes when both commit
-- together. Expired and evicted messages are due for deletion anyway; completed retention only deletes
-- messages every known group settled, and a group with a subscription is known before its first pop.
--
-- Assumption (as 004 and 008): created_at never decreases along positions within a partition, so the
-- messages created before an instant form a prefix of positions; the functions find its end by binary
-- search instead of scanning (messages have no created_at index), and still check created_at on every
-- row they delete.
--
-- Idempotent: CREATE OR REPLACE only.

-- The highest existing position of the partition whose message was created before p_before, 0 when there
-- is none: O(log n) primary-key probes.
CREATE OR REPLACE FUNCTION queen.retention_position_before(p_partition_id uuid, p_before timestamptz)
RETURNS bigint LANGUAGE plpgsql STABLE AS $fn$
DECLARE
  v_lo bigint := 0;
  v_hi bigint;
  v_mid bigint;
  v_pos bigint;
  v_created timestamptz;
BEGIN
  SELECT p.next_position - 1 INTO v_hi FROM queen.partitions p WHERE p.id = p_partition_id;
  IF v_hi IS NULL THEN
    RETURN 0;
  END IF;
  -- Invariant: existing messages at or below v_lo were created before p_before; those above v_hi were not.
  WHILE v_lo < v_hi LOOP
    v_mid := v_lo + (v_hi - v_lo + 1) / 2;
    SELECT m.position, m.created_at INTO v_pos, v_created FROM queen.messages m
    WHERE m.partition_id = p_partition_id AND m.position >= v_mid AND m.position <= v_hi
    ORDER BY m.position LIMIT 1;
    IF NOT FOUND THEN
      v_hi := v_mid - 1;
    ELSIF v_created < p_before THEN
      v_lo := v_pos;
    ELSE
      v_hi := v_pos - 1;
    END IF;
  END LOOP;
  RETURN v_lo;
END;
$fn$;

-- The age (seconds) after which a queue's messages are due for a deleting kind; 0 when the kind is off
-- for the queue. retention and completed need retentionEnabled; eviction does not.
CREATE OR REPLACE FUNCTION queen.retention_age_seconds(p_kind text, p_retention_enabled boolean,
                                                       p_retention_seconds bigint, p_completed_seconds bigint,
                                                       p_max_wait_seconds bigint)
RETURNS bigint LANGUAGE sql IMMUTABLE AS $fn$
  SELECT greatest(0, CASE p_kind
    WHEN 'retention' THEN CASE WHEN p_retention_enabled THEN p_retention_seconds ELSE 0 END
    WHEN 'completed' THEN CASE WHEN p_retention_enabled THEN p_completed_seconds ELSE 0 END
    WHEN 'eviction' THEN p_max_wait_seconds
    ELSE 0 END)
$fn$;

-- The known groups of a partition (docs/semantics.md, "Retention, eviction and cleanup"): every group with a consumer
-- row on it, plus every group subscribed to the queue without one. start_at: the start before which messages count as
-- settled (the row's pending start, or the subscription's for a group that never read the partition).
CREATE OR REPLACE FUNCTION queen.retention_known_groups(p_partition_id uuid, p_queue_id uuid)
RETURNS TABLE (grp text, has_row boolean, cur bigint, start_at timestamptz)
LANGUAGE sql STABLE AS $fn$
  SELECT k.consumer_group, true, k.cursor_position, k.start_at
  FROM queen.consumers k WHERE k.partition_id = p_partition_id
  UNION ALL
  SELECT s.consumer_group, false, 0::bigint, s.start_at
  FROM queen.subscriptions s
  WHERE s.queue_id = p_queue_id
    AND NOT EXISTS (SELECT 1 FROM queen.consumers k
                    WHERE k.partition_id = p_partition_id AND k.consumer_group = s.consumer_group)
$fn$;

-- The settled prefix of one known group: every existing message at or below it is settled for the group
-- (at or below its cursor, or created before its start).
CREATE OR REPLACE FUNCTION queen.retention_group_bound(p_partition_id uuid, p_cur bigint, p_start_at timestamptz)
RETURNS bigint LANGUAGE sql STABLE AS $fn$
  SELECT greatest(p_cur, CASE WHEN p_start_at IS NULL THEN 0
                              ELSE queen.retention_position_before(p_partition_id, p_start_at) END)
$fn$;

-- The positions of one partition that a deleting kind may delete now, at most p_limit, in position order:
-- created before p_cutoff (p_bound is the end of that prefix), outside every live lease of the partition,
-- and
--   retention:  nothing more (consumed or not);
--   completed:  settled by every known group (none known: nothing);
--   eviction:   not settled by some known group, or no group known.
-- The caller holds the partition's consumer-row locks. Completed retention reads only the prefix every
-- group settled plus the sparse out-of-order settlements of the slowest group; eviction reads from the end
-- of that prefix: neither scans a backlog it cannot delete.
CREATE OR REPLACE FUNCTION queen.retention_candidates(p_kind text, p_partition_id uuid, p_queue_id uuid,
                                                      p_bound bigint, p_cutoff timestamptz, p_limit integer)
RETURNS bigint[] LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  v_now timestamptz := clock_timestamp();
  v_min_group text;
  v_min_bound bigint;
  v_result bigint[];
BEGIN
  IF p_kind = 'retention' THEN
    SELECT coalesce(array_agg(x.position ORDER BY x.position), '{}') INTO v_result FROM (
      SELECT m.position FROM queen.messages m
      WHERE m.partition_id = p_partition_id AND m.position <= p_bound AND m.created_at < p_cutoff
        AND NOT EXISTS (SELECT 1 FROM queen.consumers k
                        WHERE k.partition_id = p_partition_id AND k.lease_id IS NOT NULL
                          AND k.lease_expires_at > v_now AND m.position > k.cursor_position
                          AND m.position <= k.lease_to)
      ORDER BY m.position LIMIT p_limit) x;
    RETURN v_result;
  END IF;

  SELECT g.grp, queen.retention_group_bound(p_partition_id, g.cur, g.start_at) AS bound
  INTO v_min_group, v_min_bound
  FROM queen.retention_known_groups(p_partition_id, p_queue_id) g
  ORDER BY 2, 1 LIMIT 1;

  IF p_kind = 'completed' THEN
    IF v_min_group IS NULL THEN
      RETURN '{}';
    END IF;
    SELECT coalesce(array_agg(c.position ORDER BY c.position), '{}') INTO v_result FROM (
      SELECT u.position FROM (
        (SELECT m.position, m.created_at FROM queen.messages m
         WHERE m.partition_id = p_partition_id AND m.position <= least(v_min_bound, p_bound)
         ORDER BY m.position LIMIT p_limit)
        UNION ALL
        (SELECT m.position, m.created_at FROM queen.message_states s
         JOIN queen.messages m ON m.partition_id = s.partition_id AND m.position = s.position
         WHERE s.partition_id = p_partition_id AND s.consumer_group = v_min_group AND s.settled
           AND s.position > least(v_min_bound, p_bound) AND s.position <= p_bound
         ORDER BY s.position LIMIT p_limit)
      ) u
      WHERE u.created_at < p_cutoff
        AND NOT EXISTS (SELECT 1 FROM queen.consumers k
                        WHERE k.partition_id = p_partition_id AND k.lease_id IS NOT NULL
                          AND k.lease_expires_at > v_now AND u.position > k.cursor_position
                          AND u.position <= k.lease_to)
        AND NOT EXISTS (
          SELECT 1 FROM queen.retention_known_groups(p_partition_id, p_queue_id) g
          WHERE NOT ((g.has_row AND u.position <= g.cur)
                     OR (g.start_at IS NOT NULL AND u.created_at < g.start_at)
                     OR EXISTS (SELECT 1 FROM queen.message_states s
                                WHERE s.partition_id = p_partition_id AND s.consumer_group = g.grp
                                  AND s.position = u.position AND s.settled)))
      ORDER BY u.position LIMIT p_limit) c;
    RETURN v_result;
  END IF;

  IF p_kind = 'eviction' THEN
    SELECT coalesce(array_agg(c.position ORDER BY c.position), '{}') INTO v_result FROM (
      SELECT w.position FROM (
        SELECT m.position, m.created_at FROM queen.messages m
        WHERE m.partition_id = p_partition_id AND m.position > coalesce(v_min_bound, 0) AND m.position <= p_bound
          AND m.created_at < p_cutoff
          AND NOT EXISTS (SELECT 1 FROM queen.consumers k
                          WHERE k.partition_id = p_partition_id AND k.lease_id IS NOT NULL
                            AND k.lease_expires_at > v_now AND m.position > k.cursor_position
                            AND m.position <= k.lease_to)
        ORDER BY m.position LIMIT p_limit) w
      WHERE v_min_group IS NULL
         OR EXISTS (
           SELECT 1 FROM queen.retention_known_groups(p_partition_id, p_queue_id) g
           WHERE NOT ((g.has_row AND w.position <= g.cur)
                      OR (g.start_at IS NOT NULL AND w.created_at < g.start_at)
                      OR EXISTS (SELECT 1 FROM queen.message_states s
                                 WHERE s.partition_id = p_partition_id AND s.consumer_group = g.grp
                                   AND s.position = w.position AND s.settled)))) c;
    RETURN v_result;
  END IF;

  RAISE EXCEPTION 'unknown housekeeping kind %', p_kind;
END;
$fn$;

-- Deletes the given messages of one partition and everything that goes with them, in the caller's
-- transaction: a dedup entry for each one still inside the queue's dedup window (docs/semantics.md, "Transaction ids
-- and deduplication"), the stored-message counter of a capped queue, DLQ entries without a payload copy, traces, every
-- group's per-message state; then every consumer row of the partition settles forward over the gaps, so no cursor is
-- left below positions that no longer exist (no ghost partition for pops). The caller holds the partition's
-- consumer-row locks (and the queue row of a capped queue). Returns the messages deleted.
CREATE OR REPLACE FUNCTION queen.retention_remove_messages(p_partition_id uuid, p_positions bigint[])
RETURNS integer LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  v_queue_id uuid;
  v_window integer;
  v_now timestamptz := clock_timestamp();
  v_deleted integer;
  g record;
BEGIN
  SELECT q.id, q.dedup_window_seconds INTO v_queue_id, v_window
  FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE p.id = p_partition_id;
  IF NOT FOUND OR cardinality(p_positions) = 0 THEN
    RETURN 0;
  END IF;

  WITH gone AS (
    DELETE FROM queen.messages m
    WHERE m.partition_id = p_partition_id AND m.position = ANY (p_positions)
    RETURNING m.position, m.id, m.transaction_id, m.accepted_at
  ), tombstones AS (
    INSERT INTO queen.dedup_entries AS e (partition_id, transaction_id, message_id, accepted_at)
    SELECT DISTINCT ON (x.transaction_id) p_partition_id, x.transaction_id, x.id, x.accepted_at
    FROM gone x
    WHERE v_window > 0 AND x.accepted_at >= v_now - make_interval(secs => v_window)
    ORDER BY x.transaction_id, x.accepted_at DESC
    ON CONFLICT (partition_id, transaction_id) DO UPDATE
      SET message_id = EXCLUDED.message_id, accepted_at = EXCLUDED.accepted_at
      WHERE e.accepted_at < EXCLUDED.accepted_at
  ), letters AS (
    DELETE FROM queen.dead_letters d USING gone x
    WHERE d.partition_id = p_partition_id AND d.position = x.position AND NOT d.has_payload_copy
  ), traced AS (
    DELETE FROM queen.traces t USING gone x
    WHERE t.partition_id = p_partition_id AND t.transaction_id = x.transaction_id AND t.message_id = x.id
  ), states AS (
    DELETE FROM queen.message_states s USING gone x
    WHERE s.partition_id = p_partition_id AND s.position = x.position
  )
  SELECT count(*)::integer INTO v_deleted FROM gone;

  IF v_deleted > 0 THEN
    UPDATE queen.queues q SET stored_messages = greatest(0, q.stored_messages - v_deleted)
    WHERE q.id = v_queue_id AND q.max_size > 0;
    UPDATE queen.partitions p SET message_count = greatest(0, p.message_count - v_deleted) WHERE p.id = p_partition_id;
    FOR g IN
      SELECT k.consumer_group FROM queen.consumers k WHERE k.partition_id = p_partition_id ORDER BY k.consumer_group
    LOOP
      PERFORM queen.settle_forward(p_partition_id, g.consumer_group);
    END LOOP;
  END IF;
  RETURN v_deleted;
END;
$fn$;

-- Dead-letters messages about to be evicted for every known group that has not settled them (error
-- 'evicted after maxWaitTimeSeconds', failure count so far); queen.dead_letter copies the payload, since
-- only queues with deadLetterQueue: true come here. Returns the DLQ entries written.
CREATE OR REPLACE FUNCTION queen.eviction_dead_letter(p_partition_id uuid, p_queue_id uuid, p_positions bigint[])
RETURNS integer LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  v_count integer := 0;
  r record;
BEGIN
  FOR r IN
    SELECT m.position, g.grp, coalesce(s.failures, 0) AS failures
    FROM queen.messages m
    CROSS JOIN queen.retention_known_groups(p_partition_id, p_queue_id) g
    LEFT JOIN queen.message_states s
      ON s.partition_id = m.partition_id AND s.consumer_group = g.grp AND s.position = m.position
    WHERE m.partition_id = p_partition_id AND m.position = ANY (p_positions)
      AND NOT ((g.has_row AND m.position <= g.cur)
               OR (g.start_at IS NOT NULL AND m.created_at < g.start_at)
               OR coalesce(s.settled, false))
    ORDER BY m.position, g.grp
  LOOP
    PERFORM queen.dead_letter(p_partition_id, r.position, r.grp, 'evicted after maxWaitTimeSeconds', r.failures);
    v_count := v_count + 1;
  END LOOP;
  RETURN v_count;
END;
$fn$;

-- One batch of a message-deleting kind ('retention': expired, 'completed', 'eviction'): at most p_limit
-- messages deleted and at most p_limit partitions visited, partitions in id order from p_from (inclusive,
-- NULL = the first). Rows: one per queue that lost messages (deleted, and DLQ entries written by
-- eviction), then always one last row with queue_id NULL whose resume_from is where the next batch of the
-- same cycle starts, NULL when every partition was visited. Writes one queen.retention_history row per
-- queue with deletions (kind = p_kind).
CREATE OR REPLACE FUNCTION queen.maintenance_delete(p_kind text, p_limit integer, p_from uuid)
RETURNS TABLE (queue_id uuid, tenant text, queue_name text, deleted integer, dead_lettered integer,
               resume_from uuid)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  v_now timestamptz := clock_timestamp();
  v_budget integer := p_limit;
  v_plan uuid[];
  v_work uuid[] := '{}';
  v_resume_expected integer := 0;
  v_after_resume uuid := NULL;
  v_reached_resume boolean := false;
  v_resume_removed integer := 0;
  v_pid uuid;
  v_visited integer := 0;
  v_expected integer := 0;
  v_resume uuid := NULL;
  v_queue queen.queues%ROWTYPE;
  v_age bigint;
  v_cutoff timestamptz;
  v_bound bigint;
  v_candidates bigint[];
  v_positions bigint[];
  v_removed integer;
  v_letters integer;
  v_slot integer;
  r_queue uuid[] := '{}';
  r_deleted integer[] := '{}';
  r_letters integer[] := '{}';
BEGIN
  IF p_kind IS NULL OR p_kind NOT IN ('retention', 'completed', 'eviction') THEN
    RAISE EXCEPTION 'unknown housekeeping kind %', p_kind;
  END IF;
  IF p_limit IS NULL OR p_limit < 1 THEN
    RAISE EXCEPTION 'housekeeping batch size must be >= 1';
  END IF;

  -- 1. Plan: partitions of queues where the kind is on, whose oldest message is due.
  SELECT coalesce(array_agg(x.id ORDER BY x.id), '{}') INTO v_plan FROM (
    SELECT p.id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
    WHERE (p_from IS NULL OR p.id >= p_from)
      AND queen.retention_age_seconds(p_kind, q.retention_enabled, q.retention_seconds,
                                      q.completed_retention_seconds, q.max_wait_time_seconds) > 0
      AND (SELECT m.created_at FROM queen.messages m WHERE m.partition_id = p.id ORDER BY m.position LIMIT 1)
          < v_now - make_interval(secs => queen.retention_age_seconds(p_kind, q.retention_enabled,
                                    q.retention_seconds, q.completed_retention_seconds, q.max_wait_time_seconds))
    ORDER BY p.id LIMIT p_limit + 1) x;

  -- 2. A first look without locks: only partitions with something to delete are locked below, so the
  --    usual case of eviction (everything old is settled) never blocks a pop or an ack.
  FOREACH v_pid IN ARRAY v_plan LOOP
    v_visited := v_visited + 1;
    IF v_visited > p_limit THEN
      v_resume := v_pid;
      EXIT;
    END IF;
    SELECT q.* INTO v_queue FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE p.id = v_pid;
    CONTINUE WHEN NOT FOUND;
    v_age := queen.retention_age_seconds(p_kind, v_queue.retention_enabled, v_queue.retention_seconds,
                                         v_queue.completed_retention_seconds, v_queue.max_wait_time_seconds);
    CONTINUE WHEN v_age <= 0;
    v_cutoff := v_now - make_interval(secs => v_age);
    v_bound := queen.retention_position_before(v_pid, v_cutoff);
    CONTINUE WHEN v_bound <= 0;
    v_candidates := queen.retention_candidates(p_kind, v_pid, v_queue.id, v_bound, v_cutoff, p_limit - v_expected);
    CONTINUE WHEN cardinality(v_candidates) = 0;
    v_work := v_work || v_pid;
    v_expected := v_expected + cardinality(v_candidates);
    IF v_expected >= p_limit THEN
      -- This partition may hold more: the next batch starts with it (or after it, see below).
      v_resume := v_pid;
      v_resume_expected := cardinality(v_candidates);
      v_after_resume := v_plan[v_visited + 1];
      EXIT;
    END IF;
  END LOOP;

  -- 3. The counters of capped queues change: their rows come first in the canonical order.
  PERFORM 1 FROM queen.queues q
  WHERE q.max_size > 0 AND q.id IN (SELECT p.queue_id FROM queen.partitions p WHERE p.id = ANY (v_work))
  ORDER BY q.name, q.tenant
  FOR NO KEY UPDATE;

  -- 4. One partition at a time, under its consumer-row locks: the candidates again (this answer counts),
  --    then the message rows, eviction's DLQ entries, and the delete.
  FOREACH v_pid IN ARRAY v_work LOOP
    IF v_budget <= 0 THEN
      -- Not processed: the next batch starts here.
      v_resume := v_pid;
      v_reached_resume := false;
      EXIT;
    END IF;
    IF v_pid = v_resume THEN
      v_reached_resume := true;
    END IF;
    SELECT q.* INTO v_queue FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE p.id = v_pid;
    CONTINUE WHEN NOT FOUND;
    v_age := queen.retention_age_seconds(p_kind, v_queue.retention_enabled, v_queue.retention_seconds,
                                         v_queue.completed_retention_seconds, v_queue.max_wait_time_seconds);
    CONTINUE WHEN v_age <= 0;
    v_cutoff := v_now - make_interval(secs => v_age);
    v_bound := queen.retention_position_before(v_pid, v_cutoff);
    CONTINUE WHEN v_bound <= 0;

    PERFORM 1 FROM queen.consumers k WHERE k.partition_id = v_pid ORDER BY k.consumer_group FOR UPDATE;
    v_candidates := queen.retention_candidates(p_kind, v_pid, v_queue.id, v_bound, v_cutoff, v_budget);
    CONTINUE WHEN cardinality(v_candidates) = 0;
    -- Another deleter (message delete, queue clear, a second run) may have removed some of them meanwhile.
    SELECT coalesce(array_agg(x.position ORDER BY x.position), '{}') INTO v_positions FROM (
      SELECT m.position FROM queen.messages m
      WHERE m.partition_id = v_pid AND m.position = ANY (v_candidates)
      ORDER BY m.position FOR UPDATE) x;
    CONTINUE WHEN cardinality(v_positions) = 0;

    v_letters := 0;
    IF p_kind = 'eviction' AND v_queue.dead_letter_queue THEN
      v_letters := queen.eviction_dead_letter(v_pid, v_queue.id, v_positions);
    END IF;
    v_removed := queen.retention_remove_messages(v_pid, v_positions);
    v_budget := v_budget - v_removed;
    IF v_pid = v_resume THEN
      v_resume_removed := v_removed;
    END IF;

    v_slot := array_position(r_queue, v_queue.id);
    IF v_slot IS NULL THEN
      r_queue := r_queue || v_queue.id;
      r_deleted := r_deleted || v_removed;
      r_letters := r_letters || v_letters;
    ELSE
      r_deleted[v_slot] := r_deleted[v_slot] + v_removed;
      r_letters[v_slot] := r_letters[v_slot] + v_letters;
    END IF;
  END LOOP;
  -- The partition the first look stopped at gave fewer than it promised (a lease or a settlement came
  -- between): nothing more to take there now, so the next batch starts after it instead of looping on it.
  IF v_reached_resume AND v_resume_removed < v_resume_expected THEN
    v_resume := v_after_resume;
  END IF;

  INSERT INTO queen.retention_history (bucket, tenant, queue_name, kind, deleted)
  SELECT date_trunc('minute', v_now), q.tenant, q.name, p_kind, r.n
  FROM unnest(r_queue, r_deleted) AS r(qid, n) JOIN queen.queues q ON q.id = r.qid
  WHERE r.n > 0;

  RETURN QUERY
  SELECT q.id, q.tenant, q.name, r.n, r.l, NULL::uuid
  FROM unnest(r_queue, r_deleted, r_letters) AS r(qid, n, l) JOIN queen.queues q ON q.id = r.qid
  WHERE r.n > 0 OR r.l > 0
  ORDER BY q.tenant, q.name;
  RETURN QUERY SELECT NULL::uuid, NULL::text, NULL::text, 0, 0, v_resume;
END;
$fn$;

-- Dedup entries past their queue's window (or whose partition no longer exists), at most p_limit.
-- Entries another transaction is refreshing are skipped. Returns the entries deleted.
CREATE OR REPLACE FUNCTION queen.retention_purge_dedup(p_limit integer)
RETURNS integer LANGUAGE plpgsql AS $fn$
DECLARE
  v_deleted integer;
BEGIN
  WITH doomed AS (
    SELECT d.partition_id, d.transaction_id, d.accepted_at
    FROM queen.dedup_entries d
    LEFT JOIN queen.partitions p ON p.id = d.partition_id
    LEFT JOIN queen.queues q ON q.id = p.queue_id
    WHERE q.id IS NULL OR d.accepted_at < clock_timestamp() - make_interval(secs => q.dedup_window_seconds)
    LIMIT p_limit
    FOR UPDATE OF d SKIP LOCKED
  ), gone AS (
    DELETE FROM queen.dedup_entries e USING doomed x
    WHERE e.partition_id = x.partition_id AND e.transaction_id = x.transaction_id AND e.accepted_at = x.accepted_at
    RETURNING 1
  )
  SELECT count(*)::integer INTO v_deleted FROM gone;
  RETURN v_deleted;
END;
$fn$;

-- Records of reclaimed leases older than a day (they only tell a late renew "Lease already expired"), at
-- most p_limit. Returns the rows deleted.
CREATE OR REPLACE FUNCTION queen.retention_purge_expired_leases(p_limit integer)
RETURNS integer LANGUAGE plpgsql AS $fn$
DECLARE
  v_deleted integer;
BEGIN
  WITH gone AS (
    DELETE FROM queen.expired_leases e
    WHERE e.lease_id IN (SELECT x.lease_id FROM queen.expired_leases x
                         WHERE x.expired_at < clock_timestamp() - interval '1 day'
                         LIMIT p_limit FOR UPDATE SKIP LOCKED)
    RETURNING 1
  )
  SELECT count(*)::integer INTO v_deleted FROM gone;
  RETURN v_deleted;
END;
$fn$;

-- Per-minute metrics and retention history older than p_days (METRICS_RETENTION_DAYS), at most p_limit rows
-- per table. The tables are 009's. Returns the rows deleted.
CREATE OR REPLACE FUNCTION queen.retention_purge_history(p_days integer, p_limit integer)
RETURNS integer LANGUAGE plpgsql AS $fn$
DECLARE
  v_cutoff timestamptz := clock_timestamp() - make_interval(days => p_days);
  v_total integer := 0;
  v_n integer;
BEGIN
  DELETE FROM queen.metrics_queue_minute t
  WHERE t.ctid IN (SELECT x.ctid FROM queen.metrics_queue_minute x WHERE x.bucket < v_cutoff LIMIT p_limit);
  GET DIAGNOSTICS v_n = ROW_COUNT;
  v_total := v_total + v_n;
  DELETE FROM queen.metrics_server_minute t
  WHERE t.ctid IN (SELECT x.ctid FROM queen.metrics_server_minute x WHERE x.bucket < v_cutoff LIMIT p_limit);
  GET DIAGNOSTICS v_n = ROW_COUNT;
  v_total := v_total + v_n;
  DELETE FROM queen.retention_history t
  WHERE t.ctid IN (SELECT x.ctid FROM queen.retention_history x WHERE x.bucket < v_cutoff LIMIT p_limit);
  GET DIAGNOSTICS v_n = ROW_COUNT;
  v_total := v_total + v_n;
  RETURN v_total;
END;
$fn$;

-- Cursors left below a range with no message in it (at most p_limit): a group's first pop on a partition
-- that retention had emptied creates its consumer row at 0 and finds nothing, and without this the
-- partition would stay a candidate of every wildcard pop of the group. Rows with a lease, or locked by a
-- running pop or ack, are left alone. Returns the cursors moved.
CREATE OR REPLACE FUNCTION queen.retention_repair_cursors(p_limit integer)
RETURNS integer LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  v_moved integer := 0;
  c record;
BEGIN
  FOR c IN
    SELECT k.partition_id, k.consumer_group, k.cursor_position
    FROM queen.consumers k JOIN queen.partitions p ON p.id = k.partition_id
    WHERE k.cursor_position < p.next_position - 1 AND k.lease_id IS NULL
      AND NOT EXISTS (SELECT 1 FROM queen.messages m
                      WHERE m.partition_id = k.partition_id AND m.position > k.cursor_position)
    ORDER BY k.partition_id, k.consumer_group
    LIMIT p_limit
    FOR UPDATE OF k SKIP LOCKED
  LOOP
    IF queen.settle_forward(c.partition_id, c.consumer_group) > c.cursor_position THEN
      v_moved := v_moved + 1;
    END IF;
  END LOOP;
  RETURN v_moved;
END;
$fn$;

-- Inactive partitions (at most p_limit): no message, no DLQ entry (a kept payload copy needs its partition
-- for GET /dlq and retry), no dedup entry (it would no longer match a re-created partition), no lease, no
-- activity for p_days (PARTITION_CLEANUP_DAYS; 0 = any idle instant). Each is locked FOR UPDATE SKIP LOCKED
-- and re-checked in fresh statements under the lock before it is deleted with its consumer rows,
-- per-message state and traces. A queue's Default partition is kept: configure creates it with the queue,
-- and it is the lane of every push without a partition name. Consumer rows whose partition is gone (a
-- first pop racing the delete) are removed too. Rows: one per queue that lost partitions; one
-- queen.retention_history row (kind 'partitions') each.
CREATE OR REPLACE FUNCTION queen.retention_cleanup_partitions(p_days integer, p_limit integer)
RETURNS TABLE (queue_id uuid, tenant text, queue_name text, deleted integer)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  v_now timestamptz := clock_timestamp();
  v_cutoff timestamptz := clock_timestamp() - make_interval(days => p_days);
  c record;
  r_queue uuid[] := '{}';
  r_deleted integer[] := '{}';
  v_slot integer;
BEGIN
  FOR c IN
    SELECT p.id, p.queue_id FROM queen.partitions p
    WHERE p.last_activity_at < v_cutoff AND p.name <> 'Default'
      AND NOT EXISTS (SELECT 1 FROM queen.messages m WHERE m.partition_id = p.id)
      AND NOT EXISTS (SELECT 1 FROM queen.dead_letters d WHERE d.partition_id = p.id)
      AND NOT EXISTS (SELECT 1 FROM queen.dedup_entries e WHERE e.partition_id = p.id)
      AND NOT EXISTS (SELECT 1 FROM queen.consumers k WHERE k.partition_id = p.id AND k.lease_id IS NOT NULL)
    ORDER BY p.id
    LIMIT p_limit
    FOR UPDATE OF p SKIP LOCKED
  LOOP
    -- The row is ours now; a push that committed before we took it is visible to these fresh statements.
    CONTINUE WHEN NOT EXISTS (SELECT 1 FROM queen.partitions p WHERE p.id = c.id AND p.last_activity_at < v_cutoff);
    CONTINUE WHEN EXISTS (SELECT 1 FROM queen.messages m WHERE m.partition_id = c.id);
    CONTINUE WHEN EXISTS (SELECT 1 FROM queen.dead_letters d WHERE d.partition_id = c.id);
    CONTINUE WHEN EXISTS (SELECT 1 FROM queen.dedup_entries e WHERE e.partition_id = c.id);
    PERFORM 1 FROM queen.consumers k WHERE k.partition_id = c.id ORDER BY k.consumer_group FOR UPDATE;
    CONTINUE WHEN EXISTS (SELECT 1 FROM queen.consumers k WHERE k.partition_id = c.id AND k.lease_id IS NOT NULL);

    DELETE FROM queen.message_states s WHERE s.partition_id = c.id;
    DELETE FROM queen.consumers k WHERE k.partition_id = c.id;
    DELETE FROM queen.traces t WHERE t.partition_id = c.id;
    DELETE FROM queen.partitions p WHERE p.id = c.id;

    v_slot := array_position(r_queue, c.queue_id);
    IF v_slot IS NULL THEN
      r_queue := r_queue || c.queue_id;
      r_deleted := r_deleted || 1;
    ELSE
      r_deleted[v_slot] := r_deleted[v_slot] + 1;
    END IF;
  END LOOP;

  DELETE FROM queen.consumers k
  WHERE (k.partition_id, k.consumer_group) IN (
    SELECT x.partition_id, x.consumer_group FROM queen.consumers x
    WHERE NOT EXISTS (SELECT 1 FROM queen.partitions p WHERE p.id = x.partition_id)
    LIMIT p_limit FOR UPDATE SKIP LOCKED);

  INSERT INTO queen.retention_history (bucket, tenant, queue_name, kind, deleted)
  SELECT date_trunc('minute', v_now), q.tenant, q.name, 'partitions', r.n
  FROM unnest(r_queue, r_deleted) AS r(qid, n) JOIN queen.queues q ON q.id = r.qid;

  RETURN QUERY
  SELECT q.id, q.tenant, q.name, r.n
  FROM unnest(r_queue, r_deleted) AS r(qid, n) JOIN queen.queues q ON q.id = r.qid
  ORDER BY q.tenant, q.name;
END;
$fn$;
