-- POST /api/v1/messages/:partitionId/:transactionId/retry stored a DLQ payload copy as a new message: that
-- message, locked until the retry commits, so an encrypted copy can be sealed again for its new transaction
-- id (the ciphertext is bound to the transaction id, docs/semantics.md, "Encryption: what and how") before anyone can
-- pop it. $1 partition id, $2 the new transaction id.
SELECT m.position, m.payload, m.is_encrypted
FROM queen.messages m
WHERE m.partition_id = $1 AND m.transaction_id = $2
ORDER BY m.position DESC
LIMIT 1
FOR UPDATE
