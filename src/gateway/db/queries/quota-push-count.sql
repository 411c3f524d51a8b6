-- Counts a push against its tenant's per-day and stored-bytes quotas if it fits them all (schema 002_limits.sql,
-- count_push). $1 tenant id, $2 UTC day, $3 messages, $4 payload bytes, $5 max messages per day, $6 max payload
-- bytes per day, $7 stored-bytes ceiling of the all-time payload bytes; NULL = no such quota.
SELECT refused, used FROM queen_proxy.count_push($1, $2::date, $3, $4, $5, $6, $7)
