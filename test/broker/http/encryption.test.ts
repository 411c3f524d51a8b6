/**
 * Encryption at rest end to end (docs/semantics.md, "Encryption on push" and "Encryption at rest", docs/http-api.md,
 * "Pop answer", "Get a message", "List the dead-letter queue" and "Read traces", docs/reliability.md, "Hazards"): real
 * PostgreSQL, brokers with a key, without one and with another key on one database.
 */
import { randomBytes } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encryptionKeyId } from '../../../src/platform/config/key-format.js'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { createTestDatabase, dropTestDatabase } from '../../support/database.js'
import { parsePrometheusText } from '../../support/prometheus-text.js'
import { ackBatch, configure, pop, push, sleep } from '../../support/queen.js'

const KEY = randomBytes(32).toString('hex')
const OTHER_KEY = randomBytes(32).toString('hex')
const KEY_ID = encryptionKeyId(KEY)

let database: string
let keyed: TestBroker

beforeAll(async () => {
  database = await createTestDatabase('encryption')
  keyed = await startTestBroker({ database, config: { encryptionKey: KEY } })
})
afterAll(async () => {
  await keyed.close()
  await dropTestDatabase(database)
})

function marker(): string {
  return randomBytes(32).toString('hex')
}

/** Rows of a queue as stored, in partition and position order. */
async function storedRows(broker: TestBroker, queue: string) {
  const result = await broker.db.query(
    `SELECT m.transaction_id, m.trace_id, m.payload, m.payload::text AS text, m.is_encrypted, p.name AS partition
     FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id
     WHERE q.name = $1 ORDER BY p.name, m.position`,
    [queue],
  )
  return result.rows as {
    transaction_id: string
    trace_id: string | null
    payload: any
    text: string
    is_encrypted: boolean
    partition: string
  }[]
}

/** Occurrences of `text` in every payload PostgreSQL holds (messages and DLQ copies). */
async function occurrences(broker: TestBroker, text: string): Promise<number> {
  const result = await broker.db.query(
    `SELECT (SELECT count(*) FROM queen.messages WHERE strpos(payload::text, $1) > 0)
          + (SELECT count(*) FROM queen.dead_letters WHERE strpos(coalesce(payload::text, ''), $1) > 0) AS n`,
    [text],
  )
  return Number(result.rows[0].n)
}

async function scrape(broker: TestBroker) {
  const response = await http(broker, 'GET', '/metrics/prometheus')
  return parsePrometheusText(response.body as string)
}

/** Raw pop: the parsed body and the exact response text. */
async function rawPop(broker: TestBroker, query: string): Promise<{ body: any; text: string }> {
  const response = await fetch(`${broker.url}${query}`)
  const text = await response.text()
  return { body: JSON.parse(text), text }
}

/** Pops (and acks) everything of a queue for a group; returns the messages with the raw answer texts. */
async function drain(broker: TestBroker, queue: string, expected: number, group?: string) {
  const messages: any[] = []
  const texts: string[] = []
  const deadline = Date.now() + 30_000
  while (messages.length < expected && Date.now() < deadline) {
    const { body, text } = await rawPop(
      broker,
      `/api/v1/pop/queue/${queue}?batch=100${group ? `&consumerGroup=${group}` : ''}`,
    )
    expect(body.success === true || body.error === 'no_available_partition', text).toBe(true)
    if (body.messages.length === 0) {
      await sleep(20)
      continue
    }
    messages.push(...body.messages)
    texts.push(text)
    await ackBatch(broker, body.messages)
  }
  return { messages, text: texts.join('\n') }
}

function isCiphertextObject(value: unknown): boolean {
  return (
    value !== null &&
    typeof value === 'object' &&
    ['encrypted', 'iv', 'authTag', 'kid'].every((key) => key in (value as Record<string, unknown>))
  )
}

