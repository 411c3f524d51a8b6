-- One pop request (queen.pop_messages, schema 004).
-- $1 queue id, $2 partition id or NULL, $3 group, $4 batch, $5 max partitions, $6 lease id, $7 auto-ack,
-- $8 subscription mode ('all' | 'new' | 'from'), $9 subscription start for 'from'.
SELECT kind, partition_id, partition_name, message_id, transaction_id, trace_id, payload, is_encrypted, producer_sub,
       created_at, retry_count
FROM queen.pop_messages($1, $2, $3, $4, $5, $6, $7, $8, $9)
