-- Takes up to $4 tokens from the shared bucket $1 refilled at $2 per second up to $3 (schema 002_limits.sql).
SELECT granted, remaining FROM queen_proxy.take_tokens($1, $2, $3, $4)
