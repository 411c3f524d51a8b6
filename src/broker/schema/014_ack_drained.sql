-- 014_ack_drained: queen.ack_leases_drained(), queen.ack_leases() (005) plus, for each lease it released,
-- whether the partition held no message beyond it. The broker skips re-checking its parked long-polls for a
-- drained release (at low rates every ack's re-check was an empty pop). A new function rather than a fifth
-- column of ack_leases, so a broker of the previous version can still boot and re-apply its own 005 during a
-- rolling upgrade or a rollback.
--
-- Objects: function queen.ack_leases_drained.
--
-- Locking: that of queen.ack_leases; the drained check is a plain read after it, in the same transaction.
--
-- drained is read after every entry is applied, so a push committed meanwhile makes it false; a push that
-- commits between this read and the ack's commit is covered by the broker (it wakes anyway when its waiters
-- were woken during the ack, and always publishes the release to the other replicas).

CREATE OR REPLACE FUNCTION queen.ack_leases_drained(p_pids uuid[], p_groups text[], p_leases uuid[],
                                                    p_counts integer[], p_txs text[])
RETURNS TABLE (ord integer, applied boolean, queue_name text, partition_name text, drained boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
  r record;
BEGIN
  -- The function scan materialises every entry before the first row comes back, so the reads below see
  -- the moved cursors.
  FOR r IN SELECT * FROM queen.ack_leases(p_pids, p_groups, p_leases, p_counts, p_txs) LOOP
    ord := r.ord; applied := r.applied; queue_name := r.queue_name; partition_name := r.partition_name;
    drained := NULL;
    IF r.applied THEN
      SELECT p.next_position - 1 <= k.cursor_position INTO drained
      FROM queen.partitions p
      JOIN queen.consumers k ON k.partition_id = p.id AND k.consumer_group = p_groups[r.ord]
      WHERE p.id = p_pids[r.ord];
    END IF;
    RETURN NEXT;
  END LOOP;
END;
$fn$;
