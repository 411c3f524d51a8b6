UPDATE queen_proxy.api_keys SET revoked_at = now()
WHERE (id::text = $1 OR prefix = $1) AND revoked_at IS NULL
RETURNING id, prefix
