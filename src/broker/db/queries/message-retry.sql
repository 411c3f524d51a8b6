-- POST /api/v1/messages/:partitionId/:transactionId/retry: takes a message out of the DLQ and delivers it
-- again (queen.retry_message, schema 007). No row: not in the DLQ of that group.
-- $1 tenant, $2 partition id, $3 transaction id, $4 group or NULL (every group holding it), $5 message id and
-- $6 transaction id for the new message when only a DLQ payload copy is left.
SELECT queue_name, partition_name, consumer_groups, new_transaction_id
FROM queen.retry_message($1, $2, $3, $4, $5, $6)
