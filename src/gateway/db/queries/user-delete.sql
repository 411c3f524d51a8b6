DELETE FROM queen_proxy.users WHERE name = $1 OR id::text = $1
RETURNING id, name
