SELECT u.id, u.name, t.name AS tenant, u.role, u.oidc_subject, u.hash IS NOT NULL AS has_password, u.created_at,
       (SELECT count(*)::int FROM queen_proxy.sessions s WHERE s.user_id = u.id AND s.expires_at > now())
         AS active_sessions
FROM queen_proxy.users u
JOIN queen_proxy.tenants t ON t.id = u.tenant_id
WHERE $1::text IS NULL OR t.name = $1 OR t.id::text = $1
ORDER BY t.name, u.name
