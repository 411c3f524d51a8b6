/**
 * What a partition lease costs PostgreSQL, in one quiet session (docs/scale.md, "Where the curve still bends"):
 *
 *   npx tsx bench/lease-cost.ts [--pairs 200] [--rounds 3]
 *
 * Starts the benchmark's PostgreSQL (embedded, or the server named by PG_HOST), applies the schema, and times
 * pop 100 + whole-lease ack through the broker's own functions, with no broker and no concurrency, on two
 * queues holding the same kind of messages: 16 partitions of 2,500 (a pop takes one partition) and 20,000
 * partitions of 2 (a pop takes 50). The difference per message is the cost of the extra leases. The first 20
 * pairs of each queue are not counted (the first pops absorb the pushes, schema 015).
 */
import { randomUUID } from 'node:crypto'
import pg from 'pg'
import { BROKER_SCHEMA } from '../src/broker/db/broker-schema.js'
import { applySchema } from '../src/platform/postgres/schema-apply.js'
import { positiveIntOption } from './cli-options.js'
import { startBenchPostgres } from './postgres.js'

const QUEUE_MODE = '__QUEUE_MODE__'
const WARMUP_PAIRS = 20

interface Shape {
  label: string
  partitions: number
  perPartition: number
  maxPartitions: number
}

const SHAPES: Shape[] = [
  { label: '16 partitions x 2,500', partitions: 16, perPartition: 2_500, maxPartitions: 1 },
  { label: '20,000 partitions x 2', partitions: 20_000, perPartition: 2, maxPartitions: 50 },
]

async function store(client: pg.Client, queue: string, shape: Shape): Promise<string> {
  const total = shape.partitions * shape.perPartition
  for (let from = 0; from < total; from += 2_000) {
    const items = Array.from({ length: Math.min(2_000, total - from) }, (_, offset) => {
      const n = from + offset
      return { i: offset, q: queue, p: `p${n % shape.partitions}`, id: randomUUID(), tx: `${queue}-${n}`, pl: { n } }
    })
    await client.query(`SELECT count(*) FROM queen.push_messages('', $1::jsonb)`, [JSON.stringify(items)])
  }
  await client.query('VACUUM ANALYZE queen.consumers')
  await client.query('VACUUM ANALYZE queen.messages')
  const found = await client.query<{ id: string }>('SELECT id FROM queen.queues WHERE name = $1', [queue])
  const id = found.rows[0]?.id
  if (id === undefined) throw new Error(`queue ${queue} was not created`)
  return id
}

const elapsedMs = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e6

async function measure(client: pg.Client, shape: Shape, pairs: number): Promise<string> {
  const queueId = await store(client, `lease_cost_${Date.now()}`, shape)
  let popMs = 0
  let ackMs = 0
  let counted = 0
  let messages = 0
  let leases = 0
  for (let pair = 0; pair < pairs + WARMUP_PAIRS; pair++) {
    const lease = randomUUID()
    let started = process.hrtime.bigint()
    const popped = await client.query<{ partition_id: string; transaction_id: string }>(
      `SELECT * FROM queen.pop_messages($1, NULL, $2, 100, $3, $4, false, NULL, NULL) WHERE kind = 'message'`,
      [queueId, QUEUE_MODE, shape.maxPartitions, lease],
    )
    const pop = elapsedMs(started)
    const byPartition = new Map<string, string[]>()
    for (const row of popped.rows)
      byPartition.set(row.partition_id, [...(byPartition.get(row.partition_id) ?? []), row.transaction_id])
    const pids = [...byPartition.keys()]
    started = process.hrtime.bigint()
    await client.query(
      'SELECT * FROM queen.ack_leases_drained($1::uuid[], $2::text[], $3::uuid[], $4::integer[], $5::text[])',
      [
        pids,
        pids.map(() => QUEUE_MODE),
        pids.map(() => lease),
        pids.map((pid) => byPartition.get(pid)?.length ?? 0),
        pids.flatMap((pid) => byPartition.get(pid) ?? []),
      ],
    )
    const ack = elapsedMs(started)
    if (pair < WARMUP_PAIRS) continue
    popMs += pop
    ackMs += ack
    counted += 1
    messages += popped.rows.length
    leases += pids.length
  }
  if (messages === 0) throw new Error(`${shape.label}: no message was popped`)
  return (
    `${shape.label}: pop ${(popMs / counted).toFixed(2)} ms, ack ${(ackMs / counted).toFixed(2)} ms, ` +
    `${(messages / counted).toFixed(0)} messages and ${(leases / counted).toFixed(0)} leases per pop, ` +
    `${(((popMs + ackMs) * 1000) / messages).toFixed(1)} µs per message (${counted} pairs)`
  )
}

async function main(): Promise<void> {
  const pairs = positiveIntOption('pairs', 200)
  const rounds = positiveIntOption('rounds', 3)
  const server = await startBenchPostgres((line) => console.error(`[lease-cost] ${line}`))
  const client = new pg.Client(server.connection)
  try {
    await client.connect()
    await applySchema(client, BROKER_SCHEMA)
    console.log(`PostgreSQL ${server.version}, ${server.origin}`)
    for (let round = 0; round < rounds; round++) {
      for (const shape of SHAPES) console.log(await measure(client, shape, pairs))
    }
  } finally {
    await client.end().catch(() => undefined)
    await server.stop()
  }
}

await main()
