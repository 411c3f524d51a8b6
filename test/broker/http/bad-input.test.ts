/**
 * Bad input at the HTTP edge (docs/http-api.md, "Query and path parameters", "Validation at the edge" and "Error
 * shapes", and the routes after them; docs/reliability.md, "Hazards"): every refused request is a 400 naming the field,
 * with code QUEEN_ERR_VALIDATION, answered before anything is stored; no input produces a 5xx; a bad request never
 * shares fate with good ones; Unicode and delimiters in names and payloads behave as documented.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { messagesOfQueue, snapshot } from './edge-helpers.js'

let broker: TestBroker

/** The message popped in beforeAll (queue mode, lease still live): acks and lease cases aim at it. */
let popped: { transactionId: string; partitionId: string; leaseId: string }

/** Every status the bad-input table received, for the final no-5xx check. */
const answers: { name: string; status: number }[] = []

beforeAll(async () => {
  broker = await startTestBroker({ label: 'bad_input' })
  const base = await http(broker, 'POST', '/api/v1/push', {
    items: [{ queue: 'edge-base', payload: { n: 1 }, transactionId: 'base-1' }],
  })
  expect(base.status).toBe(200)
  expect(base.body[0].status).toBe('queued')
  const pop = await http(broker, 'GET', '/api/v1/pop/queue/edge-base?batch=1')
  expect(pop.body.messages).toHaveLength(1)
  const message = pop.body.messages[0]
  popped = { transactionId: message.transactionId, partitionId: message.partitionId, leaseId: message.leaseId }
  // A named group on edge-base, so that a subscription rewrite would change a row.
  const groupPop = await http(broker, 'GET', '/api/v1/pop/queue/edge-base?consumerGroup=g1&batch=1')
  expect(groupPop.body.messages).toHaveLength(1)
  expect((await snapshot(broker.db)).subscriptionState).toContain('|g1|')
  // A queue with a deliverable message: a pop that wrongly passed validation would lease it.
  const pending = await http(broker, 'POST', '/api/v1/push', { items: [{ queue: 'edge-pop', payload: 'waiting' }] })
  expect(pending.body[0].status).toBe('queued')
})

afterAll(async () => {
  await broker.close()
})

/** Raw JSON text sent as the body exactly as written. */
class RawJson {
  readonly text: string
  constructor(text: string) {
    this.text = text
  }
}

interface BadCase {
  name: string
  method: 'GET' | 'POST'
  path: string | (() => string)
  /** A value sent as JSON, a {@link RawJson} text, a function of the fixtures, or undefined for no body. */
  body?: unknown
  /** The exact error text, or a pattern that must name the field. */
  error: string | RegExp
  /** Must be answered in under a second (injection-looking names). */
  fast?: boolean
}

const QUEUE_RULE_BREAKERS: [string, string][] = [
  ['SQL injection (quote)', "q'; DROP TABLE queen.messages;--"],
  ['SQL injection (double quote, pg_sleep)', 'x"; select pg_sleep(10);--'],
  ['path traversal', '../../etc/passwd'],
  ['encoded traversal', '..%2F..%2F'],
  ['slash', 'a/b'],
  ['backslash', 'a\\b'],
  ['dot', '.'],
  ['dot dot', '..'],
  ['256 characters', 'q'.repeat(256)],
  ['leading dash', '-queue'],
  ['NUL character', 'a\u0000b'],
  ['space', 'a b'],
]

function nested(depth: number): unknown {
  let value: unknown = 'leaf'
  for (let i = 0; i < depth; i++) value = [value]
  return value
}

const ackOf = (extra: Record<string, unknown> = {}) => ({
  transactionId: popped.transactionId,
  partitionId: popped.partitionId,
  leaseId: popped.leaseId,
  ...extra,
})

