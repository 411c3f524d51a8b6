-- One pop request (queen.pop_messages, schema 004). Encrypted rows pass queen.require_payload_key (schema
-- 013): when one names a key this broker does not have, the statement fails with SQLSTATE QK001 and nothing
-- of the pop takes effect (no lease, no auto-ack; docs/semantics.md, "Pops without a usable key").
-- $1 queue id, $2 partition id or NULL, $3 group, $4 batch, $5 max partitions, $6 lease id, $7 auto-ack,
-- $8 subscription mode ('all' | 'new' | 'from'), $9 subscription start for 'from', $10 id of the broker's
-- encryption key (NULL without one).
SELECT kind, partition_id, partition_name, message_id, transaction_id, trace_id, payload, is_encrypted, producer_sub,
       created_at, retry_count
FROM queen.pop_messages($1, $2, $3, $4, $5, $6, $7, $8, $9) r
WHERE r.is_encrypted IS NOT TRUE OR queen.require_payload_key(r.payload, $10)
