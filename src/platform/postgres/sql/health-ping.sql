-- The readiness probe's round trip: whether this server takes writes. A hot standby, or a demoted primary
-- coming back as one, answers queries but refuses every write (issue 38), so it is not a ready database.
SELECT pg_is_in_recovery() OR current_setting('transaction_read_only')::boolean AS read_only
