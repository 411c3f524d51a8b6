-- 014_ack_drained: queen.ack_leases_drained(), the statement the broker tries first for whole leases acked
-- as completed; for each lease it released, it also says whether the partition held no message beyond it
-- (drained), so the broker can skip re-checking its own parked long-polls for a drained release.
--
-- Objects: function queen.ack_leases_drained.
--
-- Each entry is a whole lease acked as completed, (partition, group, lease) with the transaction ids of its
-- items (p_counts[k] consecutive entries of p_txs, distinct: the caller checks). An entry applies when that
-- lease is live, no message above the cursor has per-message state, and its transaction ids are exactly
-- those of the messages the lease delivered; the cursor then moves to the end of the lease and the lease is
-- released. An entry that does not apply changes nothing (its items go through queen.ack_messages, which
-- answers each on its own). One row per entry: ord (1-based entry number), applied, the names, and drained
-- (NULL when not applied). drained is read with the entry; a push that commits after that read is covered by
-- the broker (it re-checks anyway when its waiters were woken during the ack, and always tells the other
-- replicas of the release).
--
-- Locking: the consumer rows of the entries, in (partition id, group) order, as queen.ack_messages does,
-- before anything is read.

-- Tenancy: p_tenants names each entry's tenant (NULL: single tenant, ''); an entry whose partition belongs to another tenant does
-- not apply (queen.ack_messages then answers 'Message not found'). The 5-argument form came before it.
DROP FUNCTION IF EXISTS queen.ack_leases_drained(uuid[], text[], uuid[], integer[], text[]);

-- Set-based: one locking statement and one statement for every entry, so acking a pop that claimed 100
-- partitions costs one round of index lookups per partition rather than five statements per partition (a
-- plpgsql loop over the entries was most of PostgreSQL's time in drains over many partitions). At most one
-- entry per consumer row can name its live lease, so entries never compete for a row.
CREATE OR REPLACE FUNCTION queen.ack_leases_drained(p_pids uuid[], p_groups text[], p_leases uuid[],
                                                    p_counts integer[], p_txs text[], p_tenants text[] DEFAULT NULL)
RETURNS TABLE (ord integer, applied boolean, queue_name text, partition_name text, drained boolean)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan SET enable_seqscan = off SET jit = off AS $fn$
#variable_conflict use_column
DECLARE
  v_now timestamptz := clock_timestamp();
  -- The rows locked, and where they are (ctid): locked here, they stay there until this ack writes them.
  v_pids uuid[];
  v_groups text[];
  v_ctids tid[];
BEGIN
  SELECT coalesce(array_agg(x.partition_id), '{}'), coalesce(array_agg(x.consumer_group), '{}'),
         coalesce(array_agg(x.ctid), '{}')
  INTO v_pids, v_groups, v_ctids
  FROM (
    SELECT k.partition_id, k.consumer_group, k.ctid FROM queen.consumers k
    WHERE (k.partition_id, k.consumer_group) IN (SELECT u.pid, u.g FROM unnest(p_pids, p_groups) AS u(pid, g))
      AND k.partition_id = ANY (p_pids)
    ORDER BY k.partition_id, k.consumer_group
    FOR UPDATE
  ) x;

  RETURN QUERY
  WITH entries AS (
    SELECT u.pid, u.g, u.l, u.cnt, coalesce(u.t, '') AS tenant, u.n::integer AS k,
           (sum(u.cnt) OVER (ORDER BY u.n) - u.cnt + 1)::integer AS first_tx
    FROM unnest(p_pids, p_groups, p_leases, p_counts, p_tenants) WITH ORDINALITY AS u(pid, g, l, cnt, t, n)
  ), locked AS (
    SELECT u.pid, u.g, u.ct FROM unnest(v_pids, v_groups, v_ctids) AS u(pid, g, ct)
  ), applying AS MATERIALIZED (
    -- The names the answer needs come from the one lookup that also checks the entry's tenant, so tenancy
    -- costs no extra lookup; a partition of another tenant does not apply.
    SELECT e.k, e.pid, e.g, e.cnt, lk.ct, c.lease_to, pp.name AS pname, pp.qname,
           pp.next_position - 1 <= c.lease_to AS drained
    FROM entries e
    -- Each lookup is pinned to its key whatever the generic plan's statistics said (015, refresh_ready): the
    -- consumer row by its ctid, the partition (with its queue) and the states by a subquery per entry
    -- (OFFSET 0).
    JOIN locked lk ON lk.pid = e.pid AND lk.g = e.g
    CROSS JOIN LATERAL (SELECT c.* FROM queen.consumers c WHERE c.ctid = lk.ct OFFSET 0) c
    CROSS JOIN LATERAL (
      SELECT p.name, p.next_position, qq.name AS qname, qq.tenant
      FROM queen.partitions p JOIN queen.queues qq ON qq.id = p.queue_id
      WHERE p.id = e.pid
      OFFSET 0
    ) pp
    WHERE c.partition_id = e.pid AND c.consumer_group = e.g
      AND c.lease_id = e.l AND c.lease_expires_at > v_now AND pp.tenant = e.tenant
      AND NOT EXISTS (SELECT 1 FROM queen.message_states s WHERE s.partition_id = e.pid AND s.consumer_group = e.g
                      AND s.position > c.cursor_position OFFSET 0)
      -- Compared as sorted lists in byte order ("C"): cheap under any database collation. The lease's rows
      -- are read in position order so the primary key is the only fitting index: on a partition too new
      -- for the statistics, the planner otherwise walked its whole transaction-id index (8 ms, not 0.1).
      AND (SELECT array_agg(r.tx ORDER BY r.tx)
           FROM (SELECT m.transaction_id COLLATE "C" AS tx FROM queen.messages m
                 WHERE m.partition_id = e.pid AND m.position > c.cursor_position AND m.position <= c.lease_to
                 ORDER BY m.position OFFSET 0) r)
        = (SELECT array_agg(t COLLATE "C" ORDER BY t COLLATE "C")
           FROM unnest(p_txs[e.first_tx : e.first_tx + e.cnt - 1]) AS t)
  ), released AS (
    UPDATE queen.consumers k
    SET cursor_position = a.lease_to, lease_id = NULL, lease_expires_at = NULL, lease_to = NULL,
        total_consumed = k.total_consumed + a.cnt, last_consumed_at = v_now
    FROM applying a
    WHERE k.ctid = a.ct AND k.partition_id = a.pid AND k.consumer_group = a.g
    RETURNING k.partition_id
  )
  SELECT e.k, a.k IS NOT NULL, a.qname, a.pname, a.drained
  FROM entries e
  LEFT JOIN applying a ON a.k = e.k
  WHERE queen.require((SELECT count(*) FROM released) = (SELECT count(*) FROM applying),
                      'a lease released by a whole-lease ack was not written')
  ORDER BY e.k;
END;
$fn$;
