-- Polled by every replica (PROXY_LIMITS_REFRESH_MS): a change here means the limits changed; reload them.
SELECT version FROM queen_proxy.limits_version
