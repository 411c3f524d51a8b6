-- Persists one cluster-wide flag before it is applied and broadcast.
-- $1 key ('maintenance' | 'pop_maintenance'), $2 value (jsonb).
INSERT INTO queen.system_state (key, value, updated_at) VALUES ($1, $2::jsonb, now())
ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at
