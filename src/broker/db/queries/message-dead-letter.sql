-- POST /api/v1/messages/:partitionId/:transactionId/dlq: dead-letters a message for one group and settles it
-- (queen.dead_letter_message, schema 007). outcome: moved | not_found | already_settled.
-- $1 tenant, $2 partition id, $3 transaction id, $4 group, $5 error text.
SELECT outcome, queue_name, partition_name, lease_released FROM queen.dead_letter_message($1, $2, $3, $4, $5)