describe('a broker with a key', () => {
  it('stores 1 000 payloads as ciphertext (0 markers, 0 repeated IVs) and pops return them byte for byte', async () => {
    await configure(keyed, 'enc-bulk', { encryptionEnabled: true })
    const secret = marker()
    const sent = new Map<string, unknown>()
    const traceId = '0190b3c6-4f1c-7a3e-9b2d-1c2d3e4f5a6b'
    for (let request = 0; request < 10; request++) {
      const items = Array.from({ length: 100 }, (_, index) => {
        const n = request * 100 + index
        const payload =
          n % 5 === 0
            ? `${secret}-${n}`
            : { secret, n, text: 'héllo ✓ 𝄞 "quoted" \\ slash', list: [1, 2.5, -3e-7, null, true], nested: { n } }
        sent.set(`bulk-${n}`, payload)
        return { queue: 'enc-bulk', partition: `p${n % 4}`, transactionId: `bulk-${n}`, traceId, payload }
      })
      const results = await push(keyed, items)
      expect(results.every((result) => result.status === 'queued')).toBe(true)
    }

    const rows = await storedRows(keyed, 'enc-bulk')
    expect(rows).toHaveLength(1000)
    expect(await occurrences(keyed, secret)).toBe(0)
    for (const row of rows) {
      expect(row.is_encrypted).toBe(true)
      expect(Object.keys(row.payload).sort()).toEqual(['authTag', 'encrypted', 'iv', 'kid'])
      expect(row.payload.kid).toBe(KEY_ID)
      // Identity fields stay in clear.
      expect(row.transaction_id).toMatch(/^bulk-\d+$/)
      expect(row.trace_id).toBe(traceId)
    }
    const ivs = await keyed.db.query(
      `SELECT count(DISTINCT m.payload->>'iv')::int AS distinct_ivs, count(*)::int AS n FROM queen.messages m
       JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'enc-bulk'`,
    )
    expect(ivs.rows[0]).toEqual({ distinct_ivs: 1000, n: 1000 })

    const { messages, text } = await drain(keyed, 'enc-bulk', 1000)
    expect(messages).toHaveLength(1000)
    expect(new Set(messages.map((message) => message.transactionId)).size).toBe(1000)
    for (const message of messages) {
      const original = sent.get(message.transactionId)
      expect(message.data).toEqual(original)
      expect(message.traceId).toBe(traceId)
      // Byte for byte: the answer carries the pushed JSON text itself.
      expect(text).toContain(JSON.stringify(original))
    }
  })

  it('answers plaintext on message get, DLQ listing and traces by name', async () => {
    await configure(keyed, 'enc-read', { encryptionEnabled: true, deadLetterQueue: true })
    const payload = { secret: marker(), list: [1, 'two'] }
    const [pushed] = await push(keyed, [{ queue: 'enc-read', transactionId: 'read-1', payload }])
    expect(pushed.status).toBe('queued')

    const got = await http(keyed, 'GET', `/api/v1/messages/${pushed.partition_id}/read-1`)
    expect(got.status).toBe(200)
    expect(got.body).toMatchObject({ payload, isEncrypted: true })
    expect(got.body).not.toHaveProperty('payloadError')

    const traced = await http(keyed, 'POST', '/api/v1/traces', {
      transactionId: 'read-1',
      partitionId: pushed.partition_id,
      data: { step: 1 },
      traceNames: ['enc-read-trace'],
    })
    expect(traced.body.success).toBe(true)
    const traces = await http(keyed, 'GET', '/api/v1/traces/by-name/enc-read-trace')
    expect(traces.body.traces).toHaveLength(1)
    expect(traces.body.traces[0].message_payload).toEqual(payload)
    expect(traces.body.traces[0]).not.toHaveProperty('message_payload_error')

    const moved = await http(keyed, 'POST', `/api/v1/messages/${pushed.partition_id}/read-1/dlq`, { error: 'by hand' })
    expect(moved.status).toBe(200)
    const dlq = await http(keyed, 'GET', '/api/v1/dlq?queue=enc-read')
    expect(dlq.body.messages).toHaveLength(1)
    expect(dlq.body.messages[0]).toMatchObject({ transactionId: 'read-1', data: payload, errorMessage: 'by hand' })
    expect(await occurrences(keyed, payload.secret)).toBe(0)
  })

  it('retries a dead letter from its encrypted DLQ copy, sealed again for the new transaction id', async () => {
    await configure(keyed, 'enc-retry', { encryptionEnabled: true, deadLetterQueue: true, retryLimit: 0 })
    const payload = { secret: marker() }
    const [pushed] = await push(keyed, [{ queue: 'enc-retry', partition: 'p', transactionId: 'rc-0', payload }])
    const body = await pop(keyed, 'enc-retry')
    await ackBatch(keyed, body.messages, 'failed')
    // What retention does to a settled message; the DLQ entry keeps its own (encrypted) copy.
    await keyed.db.query('DELETE FROM queen.messages WHERE partition_id = $1', [pushed.partition_id])

    // A broker without the key cannot seal it again: refused, and the entry stays in the DLQ.
    const keyless = await startTestBroker({ database })
    try {
      const refused = await http(keyless, 'POST', `/api/v1/messages/${pushed.partition_id}/rc-0/retry`)
      expect(refused.status).toBe(409)
      expect(refused.body.error).toBe('Dead-letter copy cannot be delivered again: encryption key unavailable')
    } finally {
      await keyless.close()
    }
    expect(await storedRows(keyed, 'enc-retry')).toEqual([])

    const retried = await http(keyed, 'POST', `/api/v1/messages/${pushed.partition_id}/rc-0/retry`)
    expect(retried.status).toBe(200)
    const rows = await storedRows(keyed, 'enc-retry')
    expect(rows.map((row) => [row.transaction_id, row.is_encrypted])).toEqual([[retried.body.newTransactionId, true]])
    expect(await occurrences(keyed, payload.secret)).toBe(0)
    const again = await pop(keyed, 'enc-retry')
    expect(again.messages.map((message: any) => [message.transactionId, message.data])).toEqual([
      [retried.body.newTransactionId, payload],
    ])
  })

  it('encrypts transaction push operations and stream sink pushes', async () => {
    await configure(keyed, 'enc-tx', { encryptionEnabled: true })
    const secret = marker()
    const transaction = await http(keyed, 'POST', '/api/v1/transaction', {
      operations: [{ type: 'push', items: [{ queue: 'enc-tx', transactionId: 'tx-1', payload: { secret } }] }],
    })
    expect(transaction.body).toMatchObject({ success: true })

    await configure(keyed, 'enc-sink', { encryptionEnabled: true })
    const registered = await http(keyed, 'POST', '/streams/v1/queries', {
      name: 'enc-stream',
      source_queue: 'enc-src',
      sink_queue: 'enc-sink',
      config_hash: 'h',
    })
    expect(registered.status).toBe(200)
    await push(keyed, [{ queue: 'enc-src', payload: 1 }])
    const popped = await pop(keyed, 'enc-src')
    const cycle = await http(keyed, 'POST', '/streams/v1/cycle', {
      query_id: registered.body.query_id,
      partition_id: popped.partitionId,
      state_ops: [],
      push_items: [{ queue: 'enc-sink', transactionId: 'sink-1', payload: { secret } }],
      ack: { transactionId: popped.messages[0].transactionId, leaseId: popped.leaseId },
    })
    expect(cycle.body, JSON.stringify(cycle.body)).toMatchObject({ success: true })

    for (const queue of ['enc-tx', 'enc-sink']) {
      const rows = await storedRows(keyed, queue)
      expect(rows).toHaveLength(1)
      expect(rows[0]!.is_encrypted).toBe(true)
    }
    expect(await occurrences(keyed, secret)).toBe(0)
    expect((await pop(keyed, 'enc-tx')).messages[0].data).toEqual({ secret })
    expect((await pop(keyed, 'enc-sink')).messages[0].data).toEqual({ secret })
  })

  it('corrects a stale cached setting: the push statement refuses, the broker reloads and redoes the item', async () => {
    await push(keyed, [{ queue: 'enc-stale', payload: 'warm-up' }])
    await keyed.services.registry.load('', 'enc-stale')
    // Another replica turned encryption on: this broker's cache still says clear.
    await keyed.db.query("UPDATE queen.queues SET encryption_enabled = true WHERE name = 'enc-stale'")
    const secret = marker()
    const [result] = await push(keyed, [{ queue: 'enc-stale', transactionId: 'stale-1', payload: secret }])
    expect(result.status).toBe('queued')
    expect(await occurrences(keyed, secret)).toBe(0)
    expect((await storedRows(keyed, 'enc-stale')).map((row) => row.is_encrypted)).toEqual([false, true])

    // And back: the cache says encrypted, the queue is clear again.
    await keyed.db.query("UPDATE queen.queues SET encryption_enabled = false WHERE name = 'enc-stale'")
    const [clear] = await push(keyed, [{ queue: 'enc-stale', transactionId: 'stale-2', payload: 'in clear' }])
    expect(clear.status).toBe('queued')
    expect((await storedRows(keyed, 'enc-stale')).map((row) => row.is_encrypted)).toEqual([false, true, false])
    const popped = await pop(keyed, 'enc-stale', { batch: 10 })
    expect(popped.messages.map((message: any) => message.data)).toEqual(['warm-up', secret, 'in clear'])
  })

  it('dead-letters a tampered ciphertext, counts it once, and delivers the rest of its batch', async () => {
    await configure(keyed, 'enc-tamper', { encryptionEnabled: true, deadLetterQueue: true })
    const payloads = Array.from({ length: 5 }, (_, n) => ({ n, secret: marker() }))
    await push(
      keyed,
      payloads.map((payload, n) => ({ queue: 'enc-tamper', partition: 'p', transactionId: `tamper-${n}`, payload })),
    )
    // Flip one byte of the third message's ciphertext.
    const [row] = (await storedRows(keyed, 'enc-tamper')).filter((stored) => stored.transaction_id === 'tamper-2')
    const bytes = Buffer.from(row!.payload.encrypted as string, 'base64')
    bytes[3] = bytes[3]! ^ 0x40
    await keyed.db.query(
      `UPDATE queen.messages SET payload = jsonb_set(payload, '{encrypted}', to_jsonb($1::text))
       WHERE transaction_id = 'tamper-2'`,
      [bytes.toString('base64')],
    )
    const before = await scrape(keyed)
    const failuresBefore = before.value('queen_encryption_failures_total', { op: 'decrypt' }) ?? 0

    const popped = await pop(keyed, 'enc-tamper', { batch: 10 })
    expect(popped.success).toBe(true)
    expect(popped.messages.map((message: any) => message.transactionId)).toEqual([
      'tamper-0',
      'tamper-1',
      'tamper-3',
      'tamper-4',
    ])
    expect(popped.messages.map((message: any) => message.data)).toEqual([0, 1, 3, 4].map((n) => payloads[n]))
    expect(popped.messages.some((message: any) => isCiphertextObject(message.data))).toBe(false)

    const after = await scrape(keyed)
    expect(after.value('queen_encryption_failures_total', { op: 'decrypt' })).toBe(failuresBefore + 1)
    expect(after.value('queen_messages_dead_lettered_total', { queue: 'enc-tamper' })).toBe(1)

    const dlq = await http(keyed, 'GET', '/api/v1/dlq?queue=enc-tamper')
    expect(dlq.body.messages).toHaveLength(1)
    expect(dlq.body.messages[0]).toMatchObject({
      transactionId: 'tamper-2',
      consumerGroup: '__QUEUE_MODE__',
      errorMessage: 'decryption failed: authentication tag mismatch',
      data: null,
      dataError: 'decryption failed: authentication tag mismatch',
    })
    const got = await http(keyed, 'GET', `/api/v1/messages/${popped.partitionId}/tamper-2`)
    expect(got.body).toMatchObject({
      status: 'dead_letter',
      payload: null,
      payloadError: 'decryption failed: authentication tag mismatch',
    })

    // The rest settles normally; the partition is then fully consumed and no lease is left.
    const acked = await ackBatch(keyed, popped.messages)
    expect(acked.every((result: any) => result.success)).toBe(true)
    expect((await pop(keyed, 'enc-tamper')).messages).toEqual([])
    const consumer = await keyed.db.query(
      'SELECT cursor_position::int AS cursor, lease_id FROM queen.consumers WHERE partition_id = $1',
      [popped.partitionId],
    )
    expect(consumer.rows).toEqual([{ cursor: 5, lease_id: null }])
  })

  it('dead-letters a ciphertext copied onto another message (AAD binding), with autoAck too', async () => {
    await configure(keyed, 'enc-copy', { encryptionEnabled: true })
    await push(keyed, [
      { queue: 'enc-copy', partition: 'p', transactionId: 'copy-0', payload: 'zero' },
      { queue: 'enc-copy', partition: 'p', transactionId: 'copy-1', payload: 'one' },
      { queue: 'enc-copy', partition: 'p', transactionId: 'copy-2', payload: 'two' },
    ])
    await keyed.db.query(
      `UPDATE queen.messages SET payload = (SELECT payload FROM queen.messages WHERE transaction_id = 'copy-0')
       WHERE transaction_id = 'copy-1'`,
    )
    const failuresBefore = (await scrape(keyed)).value('queen_encryption_failures_total', { op: 'decrypt' }) ?? 0
    const popped = await pop(keyed, 'enc-copy', { batch: 10, autoAck: true, consumerGroup: 'auto' })
    expect(popped.messages.map((message: any) => message.data)).toEqual(['zero', 'two'])
    expect((await scrape(keyed)).value('queen_encryption_failures_total', { op: 'decrypt' })).toBe(failuresBefore + 1)
    const dlq = await http(keyed, 'GET', '/api/v1/dlq?queue=enc-copy&consumerGroup=auto')
    expect(dlq.body.messages.map((message: any) => [message.transactionId, message.errorMessage])).toEqual([
      ['copy-1', 'decryption failed: authentication tag mismatch'],
    ])
    // Queue mode never saw the tampered message: it is dead-lettered there on its own first delivery.
    const queueMode = await pop(keyed, 'enc-copy', { batch: 10, autoAck: true })
    expect(queueMode.messages.map((message: any) => message.data)).toEqual(['zero', 'two'])
  })
})

