SELECT k.id, k.salt, k.hash, k.role, k.expires_at, k.revoked_at, t.id AS tenant_id, t.name AS tenant_name,
       t.status AS tenant_status
FROM queen_proxy.api_keys k
JOIN queen_proxy.tenants t ON t.id = k.tenant_id
WHERE k.id = $1
