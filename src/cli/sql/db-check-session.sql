-- queenctl db check: reads back, in a later statement, a session setting set by an earlier one. Behind a
-- transaction-mode pooler the two statements may reach different server sessions (docs/operations.md, "PostgreSQL
-- requirements").
SELECT current_setting('queen.db_check', true) AS value, pg_backend_pid() AS backend_pid
