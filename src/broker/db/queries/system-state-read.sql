-- The cluster-wide maintenance flags (docs/semantics.md, "Maintenance mode").
SELECT key, value FROM queen.system_state WHERE key IN ('maintenance', 'pop_maintenance')
