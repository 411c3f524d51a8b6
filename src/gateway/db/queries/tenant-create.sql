INSERT INTO queen_proxy.tenants (id, name) VALUES ($1, $2)
RETURNING id, name, status, created_at
