-- GET /api/v1/analytics/postgres-stats deadTuples, hotUpdates, autovacuumStatus: row activity and vacuum
-- history per table of schema queen. No parameters.
SELECT t.relname AS table_name, t.n_live_tup::bigint AS live_tuples, t.n_dead_tup::bigint AS dead_tuples,
       round(100.0 * t.n_dead_tup / nullif(t.n_live_tup + t.n_dead_tup, 0), 2)::float8 AS dead_ratio,
       t.n_tup_upd::bigint AS updates, t.n_tup_hot_upd::bigint AS hot_updates,
       round(100.0 * t.n_tup_hot_upd / nullif(t.n_tup_upd, 0), 2)::float8 AS hot_ratio,
       t.n_mod_since_analyze::bigint AS modified_since_analyze, t.last_vacuum, t.last_autovacuum,
       t.last_analyze, t.last_autoanalyze, t.vacuum_count::bigint AS vacuum_count,
       t.autovacuum_count::bigint AS autovacuum_count, t.autoanalyze_count::bigint AS autoanalyze_count
FROM pg_stat_user_tables t
WHERE t.schemaname = 'queen'
ORDER BY t.relname
