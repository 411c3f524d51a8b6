-- `proxy quota get --key`: one key's rate limits (NULL = unlimited). $1 key id.
SELECT key_id, requests_per_second, messages_per_second, updated_at FROM queen_proxy.key_limits WHERE key_id = $1
