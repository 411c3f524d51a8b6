DELETE FROM queen_proxy.tenants WHERE name = $1 OR id::text = $1
RETURNING id, name
