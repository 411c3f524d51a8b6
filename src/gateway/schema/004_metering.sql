-- Metering (docs/gateway.md, "Metering"): per tenant per hour, added to by every replica's flush. No foreign key to
-- tenants: the history of a deleted tenant is still its bill.
CREATE TABLE IF NOT EXISTS queen_proxy.usage_hourly (
  tenant_id uuid NOT NULL,
  hour timestamptz NOT NULL,
  requests bigint NOT NULL DEFAULT 0,
  messages_pushed bigint NOT NULL DEFAULT 0,
  messages_delivered bigint NOT NULL DEFAULT 0,
  messages_acked bigint NOT NULL DEFAULT 0,
  bytes_in bigint NOT NULL DEFAULT 0,
  bytes_out bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, hour)
);

CREATE INDEX IF NOT EXISTS usage_hourly_hour ON queen_proxy.usage_hourly (hour);
