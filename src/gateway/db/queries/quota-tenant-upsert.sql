-- `proxy quota set --tenant`: writes a tenant's whole row (the command merged the flags into the current values).
-- $1 tenant id, $2 max queues, $3 max partitions, $4 max messages per day, $5 max payload bytes per day,
-- $6 max stored bytes, $7 requests per second, $8 messages per second; NULL = unlimited.
INSERT INTO queen_proxy.tenant_limits AS l (tenant_id, max_queues, max_partitions, max_messages_per_day,
  max_payload_bytes_per_day, max_stored_bytes, requests_per_second, messages_per_second, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())
ON CONFLICT (tenant_id) DO UPDATE SET max_queues = EXCLUDED.max_queues, max_partitions = EXCLUDED.max_partitions,
  max_messages_per_day = EXCLUDED.max_messages_per_day, max_payload_bytes_per_day = EXCLUDED.max_payload_bytes_per_day,
  max_stored_bytes = EXCLUDED.max_stored_bytes, requests_per_second = EXCLUDED.requests_per_second,
  messages_per_second = EXCLUDED.messages_per_second, updated_at = now()
RETURNING tenant_id, max_queues, max_partitions, max_messages_per_day, max_payload_bytes_per_day, max_stored_bytes,
  requests_per_second, messages_per_second, updated_at
