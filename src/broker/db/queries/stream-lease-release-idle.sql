-- release_lease:true: releases the named live lease of (partition, group) when no message delivered
-- under it lacks an outcome. queen.ack_messages releases a lease when an ack gives its last open message
-- an outcome; this covers a lease a release_lease:false cycle kept after that, which later acks (answered
-- alreadyAcked) would otherwise never release.
-- $1 partition id, $2 consumer group, $3 lease id.
UPDATE queen.consumers k
SET lease_id = NULL, lease_expires_at = NULL, lease_to = NULL
WHERE k.partition_id = $1 AND k.consumer_group = $2 AND k.lease_id = $3 AND k.lease_expires_at > clock_timestamp()
  AND NOT queen.lease_has_open_messages(k.partition_id, k.consumer_group, k.cursor_position, k.lease_to, k.lease_id)
RETURNING k.partition_id
