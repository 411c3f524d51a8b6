-- Whole leases acked as completed in one statement (queen.ack_leases_drained, schema 014);
-- what does not apply goes through message-ack.sql.
-- $1 partition ids, $2 groups, $3 lease ids, $4 item count per lease, $5 transaction ids of every lease in turn,
-- $6 the tenant of each lease.
SELECT ord, applied, queue_name, partition_name, drained
FROM queen.ack_leases_drained($1::uuid[], $2::text[], $3::uuid[], $4::integer[], $5::text[], $6::text[])
