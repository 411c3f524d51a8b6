-- The limits snapshot every replica holds (docs/gateway.md, "Quotas and rate limits"): every tenant's limits.
SELECT tenant_id, max_queues, max_partitions, max_messages_per_day, max_payload_bytes_per_day, max_stored_bytes,
       requests_per_second, messages_per_second, updated_at
FROM queen_proxy.tenant_limits
