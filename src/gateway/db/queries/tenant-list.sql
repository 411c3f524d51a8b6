SELECT t.id, t.name, t.status, t.created_at,
       count(k.id) FILTER (WHERE k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now()))::integer AS active_keys
FROM queen_proxy.tenants t
LEFT JOIN queen_proxy.api_keys k ON k.tenant_id = t.id
GROUP BY t.id
ORDER BY t.name