/** Expects the pop answer of docs/semantics.md, "Pops without a usable key" and checks that the pop changed nothing. */
async function expectKeyUnavailable(
  broker: TestBroker,
  queue: string,
  params: Record<string, string | number | boolean>,
) {
  const started = Date.now()
  const body = await pop(broker, queue, params)
  expect(body).toEqual({ success: false, error: `encryption key unavailable for queue '${queue}'`, messages: [] })
  expect(Date.now() - started).toBeLessThan(2000)
}

async function queueState(broker: TestBroker, queue: string) {
  const result = await broker.db.query(
    `SELECT
       (SELECT count(*)::int FROM queen.consumers k JOIN queen.partitions p ON p.id = k.partition_id
          JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 AND (k.lease_id IS NOT NULL OR k.cursor_position > 0)) AS leased_or_moved,
       (SELECT count(*)::int FROM queen.dead_letters d JOIN queen.queues q ON q.id = d.queue_id WHERE q.name = $1) AS dead_letters,
       (SELECT count(*)::int FROM queen.message_states s JOIN queen.partitions p ON p.id = s.partition_id
          JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1) AS states`,
    [queue],
  )
  return result.rows[0]
}

describe.each([
  ['without a key', undefined],
  ['with another valid key', OTHER_KEY],
])('a broker %s', (_label, encryptionKey) => {
  it('answers "encryption key unavailable" on pops of encrypted messages, leasing and dead-lettering nothing', async () => {
    const queue = encryptionKey === undefined ? 'enc-nokey' : 'enc-otherkey'
    await configure(keyed, queue, { encryptionEnabled: true })
    const payloads = [{ a: marker() }, 'two', [3]]
    await push(
      keyed,
      payloads.map((payload, n) => ({ queue, partition: `p${n % 2}`, transactionId: `${queue}-${n}`, payload })),
    )
    const other = await startTestBroker({ database, config: encryptionKey === undefined ? {} : { encryptionKey } })
    try {
      await expectKeyUnavailable(other, queue, {})
      await expectKeyUnavailable(other, queue, { batch: 10, wait: true, timeout: 5000 })
      await expectKeyUnavailable(other, queue, { batch: 10, autoAck: true })
      await expectKeyUnavailable(other, queue, { consumerGroup: 'g', subscriptionMode: 'all' })
      const partitions = await keyed.db.query(
        `SELECT p.id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1 AND p.name = 'p0'`,
        [queue],
      )
      const body = await pop(other, queue, {}, 'p0')
      expect(body.error).toBe(`encryption key unavailable for queue '${queue}'`)
      expect(await queueState(keyed, queue)).toEqual({ leased_or_moved: 0, dead_letters: 0, states: 0 })
      const subscriptions = await keyed.db.query(
        `SELECT count(*)::int AS n FROM queen.subscriptions s JOIN queen.queues q ON q.id = s.queue_id WHERE q.name = $1`,
        [queue],
      )
      expect(subscriptions.rows[0].n).toBe(0)

      // Reads answer null with the reason.
      const got = await http(other, 'GET', `/api/v1/messages/${partitions.rows[0].id}/${queue}-0`)
      expect(got.body).toMatchObject({ payload: null, payloadError: 'encryption key unavailable', isEncrypted: true })

      // The broker with the right key then delivers them all, byte for byte.
      const { messages } = await drain(keyed, queue, 3)
      expect(messages).toHaveLength(3)
      for (const message of messages) expect(message.data).toEqual(payloads[Number(message.transactionId.at(-1))])
    } finally {
      await other.close()
    }
  })
})

