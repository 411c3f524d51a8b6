-- Recomputes the stats snapshot under the cluster-wide stats lock (schema 009_stats.sql); acquired is false
-- and every count 0 when another session is refreshing. No parameters.
SELECT acquired, partition_rows, queue_rows, namespace_rows, task_rows, system_rows, consumer_rows, cleanup_rows
FROM queen.refresh_stats()
