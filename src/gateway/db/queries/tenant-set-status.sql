UPDATE queen_proxy.tenants SET status = $2 WHERE name = $1 OR id::text = $1
RETURNING id, name, status, created_at
