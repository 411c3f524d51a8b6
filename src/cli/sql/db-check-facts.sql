-- queenctl db check (docs/operations.md, "PostgreSQL requirements" and "Pool sizing"): one row of facts about the
-- server, the role and the connection, read from settings and catalogues only (works for any role: objects are looked
-- up by oid, so a role without USAGE on schema queen gets false rather than an error; changes nothing).
-- reserved_connections exists from PostgreSQL 16 (missing_ok makes it NULL before).
SELECT
  current_setting('server_version_num')::integer AS version_num,
  current_setting('server_version') AS version,
  current_setting('max_connections')::integer AS max_connections,
  current_setting('superuser_reserved_connections')::integer AS superuser_reserved,
  coalesce(current_setting('reserved_connections', true), '0')::integer AS reserved,
  (SELECT count(*)::integer FROM pg_stat_activity WHERE backend_type = 'client backend') AS connections_in_use,
  current_setting('synchronous_commit') AS synchronous_commit,
  current_user AS role,
  current_database() AS database,
  has_database_privilege(current_database(), 'CREATE') AS can_create_schema,
  (SELECT pg_has_role(nspowner, 'USAGE') FROM pg_namespace WHERE nspname = 'queen') AS owns_queen_schema,
  (SELECT has_schema_privilege(n.oid, 'USAGE') AND has_table_privilege(c.oid, 'SELECT,INSERT,UPDATE,DELETE')
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'queen' AND c.relname = 'messages') AS can_write_messages,
  inet_server_port() AS server_port,
  pg_backend_pid() AS backend_pid
