-- Locks the consumer rows of the leases a transaction requires and returns those still live.
-- $1 lease ids (uuid[]), $2 tenant (a lease on another tenant's partition is not found).
SELECT DISTINCT lease_id FROM (
  SELECT k.lease_id FROM queen.consumers k
  JOIN queen.partitions p ON p.id = k.partition_id
  JOIN queen.queues q ON q.id = p.queue_id AND q.tenant = $2
  WHERE k.lease_id = ANY($1::uuid[]) AND k.lease_expires_at > clock_timestamp()
  ORDER BY k.partition_id, k.consumer_group
  FOR UPDATE OF k
) live
