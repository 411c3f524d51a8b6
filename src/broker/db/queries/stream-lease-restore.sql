-- release_lease:false (docs/http-api.md, "Streams"): the cycle's ack gave every message of the lease an outcome, so
-- queen.ack_messages released the lease; put the captured lease back, unchanged (same id, expiry and
-- range), in the same transaction. The partition stays held for the group until the lease expires (the
-- reclaim then finds nothing open under it and counts no failure), is extended, or is released by a
-- later cycle with release_lease:true. Acks naming the lease keep working meanwhile: its messages are
-- settled, so they answer alreadyAcked. Only a row whose lease is still empty is touched.
-- $1 partition id, $2 consumer group, $3 lease id, $4 expiry (timestamptz text), $5 lease_to.
UPDATE queen.consumers
SET lease_id = $3, lease_expires_at = $4::timestamptz, lease_to = $5
WHERE partition_id = $1 AND consumer_group = $2 AND lease_id IS NULL
