-- One ack batch (queen.ack_messages, schema 005).
-- $1 items (jsonb array).
SELECT idx, success, error, lease_released, dlq, already_acked, queue_name, partition_name
FROM queen.ack_messages($1::jsonb)
