-- DELETE /api/v1/messages/:partitionId/:transactionId: deletes a message (or its surviving DLQ copy) with its
-- DLQ entries and traces, and moves every group's cursor and lease past it (queen.delete_message, schema 007).
-- $1 tenant, $2 partition id, $3 transaction id.
SELECT deleted, queue_name, partition_name, leases_released FROM queen.delete_message($1, $2, $3)