describe('a broker without a key', () => {
  it('refuses to enable encryption (400) and fails pushes to an encrypted queue, storing nothing', async () => {
    const keyless = await startTestBroker({ database })
    try {
      const refused = await http(keyless, 'POST', '/api/v1/configure', {
        queue: 'enc-refused',
        options: { encryptionEnabled: true },
      })
      expect(refused.status).toBe(400)
      expect(refused.body.error).toContain('QUEEN_ENCRYPTION_KEY')

      await configure(keyed, 'enc-flagged', { encryptionEnabled: true })
      const secret = marker()
      const results = await push(keyless, [
        { queue: 'enc-flagged', payload: secret },
        { queue: 'enc-clear-neighbour', payload: 'fine' },
      ])
      expect(results.map((result) => result.status)).toEqual(['failed', 'queued'])
      expect(results[0].error).toBe('encryption unavailable: QUEEN_ENCRYPTION_KEY is not configured')
      expect(await storedRows(keyed, 'enc-flagged')).toEqual([])
      expect(await occurrences(keyed, secret)).toBe(0)

      // A transaction pushing to it fails as a whole.
      const transaction = await http(keyless, 'POST', '/api/v1/transaction', {
        operations: [{ type: 'push', items: [{ queue: 'enc-flagged', payload: secret }] }],
      })
      expect(transaction.body).toMatchObject({
        success: false,
        error: 'PUSH operation failed: encryption unavailable: QUEEN_ENCRYPTION_KEY is not configured',
      })
      expect(await storedRows(keyed, 'enc-flagged')).toEqual([])
    } finally {
      await keyless.close()
    }
  })

  it('skips an undecryptable queue in a namespace pop, and answers the error when nothing else is there', async () => {
    await configure(keyed, 'encns.secret', { encryptionEnabled: true })
    await push(keyed, [{ queue: 'encns.secret', payload: 'hidden' }])
    const keyless = await startTestBroker({ database })
    try {
      await push(keyless, [{ queue: 'encns.open', payload: 'visible' }])
      const first = await http(keyless, 'GET', '/api/v1/pop?namespace=encns&batch=10')
      expect(first.body.messages.map((message: any) => message.data)).toEqual(['visible'])
      await ackBatch(keyless, first.body.messages)
      const second = await http(keyless, 'GET', '/api/v1/pop?namespace=encns&batch=10')
      expect(second.body).toEqual({
        success: false,
        error: "encryption key unavailable for queue 'encns.secret'",
        messages: [],
      })
      expect(await queueState(keyed, 'encns.secret')).toEqual({ leased_or_moved: 0, dead_letters: 0, states: 0 })
      expect((await pop(keyed, 'encns.secret')).messages[0].data).toBe('hidden')
    } finally {
      await keyless.close()
    }
  })
})

