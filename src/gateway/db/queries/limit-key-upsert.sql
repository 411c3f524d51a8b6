-- `proxy quota set --key`: writes a key's rate limits. $1 key id, $2 requests per second, $3 messages per second;
-- NULL = unlimited.
INSERT INTO queen_proxy.key_limits AS l (key_id, requests_per_second, messages_per_second, updated_at)
VALUES ($1, $2, $3, now())
ON CONFLICT (key_id) DO UPDATE SET requests_per_second = EXCLUDED.requests_per_second,
  messages_per_second = EXCLUDED.messages_per_second, updated_at = now()
RETURNING key_id, requests_per_second, messages_per_second, updated_at
