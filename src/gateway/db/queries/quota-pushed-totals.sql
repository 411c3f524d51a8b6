-- Everything a tenant pushed through the gateways over all time: the mean payload size and the baseline of the
-- stored-bytes estimate (docs/gateway.md, "Quotas and rate limits"). $1 tenant id.
SELECT messages::float8 AS messages, payload_bytes::float8 AS payload_bytes
FROM queen_proxy.tenant_pushed_totals WHERE tenant_id = $1
