INSERT INTO queen_proxy.api_keys (id, tenant_id, prefix, salt, hash, role, name, expires_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
RETURNING id, prefix, role, name, created_at, expires_at
