SELECT id, name, status, created_at FROM queen_proxy.tenants WHERE name = $1 OR id::text = $1
