INSERT INTO queen_proxy.usage_hourly AS u
  (tenant_id, hour, requests, messages_pushed, messages_delivered, messages_acked, bytes_in, bytes_out)
SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[],
                     $7::bigint[], $8::bigint[])
ON CONFLICT (tenant_id, hour) DO UPDATE SET
  requests = u.requests + EXCLUDED.requests,
  messages_pushed = u.messages_pushed + EXCLUDED.messages_pushed,
  messages_delivered = u.messages_delivered + EXCLUDED.messages_delivered,
  messages_acked = u.messages_acked + EXCLUDED.messages_acked,
  bytes_in = u.bytes_in + EXCLUDED.bytes_in,
  bytes_out = u.bytes_out + EXCLUDED.bytes_out
