INSERT INTO queen_proxy.users (id, tenant_id, name, salt, hash, role, oidc_subject)
VALUES ($1, $2, $3, $4, $5, $6, $7)
RETURNING id, name, role, oidc_subject, created_at
