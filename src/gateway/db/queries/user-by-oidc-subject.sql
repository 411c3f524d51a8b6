SELECT u.id, u.name, u.salt, u.hash, u.role, t.id AS tenant_id, t.name AS tenant_name, t.status AS tenant_status
FROM queen_proxy.users u
JOIN queen_proxy.tenants t ON t.id = u.tenant_id
WHERE u.oidc_subject = $1
