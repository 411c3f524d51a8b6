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
-- Locking: the consumer rows of the entries, in (partition id, group) order, as queen.ack_messages does.

-- Tenancy: p_tenants names each entry's tenant (NULL: single tenant, ''); an entry whose partition belongs to another tenant does
-- not apply (queen.ack_messages then answers 'Message not found'). The 5-argument form came before it.
DROP FUNCTION IF EXISTS queen.ack_leases_drained(uuid[], text[], uuid[], integer[], text[]);

CREATE OR REPLACE FUNCTION queen.ack_leases_drained(p_pids uuid[], p_groups text[], p_leases uuid[],
                                                    p_counts integer[], p_txs text[], p_tenants text[] DEFAULT NULL)
RETURNS TABLE (ord integer, applied boolean, queue_name text, partition_name text, drained boolean)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  v_now timestamptz := clock_timestamp();
  c queen.consumers%ROWTYPE;
  e record;
  v_lease_txs text[];
  v_txs text[];
BEGIN
  FOR e IN
    SELECT u.pid, u.g, u.l, u.n::integer AS k, u.t,
           (sum(u.cnt) OVER (ORDER BY u.n) - u.cnt + 1)::integer AS first_tx, u.cnt
    FROM unnest(p_pids, p_groups, p_leases, p_counts, p_tenants) WITH ORDINALITY AS u(pid, g, l, cnt, t, n)
    ORDER BY u.pid, u.g, u.n
  LOOP
    ord := e.k; applied := false; queue_name := NULL; partition_name := NULL; drained := NULL;
    SELECT * INTO c FROM queen.consumers x WHERE x.partition_id = e.pid AND x.consumer_group = e.g FOR UPDATE;
    IF FOUND AND c.lease_id = e.l AND c.lease_expires_at > v_now
       AND NOT EXISTS (SELECT 1 FROM queen.message_states s WHERE s.partition_id = e.pid AND s.consumer_group = e.g
                       AND s.position > c.cursor_position) THEN
      -- Compared as sorted lists in byte order ("C"): cheap under any database collation. The lease's rows
      -- are read in position order so the primary key is the only fitting index: on a partition too new
      -- for the statistics, the planner otherwise walked its whole transaction-id index (8 ms, not 0.1).
      SELECT array_agg(r.tx ORDER BY r.tx) INTO v_lease_txs
      FROM (SELECT m.transaction_id COLLATE "C" AS tx FROM queen.messages m
            WHERE m.partition_id = e.pid AND m.position > c.cursor_position AND m.position <= c.lease_to
            ORDER BY m.position OFFSET 0) r;
      SELECT array_agg(t COLLATE "C" ORDER BY t COLLATE "C") INTO v_txs
      FROM unnest(p_txs[e.first_tx : e.first_tx + e.cnt - 1]) AS t;
      -- The names the answer needs come from the one lookup that also checks the entry's tenant, so tenancy
      -- costs no extra lookup; a partition of another tenant does not apply.
      IF v_lease_txs = v_txs THEN
        SELECT qq.name, pp.name, pp.next_position - 1 <= c.lease_to INTO queue_name, partition_name, drained
        FROM queen.partitions pp JOIN queen.queues qq ON qq.id = pp.queue_id
        WHERE pp.id = e.pid AND qq.tenant = coalesce(e.t, '');
        IF FOUND THEN
          UPDATE queen.consumers k
          SET cursor_position = c.lease_to, lease_id = NULL, lease_expires_at = NULL, lease_to = NULL,
              total_consumed = k.total_consumed + e.cnt, last_consumed_at = v_now
          WHERE k.partition_id = e.pid AND k.consumer_group = e.g;
          applied := true;
        ELSE
          queue_name := NULL; partition_name := NULL; drained := NULL;
        END IF;
      END IF;
    END IF;
    RETURN NEXT;
  END LOOP;
END;
$fn$;
