-- The limits snapshot every replica holds: every key's rate limits.
SELECT key_id, requests_per_second, messages_per_second, updated_at FROM queen_proxy.key_limits
