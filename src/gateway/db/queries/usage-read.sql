SELECT u.tenant_id, t.name AS tenant, u.hour, u.requests, u.messages_pushed, u.messages_delivered, u.messages_acked,
       u.bytes_in, u.bytes_out
FROM queen_proxy.usage_hourly u
LEFT JOIN queen_proxy.tenants t ON t.id = u.tenant_id
WHERE ($1::text IS NULL OR t.name = $1 OR u.tenant_id::text = $1)
  AND u.hour >= $2 AND u.hour < $3
ORDER BY u.hour, t.name NULLS LAST, u.tenant_id
