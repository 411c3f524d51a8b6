UPDATE queen_proxy.api_keys k
SET last_used_at = greatest(k.last_used_at, used.at)
FROM unnest($1::uuid[], $2::timestamptz[]) AS used (id, at)
WHERE k.id = used.id
