-- A tenant's counters of one UTC day (`proxy quota get`, and naming the quota a push exceeded). $1 tenant id, $2 day.
SELECT messages, payload_bytes FROM queen_proxy.tenant_daily_usage WHERE tenant_id = $1 AND day = $2::date
