-- The gateway's tenants and API keys (docs/gateway.md, "Tenants and API keys"). Its own database, never the brokers'.
CREATE TABLE IF NOT EXISTS queen_proxy.tenants (
  -- The stable id the gateway sends to the brokers in the tenancy header: a rename never moves data.
  id uuid PRIMARY KEY,
  name text NOT NULL UNIQUE CHECK (name ~ '^[A-Za-z0-9._-]{1,64}$'),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS queen_proxy.api_keys (
  id uuid PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES queen_proxy.tenants (id) ON DELETE CASCADE,
  -- The visible part of the key (`qk_` and 10 characters): shown in listings and accepted by `apikey revoke`.
  prefix text NOT NULL UNIQUE,
  -- scrypt of the secret part with its own salt; the key itself is never stored.
  salt bytea NOT NULL,
  hash bytea NOT NULL,
  role text NOT NULL CHECK (role IN ('read-only', 'producer', 'consumer', 'read-write', 'tenant-admin')),
  name text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  revoked_at timestamptz,
  -- Written in batches (PROXY_LAST_USED_FLUSH_MS), never once per request.
  last_used_at timestamptz
);

CREATE INDEX IF NOT EXISTS api_keys_tenant ON queen_proxy.api_keys (tenant_id);

-- Every change that can refuse a key (revoke, delete, tenant suspend or delete) notifies every gateway replica,
-- which drops its cached verdicts: revocation takes effect within the notification's delivery, not a cache TTL.
CREATE OR REPLACE FUNCTION queen_proxy.notify_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'tenants' THEN
    PERFORM pg_notify('queen_proxy_keys', 'tenant:' || COALESCE(NEW.id, OLD.id)::text);
  ELSE
    PERFORM pg_notify('queen_proxy_keys', 'key:' || COALESCE(NEW.id, OLD.id)::text);
  END IF;
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS tenants_notify ON queen_proxy.tenants;
CREATE TRIGGER tenants_notify AFTER UPDATE OF status, name OR DELETE ON queen_proxy.tenants
  FOR EACH ROW EXECUTE FUNCTION queen_proxy.notify_key_change();

DROP TRIGGER IF EXISTS api_keys_notify ON queen_proxy.api_keys;
CREATE TRIGGER api_keys_notify AFTER UPDATE OF revoked_at, expires_at, role OR DELETE ON queen_proxy.api_keys
  FOR EACH ROW EXECUTE FUNCTION queen_proxy.notify_key_change();
