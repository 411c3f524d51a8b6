-- Stores one push batch (queen.push_messages, schema 002).
-- $1 tenant, $2 items (jsonb array), $3 replay (boolean).
SELECT idx, status, message_id, partition_id, error FROM queen.push_messages($1, $2::jsonb, $3)
