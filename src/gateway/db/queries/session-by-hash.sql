SELECT s.expires_at, u.id AS user_id, u.name AS user_name, u.role, t.id AS tenant_id, t.name AS tenant_name,
       t.status AS tenant_status
FROM queen_proxy.sessions s
JOIN queen_proxy.users u ON u.id = s.user_id
JOIN queen_proxy.tenants t ON t.id = u.tenant_id
WHERE s.token_hash = $1
