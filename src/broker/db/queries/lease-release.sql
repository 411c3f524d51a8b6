-- Releases a lease without counting a failure (the pop's answer could not be delivered).
-- $1 lease id.
SELECT queen.release_lease($1) AS released
