-- Stores one push batch (queen.push_batch, schema 002).
-- $1 tenant; one array per item field, element n for item n - 1: $2 queues, $3 partitions, $4 message ids,
-- $5 transaction ids, $6 generated (the broker made the transaction id), $7 trace ids, $8 producer subs,
-- $9 encrypted; $10 the payloads as one JSON array; $11 replay; $12 acceptance times (replay only).
SELECT idx, status, message_id, partition_id, error
FROM queen.push_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12)
