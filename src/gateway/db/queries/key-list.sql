SELECT k.id, k.prefix, t.name AS tenant, k.role, k.name, k.created_at, k.expires_at, k.revoked_at, k.last_used_at
FROM queen_proxy.api_keys k
JOIN queen_proxy.tenants t ON t.id = k.tenant_id
WHERE $1::text IS NULL OR t.name = $1 OR t.id::text = $1
ORDER BY t.name, k.created_at, k.prefix
