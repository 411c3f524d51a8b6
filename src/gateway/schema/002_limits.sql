-- Quotas and rate limits (docs/gateway.md, "Quotas and rate limits"). Creates: tenant_limits and key_limits (what
-- `proxy quota set` stores; NULL = unlimited), limits_version (bumped by a trigger on every change, polled by every
-- replica), tenant_daily_usage and tenant_pushed_totals with count_push() (the counters of the per-day and
-- stored-bytes quotas), rate_buckets and take_tokens() (the token buckets every replica draws from in chunks).
-- Idempotent; applied under the gateway's schema lock.
CREATE TABLE IF NOT EXISTS queen_proxy.tenant_limits (
  tenant_id uuid PRIMARY KEY REFERENCES queen_proxy.tenants (id) ON DELETE CASCADE,
  max_queues bigint CHECK (max_queues >= 0),
  max_partitions bigint CHECK (max_partitions >= 0),
  max_messages_per_day bigint CHECK (max_messages_per_day >= 0),
  max_payload_bytes_per_day bigint CHECK (max_payload_bytes_per_day >= 0),
  max_stored_bytes bigint CHECK (max_stored_bytes >= 0),
  requests_per_second double precision CHECK (requests_per_second > 0),
  messages_per_second double precision CHECK (messages_per_second > 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS queen_proxy.key_limits (
  key_id uuid PRIMARY KEY REFERENCES queen_proxy.api_keys (id) ON DELETE CASCADE,
  requests_per_second double precision CHECK (requests_per_second > 0),
  messages_per_second double precision CHECK (messages_per_second > 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- One row; every replica polls it (PROXY_LIMITS_REFRESH_MS) and reloads the limits when it moved.
CREATE TABLE IF NOT EXISTS queen_proxy.limits_version (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  version bigint NOT NULL DEFAULT 0
);
INSERT INTO queen_proxy.limits_version (id, version) VALUES (true, 0) ON CONFLICT (id) DO NOTHING;

CREATE OR REPLACE FUNCTION queen_proxy.bump_limits_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE queen_proxy.limits_version SET version = version + 1;
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS tenant_limits_version ON queen_proxy.tenant_limits;
CREATE TRIGGER tenant_limits_version AFTER INSERT OR UPDATE OR DELETE ON queen_proxy.tenant_limits
  FOR EACH STATEMENT EXECUTE FUNCTION queen_proxy.bump_limits_version();

DROP TRIGGER IF EXISTS key_limits_version ON queen_proxy.key_limits;
CREATE TRIGGER key_limits_version AFTER INSERT OR UPDATE OR DELETE ON queen_proxy.key_limits
  FOR EACH STATEMENT EXECUTE FUNCTION queen_proxy.bump_limits_version();

-- Messages and payload bytes admitted per tenant per UTC day (the per-day quotas' counters), and over all time (the
-- stored-bytes quota's counter: what was pushed since the brokers were last asked what they hold).
CREATE TABLE IF NOT EXISTS queen_proxy.tenant_daily_usage (
  tenant_id uuid NOT NULL REFERENCES queen_proxy.tenants (id) ON DELETE CASCADE,
  day date NOT NULL,
  messages bigint NOT NULL DEFAULT 0,
  payload_bytes bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, day)
);

CREATE TABLE IF NOT EXISTS queen_proxy.tenant_pushed_totals (
  tenant_id uuid PRIMARY KEY REFERENCES queen_proxy.tenants (id) ON DELETE CASCADE,
  messages bigint NOT NULL DEFAULT 0,
  payload_bytes bigint NOT NULL DEFAULT 0
);

-- Counts a push against its tenant's quotas only if it fits all of them, in one transaction with the rows locked
-- (totals, then the day: the one order), so replicas together never admit past a quota. `refused` is NULL when
-- counted, else the quota's name, with `used` its counter before this push. p_stored_ceiling is the value the
-- all-time payload bytes may reach (computed by the gateway from the brokers' view), NULL without the quota.
CREATE OR REPLACE FUNCTION queen_proxy.count_push(
  p_tenant uuid, p_day date, p_messages bigint, p_bytes bigint,
  p_max_messages_per_day bigint, p_max_bytes_per_day bigint, p_stored_ceiling bigint,
  OUT refused text, OUT used bigint
) LANGUAGE plpgsql AS $$
DECLARE
  v_total bigint;
  v_messages bigint;
  v_bytes bigint;
BEGIN
  INSERT INTO queen_proxy.tenant_pushed_totals (tenant_id) VALUES (p_tenant) ON CONFLICT (tenant_id) DO NOTHING;
  SELECT payload_bytes INTO v_total FROM queen_proxy.tenant_pushed_totals WHERE tenant_id = p_tenant FOR UPDATE;
  INSERT INTO queen_proxy.tenant_daily_usage (tenant_id, day) VALUES (p_tenant, p_day)
    ON CONFLICT (tenant_id, day) DO NOTHING;
  SELECT messages, payload_bytes INTO v_messages, v_bytes FROM queen_proxy.tenant_daily_usage
    WHERE tenant_id = p_tenant AND day = p_day FOR UPDATE;
  IF p_max_messages_per_day IS NOT NULL AND v_messages + p_messages > p_max_messages_per_day THEN
    refused := 'messages-per-day'; used := v_messages; RETURN;
  END IF;
  IF p_max_bytes_per_day IS NOT NULL AND v_bytes + p_bytes > p_max_bytes_per_day THEN
    refused := 'payload-bytes-per-day'; used := v_bytes; RETURN;
  END IF;
  IF p_stored_ceiling IS NOT NULL AND v_total + p_bytes > p_stored_ceiling THEN
    refused := 'stored-bytes'; used := v_total; RETURN;
  END IF;
  UPDATE queen_proxy.tenant_pushed_totals
    SET messages = messages + p_messages, payload_bytes = payload_bytes + p_bytes WHERE tenant_id = p_tenant;
  UPDATE queen_proxy.tenant_daily_usage
    SET messages = messages + p_messages, payload_bytes = payload_bytes + p_bytes
    WHERE tenant_id = p_tenant AND day = p_day;
END
$$;

-- The shared token buckets: `bucket` is `tenant:<id>:requests`, `key:<id>:messages`, ... Replicas take tokens in
-- chunks and spend them locally, so the row is touched a few times a second per busy bucket, not per request.
CREATE TABLE IF NOT EXISTS queen_proxy.rate_buckets (
  bucket text PRIMARY KEY,
  tokens double precision NOT NULL,
  refilled_at timestamptz NOT NULL
);

-- Refills the bucket for the time since its last take (at `rate` per second, up to `capacity`), then grants up
-- to `want` tokens. Returns what was granted and what is left; one clock (the database's) for every replica.
CREATE OR REPLACE FUNCTION queen_proxy.take_tokens(
  p_bucket text, p_rate double precision, p_capacity double precision, p_want double precision,
  OUT granted double precision, OUT remaining double precision
) LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz := clock_timestamp();
  v_tokens double precision;
  v_at timestamptz;
BEGIN
  INSERT INTO queen_proxy.rate_buckets (bucket, tokens, refilled_at) VALUES (p_bucket, p_capacity, v_now)
    ON CONFLICT (bucket) DO NOTHING;
  SELECT tokens, refilled_at INTO v_tokens, v_at FROM queen_proxy.rate_buckets WHERE bucket = p_bucket FOR UPDATE;
  v_tokens := least(p_capacity, v_tokens + greatest(0, extract(epoch FROM v_now - v_at)) * p_rate);
  granted := greatest(0, least(p_want, v_tokens));
  remaining := v_tokens - granted;
  UPDATE queen_proxy.rate_buckets SET tokens = remaining, refilled_at = v_now WHERE bucket = p_bucket;
END
$$;
