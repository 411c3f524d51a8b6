-- Gives back a push the brokers refused (a 4xx answer: nothing stored). $1 tenant id, $2 UTC day, $3 messages,
-- $4 payload bytes.
WITH totals AS (
  UPDATE queen_proxy.tenant_pushed_totals
  SET messages = greatest(0, messages - $3), payload_bytes = greatest(0, payload_bytes - $4)
  WHERE tenant_id = $1
)
UPDATE queen_proxy.tenant_daily_usage
SET messages = greatest(0, messages - $3), payload_bytes = greatest(0, payload_bytes - $4)
WHERE tenant_id = $1 AND day = $2::date
