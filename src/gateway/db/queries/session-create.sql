INSERT INTO queen_proxy.sessions (token_hash, user_id, expires_at)
VALUES ($1, $2, now() + make_interval(secs => $3))
RETURNING expires_at