const cases: BadCase[] = [
  // --- push: framing and types
  { name: 'push without body', method: 'POST', path: '/api/v1/push', error: 'items array is required' },
  {
    name: 'push with items an object',
    method: 'POST',
    path: '/api/v1/push',
    body: { items: {} },
    error: 'items array is required',
  },
  {
    name: 'push with items a string',
    method: 'POST',
    path: '/api/v1/push',
    body: { items: 'x' },
    error: 'items array is required',
  },
  {
    name: 'push with queue a number',
    method: 'POST',
    path: '/api/v1/push',
    body: { items: [{ queue: 42, payload: 1 }] },
    error: 'items[0].queue: Queue must be a string',
  },
  {
    name: 'push with queue missing in the second item',
    method: 'POST',
    path: '/api/v1/push',
    body: { items: [{ queue: 'edge-new', payload: 1 }, { payload: 2 }] },
    error: 'items[1].queue: Queue must be a string',
  },
  ...QUEUE_RULE_BREAKERS.map(([label, queue]): BadCase => ({
    name: `push with queue name breaking the rule: ${label}`,
    method: 'POST',
    path: '/api/v1/push',
    body: { items: [{ queue, payload: 1 }] },
    error: /^items\[0\]\.queue: /,
    fast: true,
  })),
  ...QUEUE_RULE_BREAKERS.filter(([, queue]) => queue !== '.' && queue !== '..' && !queue.includes('\u0000')).map(
    ([label, queue]): BadCase => ({
      name: `pop with queue name breaking the rule in the path: ${label}`,
      method: 'GET',
      path: `/api/v1/pop/queue/${encodeURIComponent(queue)}`,
      error: /^queue: /,
      fast: true,
    }),
  ),
  {
    name: 'configure with an injection-looking queue name',
    method: 'POST',
    path: '/api/v1/configure',
    body: { queue: "q'; DROP TABLE queen.messages;--" },
    error: /^queue: /,
    fast: true,
  },
  {
    name: 'push with partition an object',
    method: 'POST',
    path: '/api/v1/push',
    body: { items: [{ queue: 'edge-new', partition: { a: 1 }, payload: 1 }] },
    error: /^items\[0\]\.partition: /,
  },
  ...(
    [
      ['dot', '.'],
      ['dot dot', '..'],
      ['a slash', 'a/b'],
      ['a control character', 'a\u0001b'],
      ['DEL', 'a\u007fb'],
      ['NUL', 'a\u0000b'],
      ['empty', ''],
      ['256 characters', 'p'.repeat(256)],
    ] as const
  ).map(([label, partition]): BadCase => ({
    name: `push with partition ${label}`,
    method: 'POST',
    path: '/api/v1/push',
    body: { items: [{ queue: 'edge-new', partition, payload: 1 }] },
    error: /^items\[0\]\.partition: /,
  })),
  {
    name: 'pop with a partition holding a control character in the path',
    method: 'GET',
    path: `/api/v1/pop/queue/edge-pop/partition/${encodeURIComponent('a\u0001b')}`,
    error: /^partition: /,
  },
  {
    name: 'pop with a partition holding a slash in the path',
    method: 'GET',
    path: `/api/v1/pop/queue/edge-pop/partition/${encodeURIComponent('a/b')}`,
    error: /^partition: /,
  },
  {
    name: 'push with transactionId a number',
    method: 'POST',
    path: '/api/v1/push',
    body: { items: [{ queue: 'edge-new', payload: 1, transactionId: 7 }] },
    error: /^items\[0\]\.transactionId: /,
  },
  {
    name: 'push with transactionId empty',
    method: 'POST',
    path: '/api/v1/push',
    body: { items: [{ queue: 'edge-new', payload: 1, transactionId: '' }] },
    error: /^items\[0\]\.transactionId: /,
  },
  {
    name: 'push with transactionId of 256 characters',
    method: 'POST',
    path: '/api/v1/push',
    body: { items: [{ queue: 'edge-new', payload: 1, transactionId: 't'.repeat(256) }] },
    error: /^items\[0\]\.transactionId: /,
  },
  {
    name: 'push with transactionId holding a control character',
    method: 'POST',
    path: '/api/v1/push',
    body: { items: [{ queue: 'edge-new', payload: 1, transactionId: 'a\nb' }] },
    error: /^items\[0\]\.transactionId: /,
  },
  {
    name: 'push with traceId not a UUID',
    method: 'POST',
    path: '/api/v1/push',
    body: { items: [{ queue: 'edge-new', payload: 1, traceId: 'trace-1' }] },
    error: /^items\[0\]\.traceId: /,
  },
  {
    name: 'push with traceId a UUID without dashes',
    method: 'POST',
    path: '/api/v1/push',
    body: { items: [{ queue: 'edge-new', payload: 1, traceId: randomUUID().replaceAll('-', '') }] },
    error: /^items\[0\]\.traceId: /,
  },
  // --- payloads PostgreSQL's jsonb refuses
  {
    name: 'push with a payload string holding \\u0000',
    method: 'POST',
    path: '/api/v1/push',
    body: new RawJson('{"items":[{"queue":"edge-new","payload":"a\\u0000b"}]}'),
    error: /^items\[0\]\.payload: /,
  },
  {
    name: 'push with a payload key holding \\u0000',
    method: 'POST',
    path: '/api/v1/push',
    body: new RawJson('{"items":[{"queue":"edge-new","payload":{"k\\u0000":1}}]}'),
    error: /^items\[0\]\.payload: /,
  },
  {
    name: 'push with a lone high surrogate in the payload',
    method: 'POST',
    path: '/api/v1/push',
    body: new RawJson('{"items":[{"queue":"edge-new","payload":"\\ud800"}]}'),
    error: /^items\[0\]\.payload: /,
  },
  {
    name: 'push with a lone low surrogate nested in the payload',
    method: 'POST',
    path: '/api/v1/push',
    body: new RawJson('{"items":[{"queue":"edge-new","payload":{"a":["x\\udc00y"]}}]}'),
    error: /^items\[0\]\.payload: /,
  },
  {
    name: 'push with a payload nested 200 deep',
    method: 'POST',
    path: '/api/v1/push',
    body: { items: [{ queue: 'edge-new', payload: nested(200) }] },
    error: /^items\[0\]\.payload: /,
  },
  {
    name: 'push with JSON nested 10 000 deep',
    method: 'POST',
    path: '/api/v1/push',
    body: new RawJson(`{"items":[{"queue":"edge-new","payload":${'['.repeat(10_000)}${']'.repeat(10_000)}}]}`),
    error: /^items\[0\]\.payload: /,
  },
  // --- volume
  {
    name: 'push with 10 001 items',
    method: 'POST',
    path: '/api/v1/push',
    body: { items: Array.from({ length: 10_001 }, (_, i) => ({ queue: 'edge-new', payload: i })) },
    error: /^items: /,
  },
  // --- ack
  {
    name: 'ack without transactionId',
    method: 'POST',
    path: '/api/v1/ack',
    body: () => ({ partitionId: popped.partitionId, leaseId: popped.leaseId }),
    error: 'transactionId is required',
  },
  {
    name: 'ack with transactionId a number',
    method: 'POST',
    path: '/api/v1/ack',
    body: () => ackOf({ transactionId: 12 }),
    error: 'transactionId is required',
  },
  {
    name: 'ack without partitionId',
    method: 'POST',
    path: '/api/v1/ack',
    body: () => ({ transactionId: popped.transactionId, leaseId: popped.leaseId }),
    error: 'partitionId is required to ensure message uniqueness',
  },
  {
    name: 'ack with a non-UUID partitionId',
    method: 'POST',
    path: '/api/v1/ack',
    body: () => ackOf({ partitionId: 'partition-1' }),
    error: /^partitionId/,
  },
  {
    name: 'ack with status bogus',
    method: 'POST',
    path: '/api/v1/ack',
    body: () => ackOf({ status: 'bogus' }),
    error: /^status: /,
  },
  {
    name: 'ack with a non-UUID leaseId',
    method: 'POST',
    path: '/api/v1/ack',
    body: () => ackOf({ leaseId: 'lease-1' }),
    error: /^leaseId: /,
  },
  {
    name: 'ack batch with acknowledgments not an array',
    method: 'POST',
    path: '/api/v1/ack/batch',
    body: () => ({ acknowledgments: ackOf() }),
    error: 'acknowledgments array is required',
  },
  {
    name: 'ack batch without acknowledgments',
    method: 'POST',
    path: '/api/v1/ack/batch',
    body: {},
    error: 'acknowledgments array is required',
  },
  {
    name: 'ack batch with a valid item and an item missing transactionId',
    method: 'POST',
    path: '/api/v1/ack/batch',
    body: () => ({ acknowledgments: [ackOf(), { partitionId: popped.partitionId }] }),
    error: 'Each acknowledgment must have a valid transactionId string',
  },
  {
    name: 'ack batch with a valid item and an item missing partitionId',
    method: 'POST',
    path: '/api/v1/ack/batch',
    body: () => ({ acknowledgments: [ackOf(), { transactionId: 'other' }] }),
    error: 'Each acknowledgment must have a valid partitionId string to ensure message uniqueness',
  },
  {
    name: 'ack batch with a valid item and an item with status bogus',
    method: 'POST',
    path: '/api/v1/ack/batch',
    body: () => ({ acknowledgments: [ackOf(), ackOf({ status: 'bogus' })] }),
    error: /^acknowledgments\[1\]\.status: /,
  },
  // --- pop query parameters (edge-pop has a deliverable message a lenient pop would lease)
  ...(
    [
      ['batch=-1', /^batch: /],
      ['batch=0', /^batch: /],
      ['batch=1e9', /^batch: /],
      ['batch=1000000000', /^batch: /],
      ['batch=10x', /^batch: /],
      ['batch=1&batch=2', /^batch: /],
      ['timeout=9007199254740993', /^timeout: /],
      ['timeout=-1', /^timeout: /],
      ['partitions=0', /^partitions: /],
      ['partitions=1001', /^partitions: /],
      ['wait=maybe', /^wait: /],
      ['autoAck=yes', /^autoAck: /],
      ['consumerGroup=g2&subscriptionFrom=yesterday', /^subscriptionFrom: /],
    ] as const
  ).map(([query, error]): BadCase => ({
    name: `pop with ${query}`,
    method: 'GET',
    path: `/api/v1/pop/queue/edge-pop?${query}`,
    error,
  })),
  {
    name: 'pop on the partition route with batch=0',
    method: 'GET',
    path: '/api/v1/pop/queue/edge-pop/partition/Default?batch=0',
    error: /^batch: /,
  },
  // --- configure (edge-cfg does not exist: an accepted request would create it)
  { name: 'configure without queue', method: 'POST', path: '/api/v1/configure', body: {}, error: 'queue is required' },
  {
    name: 'configure without body',
    method: 'POST',
    path: '/api/v1/configure',
    error: 'queue is required',
  },
  {
    name: 'configure with options.leaseTime -5',
    method: 'POST',
    path: '/api/v1/configure',
    body: { queue: 'edge-cfg', options: { leaseTime: -5 } },
    error: /^options\.leaseTime: /,
  },
  {
    name: 'configure with options.leaseTime 1e309',
    method: 'POST',
    path: '/api/v1/configure',
    body: new RawJson('{"queue":"edge-cfg","options":{"leaseTime":1e309}}'),
    error: /^options\.leaseTime: /,
  },
  {
    name: 'configure with options.leaseTime 1.5',
    method: 'POST',
    path: '/api/v1/configure',
    body: { queue: 'edge-cfg', options: { leaseTime: 1.5 } },
    error: /^options\.leaseTime: /,
  },
  {
    name: 'configure with options.retryLimit -1',
    method: 'POST',
    path: '/api/v1/configure',
    body: { queue: 'edge-cfg', options: { retryLimit: -1 } },
    error: /^options\.retryLimit: /,
  },
  {
    name: 'configure with options.retryLimit "3"',
    method: 'POST',
    path: '/api/v1/configure',
    body: { queue: 'edge-cfg', options: { retryLimit: '3' } },
    error: /^options\.retryLimit: /,
  },
  {
    name: 'configure with options.deadLetterQueue "yes"',
    method: 'POST',
    path: '/api/v1/configure',
    body: { queue: 'edge-cfg', options: { deadLetterQueue: 'yes' } },
    error: /^options\.deadLetterQueue: /,
  },
  {
    name: 'configure with options.unknownKey',
    method: 'POST',
    path: '/api/v1/configure',
    body: { queue: 'edge-cfg', options: { unknownKey: 1 } },
    error: 'options.unknownKey is not a known option',
  },
  {
    name: 'configure with options.encryptionEnabled true on a broker without key',
    method: 'POST',
    path: '/api/v1/configure',
    body: { queue: 'edge-cfg', options: { encryptionEnabled: true } },
    error: 'options.encryptionEnabled: QUEEN_ENCRYPTION_KEY is not configured on this broker',
  },
  {
    name: 'configure of an existing queue with options.retryLimit "3"',
    method: 'POST',
    path: '/api/v1/configure',
    body: { queue: 'edge-base', options: { retryLimit: '3' } },
    error: /^options\.retryLimit: /,
  },
  // --- transaction
  {
    name: 'transaction without operations',
    method: 'POST',
    path: '/api/v1/transaction',
    body: {},
    error: 'operations array required',
  },
  {
    name: 'transaction with operations an object',
    method: 'POST',
    path: '/api/v1/transaction',
    body: { operations: { type: 'push' } },
    error: 'operations array required',
  },
  {
    name: 'transaction with empty operations',
    method: 'POST',
    path: '/api/v1/transaction',
    body: { operations: [] },
    error: 'operations array cannot be empty',
  },
  {
    name: 'transaction with an unknown operation type',
    method: 'POST',
    path: '/api/v1/transaction',
    body: { operations: [{ type: 'bogus' }] },
    error: 'operations[0].type: Unknown operation type: bogus',
  },
  {
    name: 'transaction with a valid push and an unknown operation type',
    method: 'POST',
    path: '/api/v1/transaction',
    body: { operations: [{ type: 'push', items: [{ queue: 'edge-tx', payload: 1 }] }, { type: 'bogus' }] },
    error: 'operations[1].type: Unknown operation type: bogus',
  },
  {
    name: 'transaction with requiredLeases holding a non-UUID',
    method: 'POST',
    path: '/api/v1/transaction',
    body: { operations: [{ type: 'push', items: [{ queue: 'edge-tx', payload: 1 }] }], requiredLeases: ['lease-1'] },
    error: /^requiredLeases\[0\]: /,
  },
  {
    name: 'transaction with a push item whose queue is a number',
    method: 'POST',
    path: '/api/v1/transaction',
    body: {
      operations: [
        {
          type: 'push',
          items: [
            { queue: 'edge-tx', payload: 1 },
            { queue: 5, payload: 2 },
          ],
        },
      ],
    },
    error: 'operations[0].items[1].queue: Queue must be a string',
  },
  {
    name: 'transaction with a valid push and an ack with status bogus',
    method: 'POST',
    path: '/api/v1/transaction',
    body: () => ({
      operations: [
        { type: 'push', items: [{ queue: 'edge-tx', payload: 1 }] },
        { type: 'ack', ...ackOf({ status: 'bogus' }) },
      ],
    }),
    error: /^operations\[1\]\.status: /,
  },
  // --- lease extend (on the live lease of the popped message)
  ...([0, 86_401, '10', 1.5] as const).map((seconds): BadCase => ({
    name: `lease extend with seconds ${JSON.stringify(seconds)}`,
    method: 'POST',
    path: () => `/api/v1/lease/${popped.leaseId}/extend`,
    body: { seconds },
    error: /^seconds: /,
  })),
  {
    name: 'lease extend with a non-UUID lease id',
    method: 'POST',
    path: '/api/v1/lease/not-a-lease/extend',
    body: {},
    error: /^leaseId: /,
  },
  // --- traces (on the popped message)
  {
    name: 'traces without transactionId',
    method: 'POST',
    path: '/api/v1/traces',
    body: () => ({ partitionId: popped.partitionId, data: { step: 1 } }),
    error: 'transactionId and partitionId are required',
  },
  {
    name: 'traces without partitionId',
    method: 'POST',
    path: '/api/v1/traces',
    body: () => ({ transactionId: popped.transactionId, data: { step: 1 } }),
    error: 'transactionId and partitionId are required',
  },
  {
    name: 'traces without data',
    method: 'POST',
    path: '/api/v1/traces',
    body: () => ({ transactionId: popped.transactionId, partitionId: popped.partitionId }),
    error: 'data is required',
  },
  {
    name: 'traces with data holding \\u0000',
    method: 'POST',
    path: '/api/v1/traces',
    body: () =>
      new RawJson(
        `{"transactionId":${JSON.stringify(popped.transactionId)},"partitionId":"${popped.partitionId}","data":"a\\u0000"}`,
      ),
    error: /^data: /,
  },
  // --- consumer groups
  {
    name: 'consumer-group subscription without timestamp',
    method: 'POST',
    path: '/api/v1/consumer-groups/g1/subscription',
    body: {},
    error: 'Missing subscriptionTimestamp in request body',
  },
  {
    name: 'consumer-group subscription with timestamp "not-a-date"',
    method: 'POST',
    path: '/api/v1/consumer-groups/g1/subscription',
    body: { subscriptionTimestamp: 'not-a-date' },
    error: /^subscriptionTimestamp: /,
  },
  {
    name: 'consumer-group subscription with timestamp a number',
    method: 'POST',
    path: '/api/v1/consumer-groups/g1/subscription',
    body: { subscriptionTimestamp: 1_700_000_000_000 },
    error: /^subscriptionTimestamp: /,
  },
]

