-- Replaces the stored payload of one message (an encrypted DLQ copy sealed again for its new transaction id).
-- $1 partition id, $2 position, $3 payload (jsonb text).
UPDATE queen.messages SET payload = $3::jsonb WHERE partition_id = $1 AND position = $2
