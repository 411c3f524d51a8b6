-- The live lease of a source (partition, group), locked for the rest of the cycle, captured before the
-- cycle's ack so that a cycle with release_lease:false can put it back if the ack released it.
-- lease_expires_at travels as text so the restore puts back the exact (microsecond) expiry.
-- $1 partition id, $2 consumer group.
SELECT lease_id, lease_expires_at::text AS lease_expires_at, lease_to
FROM queen.consumers
WHERE partition_id = $1 AND consumer_group = $2 AND lease_id IS NOT NULL AND lease_expires_at > clock_timestamp()
FOR UPDATE