/** Every byte of every file under `dir` (spool segments and quarantine), as text. */
async function spoolText(dir: string): Promise<string> {
  const parts: string[] = []
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) parts.push((await readFile(path.join(entry.parentPath, entry.name))).toString('latin1'))
  }
  return parts.join('\n')
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await sleep(50)
  }
}

describe('the spool of an encrypting broker (push-maintenance)', () => {
  let spooling: TestBroker
  beforeAll(async () => {
    spooling = await startTestBroker({ label: 'encspool', config: { encryptionKey: KEY }, durable: {} })
  })
  afterAll(async () => {
    await spooling.close()
  })

  async function maintenance(broker: TestBroker, enabled: boolean) {
    const response = await http(broker, 'POST', '/api/v1/system/maintenance', { enabled })
    expect(response.status).toBe(200)
  }

  async function spoolEmpty(broker: TestBroker): Promise<boolean> {
    return (await http(broker, 'GET', '/api/v1/status/buffers')).body.pending === 0
  }

  it('writes ciphertext to disk, never encrypts twice, and follows the queue setting at replay', async () => {
    const dir = spooling.services.spool!.dir!
    await configure(spooling, 'spool-enc', { encryptionEnabled: true })
    await push(spooling, [{ queue: 'spool-late', payload: 'warm-up' }])
    await spooling.services.registry.load('', 'spool-late')
    await maintenance(spooling, true)
    const secret = marker()
    const results = await push(spooling, [
      // Known encrypted: ciphertext on disk, stored as is.
      { queue: 'spool-enc', transactionId: 'se-1', payload: { secret, n: 1 } },
      // Unknown to the cache (does not exist yet): ciphertext on disk; the queue is created in clear.
      { queue: 'spool-new', transactionId: 'sn-1', payload: { secret, n: 2 } },
      // Known clear, but turned encrypted before the replay: clear on disk, encrypted when stored.
      { queue: 'spool-late', transactionId: 'sl-1', payload: { secret, n: 3 } },
    ])
    expect(results.map((result) => result.status)).toEqual(['buffered', 'buffered', 'buffered'])
    const onDisk = await spoolText(dir)
    expect(onDisk.split(secret).length - 1).toBe(1)
    expect(onDisk).toContain('"encrypted":true')

    await spooling.db.query("UPDATE queen.queues SET encryption_enabled = true WHERE name = 'spool-late'")
    await maintenance(spooling, false)
    await waitFor(() => spoolEmpty(spooling))

    const stored = [
      ...(await storedRows(spooling, 'spool-enc')),
      ...(await storedRows(spooling, 'spool-new')),
      ...(await storedRows(spooling, 'spool-late')),
    ]
    // spool-enc, spool-new, then spool-late's warm-up (pushed in clear) and its replayed record.
    expect(stored.map((row) => row.is_encrypted)).toEqual([true, false, false, true])
    expect(stored.map((row) => row.transaction_id)).toEqual(['se-1', 'sn-1', stored[2]!.transaction_id, 'sl-1'])
    // Only the record of the queue that is clear now holds the marker (the replay decrypted it).
    expect(await occurrences(spooling, secret)).toBe(1)
    expect(stored.find((row) => row.transaction_id === 'sn-1')!.payload).toEqual({ secret, n: 2 })

    expect((await pop(spooling, 'spool-enc')).messages[0].data).toEqual({ secret, n: 1 })
    expect((await pop(spooling, 'spool-new')).messages[0].data).toEqual({ secret, n: 2 })
    const late = await pop(spooling, 'spool-late', { batch: 10 })
    expect(late.messages.map((message: any) => message.data)).toEqual(['warm-up', { secret, n: 3 }])
    expect(late.messages.some((message: any) => isCiphertextObject(message.data))).toBe(false)
  })
})

