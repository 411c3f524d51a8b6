-- `proxy quota set|get --key`: a key by id or visible prefix, with its tenant. $1 id or prefix.
SELECT k.id, k.prefix, t.name AS tenant FROM queen_proxy.api_keys k JOIN queen_proxy.tenants t ON t.id = k.tenant_id
WHERE k.prefix = $1 OR k.id::text = $1
