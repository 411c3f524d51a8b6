/**
 * Seeds a backlog fast for the scaling benchmark (`--scale`): whole messages written by SQL, without a
 * request per batch. Ours goes through queen.push_messages(), the function a push runs, so the rows,
 * positions, partition counters and dedup entries are exactly what pushes would store; the ceiling and
 * pg-boss get plain INSERT ... SELECT generate_series into their own tables.
 *
 * Seeded messages are message `seq` of producer {@link SEED_PRODUCER}, with the payload shape of
 * adapter.ts (producer, seq, t = 0, about 200 bytes) and the transaction id `<tag>.<producer>.<seq>`, so
 * consumers read them like any other message; message `seq` goes to partition `seq % partitions`.
 */

/** The producer number of seeded messages (real producers are numbered from 0). */
export const SEED_PRODUCER = 9999

/** The payload of seeded message `seqExpr` (a SQL expression), about 200 bytes as JSON. */
export function seedPayloadSql(seqExpr: string): string {
  return `jsonb_build_object(
    'producer', ${SEED_PRODUCER}, 'seq', ${seqExpr}, 't', 0,
    'customerId', 'cust-' || (${seqExpr} % 100000), 'amount', ((${seqExpr} * 37) % 100000) / 100.0,
    'currency', 'EUR',
    'items', jsonb_build_array(jsonb_build_object('sku', 'sku-' || (${seqExpr} % 1000), 'qty', 1 + ${seqExpr} % 5),
                               jsonb_build_object('sku', 'sku-' || ((${seqExpr} + 500) % 1000), 'qty', 1)),
    'note', repeat('s', 48))`
}

/**
 * One push of messages $4..$5 (inclusive) to queue $1, tag $2, over $3 partitions named `p<n>`, through
 * queen.push_messages (tenant '', not a replay). Message ids are UUIDv7-shaped (time first, as the broker's
 * are): PostgreSQL 17 has no uuidv7().
 */
export const OURS_SEED_SQL = `
SELECT count(*) FILTER (WHERE r.status = 'queued')::int AS queued, count(*)::int AS items
FROM queen.push_messages('', (
  SELECT jsonb_agg(jsonb_build_object(
    'i', g - $4::bigint,
    'q', $1::text,
    'p', 'p' || (g % $3::int),
    'id', (lpad(to_hex(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0') || '7' ||
           substr(md5($2::text || g), 1, 3) || '8' || substr(md5($2::text || g), 4, 15))::uuid,
    'tx', $2::text || '.${SEED_PRODUCER}.' || g,
    'gen', false,
    'pl', ${seedPayloadSql('g')}) ORDER BY g)
  FROM generate_series($4::bigint, $5::bigint) AS g), false) AS r`

/** Messages per queen.push_messages call: 20 000 items is a 5-6 MB JSON argument. */
export const OURS_SEED_CHUNK = 20_000

/** Splits `count` messages starting at `first` into [first, last] chunks of at most `size`. */
export function chunks(first: number, count: number, size: number): [number, number][] {
  const out: [number, number][] = []
  for (let start = first; start < first + count; start += size) {
    out.push([start, Math.min(first + count, start + size) - 1])
  }
  return out
}