describe('the spool of a broker without a key', () => {
  it('spools an unknown queue in clear, and quarantines the record when the queue turned out encrypted', async () => {
    const keyless = await startTestBroker({ label: 'encspool2', durable: {} })
    try {
      const dir = keyless.services.spool!.dir!
      await http(keyless, 'POST', '/api/v1/system/maintenance', { enabled: true })
      const results = await push(keyless, [
        { queue: 'nk-known', payload: 'refused' },
        { queue: 'nk-unknown', transactionId: 'nk-1', payload: 'clear on disk' },
      ])
      expect(results.map((result) => result.status)).toEqual(['buffered', 'buffered'])
      // A replica with the key makes the queue encrypted before the replay (written directly here).
      await keyless.db.query(
        "INSERT INTO queen.queues (tenant, name, namespace, task, encryption_enabled) VALUES ('', 'nk-unknown', 'nk-unknown', '', true)",
      )
      await http(keyless, 'POST', '/api/v1/system/maintenance', { enabled: false })
      await waitFor(async () => (await http(keyless, 'GET', '/api/v1/status/buffers')).body.pending === 0, 30_000)
      const buffers = await http(keyless, 'GET', '/api/v1/status/buffers')
      expect(buffers.body.failed).toBe(1)
      expect(await storedRows(keyless, 'nk-unknown')).toEqual([])
      expect((await storedRows(keyless, 'nk-known')).map((row) => row.payload)).toEqual(['refused'])
      const failed = await readdir(path.join(dir, 'failed'))
      expect(failed).toHaveLength(1)
      expect(await spoolText(path.join(dir, 'failed'))).toContain('is encrypted and this record was spooled in clear')

      // And once cached as encrypted, the spool refuses it outright.
      await keyless.services.registry.load('', 'nk-unknown')
      await http(keyless, 'POST', '/api/v1/system/maintenance', { enabled: true })
      const [refused] = await push(keyless, [{ queue: 'nk-unknown', payload: 'never on disk' }])
      expect(refused).toMatchObject({
        status: 'failed',
        error: 'encryption unavailable: QUEEN_ENCRYPTION_KEY is not configured',
      })
      expect(await spoolText(dir)).not.toContain('never on disk')
      await http(keyless, 'POST', '/api/v1/system/maintenance', { enabled: false })
    } finally {
      await keyless.close()
    }
  })
})
