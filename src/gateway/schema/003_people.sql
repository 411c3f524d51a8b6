-- People (docs/gateway.md, "People: users, sessions and sign-in"): users who sign in with a password (or an
-- OpenID Connect subject) and the sessions they hold. Each user has one tenant and one of the keys' five roles.
CREATE TABLE IF NOT EXISTS queen_proxy.users (
  id uuid PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES queen_proxy.tenants (id) ON DELETE CASCADE,
  name text NOT NULL UNIQUE CHECK (name ~ '^[A-Za-z0-9._@+-]{1,128}$'),
  -- scrypt of the password with its own salt, as for API keys; NULL for a user who signs in only with OIDC.
  salt bytea,
  hash bytea,
  role text NOT NULL CHECK (role IN ('read-only', 'producer', 'consumer', 'read-write', 'tenant-admin')),
  -- The `sub` claim of an OpenID Connect provider this user signs in as, if any.
  oidc_subject text UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS users_tenant ON queen_proxy.users (tenant_id);

CREATE TABLE IF NOT EXISTS queen_proxy.sessions (
  -- SHA-256 of the session token (`qs_` and 32 random bytes): the token itself is never stored.
  token_hash bytea PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES queen_proxy.users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);

CREATE INDEX IF NOT EXISTS sessions_user ON queen_proxy.sessions (user_id);
CREATE INDEX IF NOT EXISTS sessions_expires ON queen_proxy.sessions (expires_at);

-- A logout, a user deleted or given another role ends or changes sessions on every replica: each one notifies the
-- channel the key verdicts listen on (001), so cached sessions are dropped within the notification's delivery.
CREATE OR REPLACE FUNCTION queen_proxy.notify_people_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'users' THEN
    PERFORM pg_notify('queen_proxy_keys', 'user:' || COALESCE(NEW.id, OLD.id)::text);
  ELSE
    PERFORM pg_notify('queen_proxy_keys', 'session:' || encode(OLD.token_hash, 'hex'));
  END IF;
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS users_notify ON queen_proxy.users;
CREATE TRIGGER users_notify AFTER UPDATE OF role, tenant_id OR DELETE ON queen_proxy.users
  FOR EACH ROW EXECUTE FUNCTION queen_proxy.notify_people_change();

DROP TRIGGER IF EXISTS sessions_notify ON queen_proxy.sessions;
CREATE TRIGGER sessions_notify AFTER DELETE ON queen_proxy.sessions
  FOR EACH ROW EXECUTE FUNCTION queen_proxy.notify_people_change();