/** JSON text with object keys sorted (code-unit order), so two equal values serialise identically. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([key, element]) => `${JSON.stringify(key)}:${canonical(element)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

function resolve(value: unknown): unknown {
  return typeof value === 'function' ? (value as () => unknown)() : value
}

describe('bad input is a 400 naming the field, and stores nothing', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const body = resolve(c.body)
      const before = await snapshot(broker.db)
      const started = performance.now()
      const answer = await http(broker, c.method, resolve(c.path) as string, body instanceof RawJson ? body.text : body)
      const elapsedMs = performance.now() - started
      answers.push({ name: c.name, status: answer.status })

      expect(answer.status).toBe(400)
      expect(answer.body).toMatchObject({ code: 'QUEEN_ERR_VALIDATION' })
      expect(answer.body.error).toEqual(typeof c.error === 'string' ? c.error : expect.stringMatching(c.error))
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8')
      expect(await snapshot(broker.db)).toEqual(before)
      if (c.fast) expect(elapsedMs).toBeLessThan(1000)
    })
  }

  it('leaves the schema intact after the injection-looking names', async () => {
    const { rows } = await broker.db.query<{ messages: string | null; queues: string | null }>(
      `SELECT to_regclass('queen.messages')::text AS messages, to_regclass('queen.queues')::text AS queues`,
    )
    expect(rows[0]).toEqual({ messages: 'queen.messages', queues: 'queen.queues' })
    const { rows: names } = await broker.db.query<{ name: string }>('SELECT name FROM queen.queues ORDER BY name')
    expect(names.map((row) => row.name)).toEqual(['edge-base', 'edge-pop'])
  })

  it('all-or-nothing ack batch: the popped message is still unacked after the refused batches', async () => {
    const { rows } = await broker.db.query<{ cursor_position: string; lease_id: string | null }>(
      `SELECT cursor_position::text, lease_id::text FROM queen.consumers
        WHERE partition_id = $1 AND consumer_group = '__QUEUE_MODE__'`,
      [popped.partitionId],
    )
    expect(rows).toEqual([{ cursor_position: '0', lease_id: popped.leaseId }])
    // The message is in flight under its lease: the first real ack settles it and releases the lease.
    const ack = await http(broker, 'POST', '/api/v1/ack/batch', { acknowledgments: [ackOf()] })
    expect(ack.status).toBe(200)
    expect(ack.body).toHaveLength(1)
    expect(ack.body[0]).toMatchObject({ success: true, alreadyAcked: false, leaseReleased: true, error: null })
  })

  it('answered no bad input with a 5xx, and a valid push still works afterwards', async () => {
    expect(answers).toHaveLength(cases.length)
    expect(answers.filter((answer) => answer.status >= 500)).toEqual([])
    const push = await http(broker, 'POST', '/api/v1/push', { items: [{ queue: 'edge-after', payload: { ok: true } }] })
    expect(push.status).toBe(200)
    expect(push.body).toEqual([expect.objectContaining({ index: 0, status: 'queued', queueName: 'edge-after' })])
    expect(await messagesOfQueue(broker.db, 'edge-after')).toBe(1)
  })
})

describe('volume', () => {
  it('accepts exactly 10 000 items in one push, results in input order, and a pop returns at most batch', async () => {
    const items = Array.from({ length: 10_000 }, (_, i) => ({
      queue: 'edge-bulk',
      payload: { i },
      transactionId: `bulk-${i}`,
    }))
    const push = await http(broker, 'POST', '/api/v1/push', { items })
    expect(push.status).toBe(200)
    expect(push.body).toHaveLength(10_000)
    push.body.forEach((result: any, i: number) => {
      expect(result).toMatchObject({ index: i, transaction_id: `bulk-${i}`, status: 'queued', queueName: 'edge-bulk' })
    })
    expect(await messagesOfQueue(broker.db, 'edge-bulk')).toBe(10_000)
    const { rows } = await broker.db.query<{ transaction_id: string }>(
      `SELECT m.transaction_id FROM queen.messages m
         JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id
        WHERE q.name = 'edge-bulk' ORDER BY m.position`,
    )
    expect(rows.map((row) => row.transaction_id)).toEqual(items.map((item) => item.transactionId))

    const pop = await http(broker, 'GET', '/api/v1/pop/queue/edge-bulk?batch=3')
    expect(pop.body.messages.map((m: any) => m.transactionId)).toEqual(['bulk-0', 'bulk-1', 'bulk-2'])
  })

  it('stores duplicate transaction ids inside one request once, the rest answered duplicate', async () => {
    const push = await http(broker, 'POST', '/api/v1/push', {
      items: [
        { queue: 'edge-dup', payload: 1, transactionId: 'same' },
        { queue: 'edge-dup', payload: 2, transactionId: 'same' },
        { queue: 'edge-dup', payload: 3, transactionId: 'same' },
      ],
    })
    expect(push.status).toBe(200)
    expect(push.body.map((r: any) => r.status)).toEqual(['queued', 'duplicate', 'duplicate'])
    expect(push.body[1].message_id).toBe(push.body[0].message_id)
    expect(push.body[2].message_id).toBe(push.body[0].message_id)
    expect(await messagesOfQueue(broker.db, 'edge-dup')).toBe(1)
  })
})

describe('shared fate (docs/reliability.md, "Hazards")', () => {
  it('100 concurrent pushes, one with a non-UUID traceId: that one 400, the 99 others queued', async () => {
    const bad = 37
    const requests = Array.from({ length: 100 }, (_, i) =>
      http(broker, 'POST', '/api/v1/push', {
        items: [
          {
            queue: 'edge-fate',
            partition: `p${i % 5}`,
            payload: { i },
            transactionId: `fate-${i}`,
            traceId: i === bad ? 'not-a-uuid' : randomUUID(),
          },
        ],
      }),
    )
    const results = await Promise.all(requests)
    results.forEach((result, i) => {
      if (i === bad) {
        expect(result.status).toBe(400)
        expect(result.body).toEqual({
          error: expect.stringMatching(/^items\[0\]\.traceId: /),
          code: 'QUEEN_ERR_VALIDATION',
        })
      } else {
        expect(result.status, `request ${i}`).toBe(200)
        expect(result.body, `request ${i}`).toEqual([
          expect.objectContaining({ index: 0, status: 'queued', transaction_id: `fate-${i}` }),
        ])
      }
    })
    expect(await messagesOfQueue(broker.db, 'edge-fate')).toBe(99)
    const { rows } = await broker.db.query(`SELECT 1 FROM queen.messages WHERE transaction_id = $1`, [`fate-${bad}`])
    expect(rows).toHaveLength(0)
  })
})

describe('Unicode', () => {
  it('payloads with emoji, right-to-left and combining characters round-trip byte for byte', async () => {
    const payloads: unknown[] = [
      '😀 👍🏽 👨‍👩‍👧‍👦 🏳️‍🌈',
      'مرحبا بالعالم',
      'שלום עולם \u200f!',
      'Cafe\u0301 n\u0303 a\u0308\u0304', // decomposed: must NOT be normalised
      'Caf\u00e9', // composed
      { '🔑': 'ключ', עברית: ['العربية', 'z\u0351\u0352\u0353'], '\u{1f600}': '\u{10ffff}' },
      'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇',
    ]
    const push = await http(broker, 'POST', '/api/v1/push', {
      items: payloads.map((payload) => ({ queue: 'edge-unicode', payload })),
    })
    expect(push.body.map((r: any) => r.status)).toEqual(payloads.map(() => 'queued'))
    const pop = await http(broker, 'GET', '/api/v1/pop/queue/edge-unicode?batch=100')
    const data = pop.body.messages.map((m: any) => m.data)
    expect(data).toEqual(payloads)
    // jsonb keeps object keys in its own order, so compare a key-sorted serialisation: every key and
    // every string, byte for byte.
    data.forEach((value: unknown, i: number) => {
      expect(Buffer.from(canonical(value), 'utf8').toString('hex')).toBe(
        Buffer.from(canonical(payloads[i]), 'utf8').toString('hex'),
      )
    })
  })

  it('NFC and NFD spellings of a partition name map to one partition', async () => {
    const composed = 'Caf\u00e9'
    const decomposed = 'Cafe\u0301'
    expect(composed).not.toBe(decomposed)
    const push = await http(broker, 'POST', '/api/v1/push', {
      items: [
        { queue: 'edge-nfc', partition: composed, payload: 'composed', transactionId: 'nfc-1' },
        { queue: 'edge-nfc', partition: decomposed, payload: 'decomposed', transactionId: 'nfd-1' },
      ],
    })
    expect(push.body.map((r: any) => r.status)).toEqual(['queued', 'queued'])
    expect(push.body[0].partition_id).toBe(push.body[1].partition_id)
    const { rows } = await broker.db.query<{ name: string }>(
      `SELECT p.name FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'edge-nfc'`,
    )
    expect(rows).toEqual([{ name: composed }])

    // The decomposed spelling in the pop path reaches the same partition and sees both messages.
    const pop = await http(
      broker,
      'GET',
      `/api/v1/pop/queue/edge-nfc/partition/${encodeURIComponent(decomposed)}?batch=10`,
    )
    expect(pop.body.success).toBe(true)
    expect(pop.body.partition).toBe(composed)
    expect(pop.body.messages.map((m: any) => m.data)).toEqual(['composed', 'decomposed'])
    expect(pop.body.messages.map((m: any) => m.partition)).toEqual([composed, composed])
  })
})

describe('delimiters', () => {
  it('queue a:b with partition c and queue a with partition b:c are distinct', async () => {
    const push = await http(broker, 'POST', '/api/v1/push', {
      items: [
        { queue: 'a:b', partition: 'c', payload: 'in a:b/c', transactionId: 'delim-1' },
        { queue: 'a', partition: 'b:c', payload: 'in a/b:c', transactionId: 'delim-1' },
      ],
    })
    // Same transaction id in two different partitions: two messages, neither a duplicate of the other.
    expect(push.body.map((r: any) => [r.status, r.queueName])).toEqual([
      ['queued', 'a:b'],
      ['queued', 'a'],
    ])
    expect(push.body[0].partition_id).not.toBe(push.body[1].partition_id)
    const { rows } = await broker.db.query<{ queue: string; partition: string }>(
      `SELECT q.name AS queue, p.name AS partition FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
        WHERE q.name IN ('a', 'a:b') ORDER BY q.name`,
    )
    expect(rows).toEqual([
      { queue: 'a', partition: 'b:c' },
      { queue: 'a:b', partition: 'c' },
    ])

    const fromAB = await http(broker, 'GET', '/api/v1/pop/queue/a:b?batch=10')
    expect(fromAB.body.messages.map((m: any) => [m.data, m.partition, m.queue])).toEqual([['in a:b/c', 'c', 'a:b']])
    const fromA = await http(broker, 'GET', '/api/v1/pop/queue/a?batch=10')
    expect(fromA.body.messages.map((m: any) => [m.data, m.partition, m.queue])).toEqual([['in a/b:c', 'b:c', 'a']])
    // The specific-partition route does not mix them either.
    const wrong = await http(broker, 'GET', '/api/v1/pop/queue/a/partition/c?consumerGroup=g')
    expect(wrong.body).toMatchObject({ success: false, error: 'partition_not_found', messages: [] })
    const right = await http(broker, 'GET', `/api/v1/pop/queue/a:b/partition/c?consumerGroup=g`)
    expect(right.body.messages.map((m: any) => m.data)).toEqual(['in a:b/c'])
  })

  it('accepts and round-trips a queue name using every allowed character class', async () => {
    const queue = `_Az09.:@-${'x'.repeat(246)}`
    expect(queue).toHaveLength(255)
    const push = await http(broker, 'POST', '/api/v1/push', { items: [{ queue, payload: 'edge of the rule' }] })
    expect(push.body[0]).toMatchObject({ status: 'queued', queueName: queue })
    const pop = await http(broker, 'GET', `/api/v1/pop/queue/${encodeURIComponent(queue)}`)
    expect(pop.status).toBe(200)
    expect(pop.body.messages.map((m: any) => [m.queue, m.data])).toEqual([[queue, 'edge of the rule']])
  })

  it('reaches a partition name of 255 characters on the partition route', async () => {
    const partition = `P${'é'.repeat(254)}`
    expect(partition).toHaveLength(255)
    const push = await http(broker, 'POST', '/api/v1/push', {
      items: [{ queue: 'edge-long-partition', partition, payload: 'long partition' }],
    })
    expect(push.body[0]).toMatchObject({ status: 'queued' })
    const pop = await http(
      broker,
      'GET',
      `/api/v1/pop/queue/edge-long-partition/partition/${encodeURIComponent(partition)}`,
    )
    expect(pop.status).toBe(200)
    expect(pop.body.messages.map((m: any) => [m.partition, m.data])).toEqual([[partition, 'long partition']])
  })
})
