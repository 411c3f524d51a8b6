-- Drops shared token buckets idle for longer than the longest burst (PROXY_RATE_LIMIT_BURST_MS is at most one hour):
-- such a bucket has refilled to its capacity, which is what take_tokens() creates again on its next use, so nothing
-- changes but the rows of deleted keys and tenants go away.
DELETE FROM queen_proxy.rate_buckets WHERE refilled_at < now() - interval '1 hour'
