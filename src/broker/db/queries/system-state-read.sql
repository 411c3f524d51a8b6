-- The cluster-wide maintenance flags (semantics.md section 11).
SELECT key, value FROM queen.system_state WHERE key IN ('maintenance', 'pop_maintenance')
