DELETE FROM queen_proxy.sessions WHERE token_hash = $1
