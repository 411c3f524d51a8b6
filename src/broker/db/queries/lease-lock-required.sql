-- Locks the consumer rows of the leases a transaction requires and returns those still live.
-- $1 lease ids (uuid[]).
SELECT DISTINCT lease_id FROM (
  SELECT k.lease_id FROM queen.consumers k
  WHERE k.lease_id = ANY($1::uuid[]) AND k.lease_expires_at > clock_timestamp()
  ORDER BY k.partition_id, k.consumer_group
  FOR UPDATE
) live
