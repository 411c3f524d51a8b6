-- Extends every live lease row carrying a lease id (queen.extend_lease, schema 003).
-- $1 lease id, $2 seconds, $3 tenant.
SELECT outcome, expires_at FROM queen.extend_lease($1, $2, $3)
