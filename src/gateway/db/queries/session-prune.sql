DELETE FROM queen_proxy.sessions WHERE expires_at < now()
