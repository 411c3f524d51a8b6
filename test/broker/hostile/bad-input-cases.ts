/**
 * The table of named bad inputs of test/broker/hostile/bad-inputs.test.ts: each case is one request,
 * the status it must get, and the start of the error text its body must carry (the field it names).
 * Refused cases must store nothing; the few accepted ones (unknown fields, limits exactly reached) say
 * what they store.
 */

/** Rows the fixtures of the test file put in place; cases aim at them so a lenient broker would act. */
export interface Fixtures {
  /** A message popped in queue mode whose lease is still live. */
  partitionId: string
  transactionId: string
  leaseId: string
}

type Method = 'GET' | 'POST' | 'DELETE'

/** How a case's request is sent. */
export type Send =
  /** A JSON value, serialised and sent as application/json (fetch). */
  | { via: 'json'; method: Method; path: string; body?: unknown }
  /** Body text sent exactly as written, with the given content type (null: no Content-Type header). */
  | { via: 'text'; method: Method; path: string; text: string; contentType?: string | null }
  /** node:http with exactly these headers (nothing added but Host). */
  | { via: 'raw'; method: Method; path: string; headers: Record<string, string>; body?: string }
  /** A request whose announced body is `bytes` long, streamed in 1 MiB chunks until the broker answers. */
  | { via: 'flood'; path: string; bytes: number }
  /** Raw bytes on a fresh TCP connection; `dripMs` sends the second and later slices that far apart. */
  | { via: 'socket'; slices: string[]; dripMs?: number }

export interface BadInput {
  name: string
  send: Send | ((fixtures: Fixtures) => Send)
  status: number
  /**
   * What the error text starts with: the field it names (`items[0].queue`), or the fixed message of the
   * contract. null when Node's HTTP parser refuses the request and no JSON body is sent.
   */
  error: string | null
  /** For accepted input: messages it stores (default: a refused case, nothing stored). */
  storesMessages?: number
}

const PUSH = '/api/v1/push'
const CONFIGURE = '/api/v1/configure'
const TRANSACTION = '/api/v1/transaction'
const CYCLE = '/streams/v1/cycle'
const QUERIES = '/streams/v1/queries'
const STATE = '/streams/v1/state/get'
const TRACES = '/api/v1/traces'
/** A queue holding a deliverable message: a pop that wrongly passed validation would lease it. */
const POP = '/api/v1/pop/queue/hx-pop'
const UUID = '0195f5a0-0000-7000-8000-000000000001'

const json = (method: Method, path: string, body?: unknown): Send => ({ via: 'json', method, path, body })
const text = (path: string, body: string, contentType: string | null = 'application/json'): Send => ({
  via: 'text',
  method: 'POST',
  path,
  text: body,
  contentType,
})
const push = (item: Record<string, unknown>): Send => json('POST', PUSH, { items: [{ queue: 'hx-new', ...item }] })
const configure = (options: Record<string, unknown>, top: Record<string, unknown> = {}): Send =>
  json('POST', CONFIGURE, { queue: 'hx-cfg', ...top, options })
const get = (path: string): Send => json('GET', path)

/** `depth` nested arrays around a leaf, as JSON text (never built as an object: JSON.stringify would recurse). */
const nestedArrays = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`

/** One wrong-typed value per JSON type a string field does not accept. */
const NOT_STRINGS: [string, unknown][] = [
  ['a number', 7],
  ['a boolean', true],
  ['an object', { a: 1 }],
  ['an array', ['a']],
]

const ackOf = (f: Fixtures, extra: Record<string, unknown> = {}) => ({
  transactionId: f.transactionId,
  partitionId: f.partitionId,
  leaseId: f.leaseId,
  ...extra,
})

/** `count` distinct short header lines. */
const headerLines = (count: number) => Array.from({ length: count }, (_, i) => `x-${i}: 1\r\n`).join('')

const cycleOf = (extra: Record<string, unknown>) => ({ query_id: UUID, partition_id: UUID, ...extra })

export const BAD_INPUTS: BadInput[] = [
  // --- nesting (docs/http-api.md, "Validation at the edge": payloads deeper than 128 levels are refused)
  {
    name: 'push payload of 100 000 nested arrays',
    send: text(PUSH, `{"items":[{"queue":"hx-new","payload":${nestedArrays(100_000)}}]}`),
    status: 400,
    error: 'items[0].payload: nested deeper than 128 levels',
  },
  {
    name: 'push payload of 100 000 nested objects',
    send: text(PUSH, `{"items":[{"queue":"hx-new","payload":${nestedObjects(100_000)}}]}`),
    status: 400,
    error: 'items[0].payload: nested deeper than 128 levels',
  },
  {
    name: 'push payload of 100 000 nested objects with a constructor key at the bottom',
    send: text(
      PUSH,
      `{"items":[{"queue":"hx-new","payload":${'{"a":'.repeat(100_000)}{"constructor":{"prototype":1}}${'}'.repeat(100_000)}}]}`,
    ),
    status: 400,
    error: 'Invalid JSON: __proto__ and constructor.prototype keys are not allowed',
  },
  {
    name: 'a whole body of 100 000 nested arrays',
    send: text(PUSH, nestedArrays(100_000)),
    status: 400,
    error: 'items array is required',
  },
  {
    name: 'transaction push data of 100 000 nested arrays',
    send: text(TRANSACTION, `{"operations":[{"type":"push","queue":"hx-tx","data":${nestedArrays(100_000)}}]}`),
    status: 400,
    error: 'operations[0].data: nested deeper than 128 levels',
  },
  {
    name: 'configure options of 100 000 nested objects',
    send: text(CONFIGURE, `{"queue":"hx-cfg","options":${nestedObjects(100_000)}}`),
    status: 400,
    error: 'options.a is not a known option',
  },
  {
    name: 'stream state value of 100 000 nested arrays',
    send: text(
      CYCLE,
      `{"query_id":"${UUID}","partition_id":"${UUID}","state_ops":[{"type":"upsert","key":"k","value":${nestedArrays(100_000)}}]}`,
    ),
    status: 400,
    error: 'state_ops[0].value: nested deeper than 128 levels',
  },
  {
    name: 'trace data of 100 000 nested arrays',
    send: (f) =>
      text(
        TRACES,
        `{"transactionId":${JSON.stringify(f.transactionId)},"partitionId":"${f.partitionId}","data":${nestedArrays(100_000)}}`,
      ),
    status: 400,
    error: 'data: nested deeper than 128 levels',
  },
  {
    name: 'ack batch of 100 000 nested arrays as acknowledgments',
    send: text('/api/v1/ack/batch', `{"acknowledgments":${nestedArrays(100_000)}}`),
    status: 400,
    error: 'acknowledgments[0]: must be an object',
  },

  // --- huge numbers
  {
    name: 'push payload 1e400 (beyond a double)',
    send: text(PUSH, '{"items":[{"queue":"hx-new","payload":1e400}]}'),
    status: 400,
    error: 'items[0].payload: numbers must be finite',
  },
  {
    name: 'push payload with -1e400 nested in an object',
    send: text(PUSH, '{"items":[{"queue":"hx-new","payload":{"n":[-1e400]}}]}'),
    status: 400,
    error: 'items[0].payload: numbers must be finite',
  },
  {
    name: 'configure leaseTime 2^64',
    send: text(CONFIGURE, '{"queue":"hx-cfg","options":{"leaseTime":18446744073709551616}}'),
    status: 400,
    error: 'options.leaseTime: must be between 1 and 604800',
  },
  {
    name: 'configure maxSize 1e400',
    send: text(CONFIGURE, '{"queue":"hx-cfg","options":{"maxSize":1e400}}'),
    status: 400,
    error: 'options.maxSize: must be an integer',
  },
  {
    name: 'configure priority -2^63',
    send: text(CONFIGURE, '{"queue":"hx-cfg","options":{"priority":-9223372036854775808}}'),
    status: 400,
    error: 'options.priority: must be between -1000 and 1000',
  },
  {
    name: 'lease extend seconds 1e400',
    send: (f) => ({
      via: 'text',
      method: 'POST',
      path: `/api/v1/lease/${f.leaseId}/extend`,
      text: '{"seconds":1e400}',
    }),
    status: 400,
    error: 'seconds: must be an integer between 1 and 86400',
  },
  {
    name: 'stream ack count 2^64',
    send: text(
      CYCLE,
      `{"query_id":"${UUID}","partition_id":"${UUID}","ack":{"transactionId":"t","count":18446744073709551616}}`,
    ),
    status: 400,
    error: 'ack.count: must be an integer from 1 to 10000',
  },
  {
    name: 'stream state ripe_at_or_before 1e400',
    send: text(STATE, `{"query_id":"${UUID}","partition_id":"${UUID}","ripe_at_or_before":1e400}`),
    status: 400,
    error: 'ripe_at_or_before: must be a number (epoch milliseconds)',
  },
  { name: 'pop batch=2^64', send: get(`${POP}?batch=18446744073709551616`), status: 400, error: 'batch: ' },
  { name: 'pop timeout=1e3', send: get(`${POP}?wait=true&timeout=1e3`), status: 400, error: 'timeout: ' },
  { name: 'pop timeout=600001', send: get(`${POP}?wait=true&timeout=600001`), status: 400, error: 'timeout: ' },
  {
    name: 'messages offset=2^64',
    send: get('/api/v1/messages?offset=18446744073709551616'),
    status: 400,
    error: 'offset: ',
  },
  { name: 'dlq limit=10001', send: get('/api/v1/dlq?limit=10001'), status: 400, error: 'limit: ' },

  // --- wrong types, field by field
  ...[null, 5, 'x', true, {}].map((items): BadInput => ({
    name: `push items ${JSON.stringify(items)}`,
    send: json('POST', PUSH, { items }),
    status: 400,
    error: 'items array is required',
  })),
  ...['x', 5, null, ['a']].map((item): BadInput => ({
    name: `push item ${JSON.stringify(item)}`,
    send: json('POST', PUSH, { items: [item] }),
    status: 400,
    error: 'items[0]: must be an object',
  })),
  ...NOT_STRINGS.map(([label, queue]): BadInput => ({
    name: `push queue ${label}`,
    send: push({ queue }),
    status: 400,
    error: 'items[0].queue: Queue must be a string',
  })),
  ...NOT_STRINGS.map(([label, partition]): BadInput => ({
    name: `push partition ${label}`,
    send: push({ partition }),
    status: 400,
    error: 'items[0].partition: must be a string',
  })),
  ...NOT_STRINGS.map(([label, transactionId]): BadInput => ({
    name: `push transactionId ${label}`,
    send: push({ transactionId }),
    status: 400,
    error: 'items[0].transactionId: must be a string',
  })),
  ...NOT_STRINGS.map(([label, traceId]): BadInput => ({
    name: `push traceId ${label}`,
    send: push({ traceId }),
    status: 400,
    error: 'items[0].traceId: must be a UUID',
  })),
  ...NOT_STRINGS.map(([label, transactionId]): BadInput => ({
    name: `ack transactionId ${label}`,
    send: (f) => json('POST', '/api/v1/ack', ackOf(f, { transactionId })),
    status: 400,
    error: 'transactionId is required',
  })),
  ...NOT_STRINGS.map(([label, partitionId]): BadInput => ({
    name: `ack partitionId ${label}`,
    send: (f) => json('POST', '/api/v1/ack', ackOf(f, { partitionId })),
    status: 400,
    error: 'partitionId is required to ensure message uniqueness',
  })),
  ...NOT_STRINGS.map(([label, status]): BadInput => ({
    name: `ack status ${label}`,
    send: (f) => json('POST', '/api/v1/ack', ackOf(f, { status })),
    status: 400,
    error: 'status: must be one of',
  })),
  ...NOT_STRINGS.map(([label, consumerGroup]): BadInput => ({
    name: `ack consumerGroup ${label}`,
    send: (f) => json('POST', '/api/v1/ack', ackOf(f, { consumerGroup })),
    status: 400,
    error: 'consumerGroup: must be a string',
  })),
  ...NOT_STRINGS.map(([label, error]): BadInput => ({
    name: `ack error ${label}`,
    send: (f) => json('POST', '/api/v1/ack', ackOf(f, { status: 'failed', error })),
    status: 400,
    error: 'error: must be a string',
  })),
  {
    name: 'ack leaseId a number',
    send: (f) => json('POST', '/api/v1/ack', ackOf(f, { leaseId: 5 })),
    status: 400,
    error: 'leaseId: must be a UUID',
  },
  {
    name: 'ack batch item a string',
    send: (f) => json('POST', '/api/v1/ack/batch', { acknowledgments: [ackOf(f), 'x'] }),
    status: 400,
    error: 'acknowledgments[1]: must be an object',
  },
  {
    name: 'ack batch top-level consumerGroup a number',
    send: (f) => json('POST', '/api/v1/ack/batch', { acknowledgments: [ackOf(f)], consumerGroup: 5 }),
    status: 400,
    error: 'consumerGroup: must be a string',
  },
  {
    name: 'transaction operations a string',
    send: json('POST', TRANSACTION, { operations: 'push' }),
    status: 400,
    error: 'operations array required',
  },
  {
    name: 'transaction operation null (read as an operation without type)',
    send: json('POST', TRANSACTION, { operations: [null] }),
    status: 400,
    error: 'operations[0].type: Unknown operation type',
  },
  {
    name: 'transaction operation type a number',
    send: json('POST', TRANSACTION, { operations: [{ type: 1 }] }),
    status: 400,
    error: 'operations[0].type: Unknown operation type: 1',
  },
  {
    // String() of this object throws: it answered 500 before (found by the data-plane fuzz test).
    name: 'transaction operation type an object whose toString is not a function',
    send: json('POST', TRANSACTION, { operations: [{ type: { toString: 1 } }] }),
    status: 400,
    error: 'operations[0].type: Unknown operation type: {"toString":1}',
  },
  {
    name: "transaction operation type an array holding such an object (the fuzz test's counterexample)",
    send: json('POST', TRANSACTION, { operations: [{ type: [{ toString: [] }] }] }),
    status: 400,
    error: 'operations[0].type: Unknown operation type: [{"toString":[]}]',
  },
  {
    name: 'transaction push items a string (read as the flat form, which has no queue)',
    send: json('POST', TRANSACTION, { operations: [{ type: 'push', items: 'x' }] }),
    status: 400,
    error: 'operations[0].queue: Queue must be a string',
  },
  {
    name: 'transaction requiredLeases a string',
    send: json('POST', TRANSACTION, {
      operations: [{ type: 'push', queue: 'hx-tx', data: 1 }],
      requiredLeases: UUID,
    }),
    status: 400,
    error: 'requiredLeases: must be an array of lease ids',
  },
  {
    name: 'transaction requiredLeases holding a number',
    send: json('POST', TRANSACTION, { operations: [{ type: 'push', queue: 'hx-tx', data: 1 }], requiredLeases: [7] }),
    status: 400,
    error: 'requiredLeases[0]: must be a UUID',
  },
  {
    name: 'transaction ack without transactionId after a valid push',
    send: (f) =>
      json('POST', TRANSACTION, {
        operations: [
          { type: 'push', queue: 'hx-tx', data: 1 },
          { type: 'ack', partitionId: f.partitionId },
        ],
      }),
    status: 400,
    error: 'operations[1].transactionId is required',
  },
  {
    name: 'configure queue a number',
    send: json('POST', CONFIGURE, { queue: 5 }),
    status: 400,
    error: 'queue is required',
  },
  {
    name: 'configure options an array',
    send: configure([] as unknown as Record<string, unknown>),
    status: 400,
    error: 'options: must be an object',
  },
  {
    name: 'configure options a string',
    send: json('POST', CONFIGURE, { queue: 'hx-cfg', options: 'fast' }),
    status: 400,
    error: 'options: must be an object',
  },
  ...NOT_STRINGS.map(([label, namespace]): BadInput => ({
    name: `configure namespace ${label}`,
    send: configure({}, { namespace }),
    status: 400,
    error: 'namespace: must be a string',
  })),
  ...(
    [
      ['leaseTime', '300'],
      ['retryLimit', true],
      ['retryDelay', [1000]],
      ['priority', { v: 1 }],
      ['delayedProcessing', 0.5],
      ['windowBuffer', null],
      ['maxSize', '10'],
      ['maxPartitions', false],
      ['dedupWindowSeconds', 3600.1],
      ['retentionSeconds', '0'],
      ['completedRetentionSeconds', []],
      ['maxWaitTimeSeconds', {}],
    ] as const
  ).map(([option, value]): BadInput => ({
    name: `configure ${option} ${JSON.stringify(value)}`,
    send: configure({ [option]: value }),
    status: 400,
    error: `options.${option}: must be an integer`,
  })),
  ...(
    [
      ['deadLetterQueue', 1],
      ['retentionEnabled', 'true'],
      ['encryptionEnabled', null],
    ] as const
  ).map(([option, value]): BadInput => ({
    name: `configure ${option} ${JSON.stringify(value)}`,
    send: configure({ [option]: value }),
    status: 400,
    error: `options.${option}: must be a boolean`,
  })),
  {
    name: 'lease extend seconds a string',
    send: (f) => json('POST', `/api/v1/lease/${f.leaseId}/extend`, { seconds: '60' }),
    status: 400,
    error: 'seconds: ',
  },
  {
    name: 'lease extend body an array',
    send: (f) => json('POST', `/api/v1/lease/${f.leaseId}/extend`, [60]),
    status: 400,
    error: 'request body must be a JSON object',
  },
  {
    name: 'seek toEnd a string',
    send: json('POST', '/api/v1/consumer-groups/g1/queues/hx-base/seek', { toEnd: 'yes' }),
    status: 400,
    error: 'toEnd: must be a boolean',
  },
  {
    name: 'seek timestamp a number',
    send: json('POST', '/api/v1/consumer-groups/g1/queues/hx-base/seek', { timestamp: 1_700_000_000_000 }),
    status: 400,
    error: 'timestamp: must be an ISO 8601 timestamp',
  },
  {
    name: 'seek timestamp an object',
    send: json('POST', '/api/v1/consumer-groups/g1/queues/hx-base/seek', { timestamp: { at: 'now' } }),
    status: 400,
    error: 'timestamp: must be an ISO 8601 timestamp',
  },
  {
    name: 'seek timestamp month 13',
    send: json('POST', '/api/v1/consumer-groups/g1/queues/hx-base/seek', { timestamp: '2026-13-01T00:00:00Z' }),
    status: 400,
    error: 'timestamp: must be an ISO 8601 timestamp',
  },
  {
    name: 'subscription timestamp an array',
    send: json('POST', '/api/v1/consumer-groups/g1/subscription', { subscriptionTimestamp: ['2026-01-01'] }),
    status: 400,
    error: 'subscriptionTimestamp: ',
  },
  ...(
    [
      ['name a number', { name: 5, source_queue: 'hx-src', config_hash: 'h' }, 'name: must be a string'],
      ['source_queue a number', { name: 'q', source_queue: 5, config_hash: 'h' }, 'source_queue: '],
      [
        'config_hash an object',
        { name: 'q', source_queue: 'hx-src', config_hash: {} },
        'config_hash: must be a string',
      ],
      ['sink_queue an array', { name: 'q', source_queue: 'hx-src', config_hash: 'h', sink_queue: [] }, 'sink_queue: '],
      [
        'reset a string',
        { name: 'q', source_queue: 'hx-src', config_hash: 'h', reset: 'yes' },
        'reset: must be a boolean',
      ],
    ] as const
  ).map(([label, body, error]): BadInput => ({
    name: `stream query ${label}`,
    send: json('POST', QUERIES, body),
    status: 400,
    error,
  })),
  ...(
    [
      ['query_id a number', { query_id: 5, partition_id: UUID }, 'query_id: must be a UUID'],
      ['partition_id not a UUID', { query_id: UUID, partition_id: 'p' }, 'partition_id: must be a UUID'],
      ['consumer_group a number', cycleOf({ consumer_group: 5 }), 'consumer_group: must be a string'],
      ['state_ops an object', cycleOf({ state_ops: {} }), 'state_ops: must be an array'],
      ['state op a string', cycleOf({ state_ops: ['x'] }), 'state_ops[0]: must be an object'],
      ['state op type bogus', cycleOf({ state_ops: [{ type: 'merge', key: 'k' }] }), 'state_ops[0].type: '],
      ['state op key a number', cycleOf({ state_ops: [{ type: 'delete', key: 5 }] }), 'state_ops[0].key is required'],
      [
        'state upsert without value',
        cycleOf({ state_ops: [{ type: 'upsert', key: 'k' }] }),
        'state_ops[0].value is required',
      ],
      ['push_items an object', cycleOf({ push_items: {} }), 'push_items: must be an array'],
      ['push item without queue', cycleOf({ push_items: [{ payload: 1 }] }), 'push_items[0].queue: '],
      ['ack a string', cycleOf({ ack: 'done' }), 'ack: must be an object or null'],
      ['ack count 1.5', cycleOf({ ack: { transactionId: 't', count: 1.5 } }), 'ack.count: '],
      ['ack count "2"', cycleOf({ ack: { transactionId: 't', count: '2' } }), 'ack.count: '],
      ['ack status bogus', cycleOf({ ack: { transactionId: 't', status: 'bogus' } }), 'ack.status: '],
      ['release_lease a string', cycleOf({ release_lease: 'no' }), 'release_lease: must be a boolean'],
    ] as const
  ).map(([label, body, error]): BadInput => ({
    name: `stream cycle ${label}`,
    send: json('POST', CYCLE, body),
    status: 400,
    error,
  })),
  ...(
    [
      ['keys a string', { keys: 'k' }, 'keys: must be an array of strings'],
      ['keys holding a number', { keys: [1] }, 'keys: must be an array of strings'],
      ['key_prefix a number', { key_prefix: 5 }, 'key_prefix: must be a string'],
      ['ripe_at_or_before a string', { ripe_at_or_before: '5' }, 'ripe_at_or_before: '],
    ] as const
  ).map(([label, extra, error]): BadInput => ({
    name: `stream state get ${label}`,
    send: json('POST', STATE, { query_id: UUID, partition_id: UUID, ...extra }),
    status: 400,
    error,
  })),
  ...(
    [
      ['consumerGroup a number', { consumerGroup: 5 }, 'consumerGroup: must be a string'],
      ['eventType an object', { eventType: {} }, 'eventType: must be a string'],
      ['traceNames a number', { traceNames: 5 }, 'traceNames: must be a string or an array of strings'],
      ['traceNames holding a number', { traceNames: [5] }, 'traceNames[0]: must be a string'],
      ['workerId an array', { workerId: ['w'] }, 'workerId: must be a string'],
    ] as const
  ).map(([label, extra, error]): BadInput => ({
    name: `trace ${label}`,
    send: (f) =>
      json('POST', TRACES, { transactionId: f.transactionId, partitionId: f.partitionId, data: 1, ...extra }),
    status: 400,
    error,
  })),
  {
    name: 'maintenance enabled "true"',
    send: json('POST', '/api/v1/system/maintenance', { enabled: 'true' }),
    status: 400,
    error: 'enabled (boolean) is required',
  },
  {
    name: 'notify queue a number',
    send: json('POST', '/internal/api/notify', { queue: 5 }),
    status: 400,
    error: 'queue',
  },
  {
    name: 'message retry consumerGroup a number',
    send: (f) =>
      json('POST', `/api/v1/messages/${f.partitionId}/${encodeURIComponent(f.transactionId)}/retry`, {
        consumerGroup: 5,
      }),
    status: 400,
    error: 'consumerGroup: must be a string',
  },
  {
    name: 'message dlq error an object',
    send: (f) =>
      json('POST', `/api/v1/messages/${f.partitionId}/${encodeURIComponent(f.transactionId)}/dlq`, { error: {} }),
    status: 400,
    error: 'error: must be a string',
  },

  // --- lone surrogates in strings and keys (jsonb refuses them; text columns would mangle them)
  {
    name: 'push payload key holding a lone high surrogate',
    send: text(PUSH, '{"items":[{"queue":"hx-new","payload":{"k\\ud83d":1}}]}'),
    status: 400,
    error: 'items[0].payload: contains an unpaired UTF-16 surrogate',
  },
  {
    name: 'push partition holding a lone low surrogate',
    send: text(PUSH, '{"items":[{"queue":"hx-new","partition":"p\\ude00"}]}'),
    status: 400,
    error: 'items[0].partition: contains an unpaired UTF-16 surrogate',
  },
  {
    name: 'push transactionId holding a lone surrogate',
    send: text(PUSH, '{"items":[{"queue":"hx-new","transactionId":"t\\ud800"}]}'),
    status: 400,
    error: 'items[0].transactionId: contains an unpaired UTF-16 surrogate',
  },
  {
    name: 'push queue holding a lone surrogate',
    send: text(PUSH, '{"items":[{"queue":"q\\ud800"}]}'),
    status: 400,
    error: 'items[0].queue: must be 1-255 characters',
  },
  {
    name: 'ack error holding a lone surrogate',
    send: (f) =>
      text('/api/v1/ack', JSON.stringify(ackOf(f, { status: 'failed' })).replace(/}$/, ',"error":"e\\udfff"}')),
    status: 400,
    error: 'error: contains an unpaired UTF-16 surrogate',
  },
  {
    name: 'configure namespace holding a lone surrogate',
    send: text(CONFIGURE, '{"queue":"hx-cfg","namespace":"n\\ud800"}'),
    status: 400,
    error: 'namespace: contains an unpaired UTF-16 surrogate',
  },
  {
    name: 'stream state key holding a lone surrogate',
    send: text(
      CYCLE,
      `{"query_id":"${UUID}","partition_id":"${UUID}","state_ops":[{"type":"delete","key":"\\udc00"}]}`,
    ),
    status: 400,
    error: 'state_ops[0].key: contains an unpaired UTF-16 surrogate',
  },
  {
    name: 'pop consumerGroup holding a percent-encoded lone surrogate',
    send: get(`${POP}?consumerGroup=%ED%A0%80`),
    status: 400,
    error: 'consumerGroup: not valid percent-encoded UTF-8',
  },

  // --- \u0000 in keys and names (PostgreSQL text and jsonb cannot hold it)
  {
    name: 'push payload key "\\u0000"',
    send: text(PUSH, '{"items":[{"queue":"hx-new","payload":{"\\u0000":1}}]}'),
    status: 400,
    error: 'items[0].payload: strings must not contain \\u0000',
  },
  {
    name: 'push queue holding \\u0000',
    send: text(PUSH, '{"items":[{"queue":"q\\u0000"}]}'),
    status: 400,
    error: 'items[0].queue: must be 1-255 characters',
  },
  {
    name: 'ack consumerGroup holding \\u0000',
    send: (f) => text('/api/v1/ack', JSON.stringify(ackOf(f)).replace(/}$/, ',"consumerGroup":"g\\u0000"}')),
    status: 400,
    error: 'consumerGroup: must not contain control characters',
  },
  {
    name: 'failed ack with an error text holding \\u0000',
    send: (f) =>
      text('/api/v1/ack', JSON.stringify(ackOf(f, { status: 'failed' })).replace(/}$/, ',"error":"boom\\u0000"}')),
    status: 400,
    error: 'error: must not contain \\u0000',
  },
  {
    name: 'transaction ack with an error text holding \\u0000',
    send: (f) =>
      text(
        TRANSACTION,
        `{"operations":[{"type":"ack","transactionId":${JSON.stringify(f.transactionId)},"partitionId":"${f.partitionId}","status":"dlq","error":"x\\u0000"}]}`,
      ),
    status: 400,
    error: 'operations[0].error: must not contain \\u0000',
  },
  {
    name: 'message dlq move with an error text holding \\u0000',
    send: (f) => ({
      via: 'text',
      method: 'POST',
      path: `/api/v1/messages/${f.partitionId}/${encodeURIComponent(f.transactionId)}/dlq`,
      text: '{"error":"x\\u0000y"}',
    }),
    status: 400,
    error: 'error: must not contain \\u0000',
  },
  {
    name: 'trace eventType holding \\u0000',
    send: (f) =>
      text(
        TRACES,
        `{"transactionId":${JSON.stringify(f.transactionId)},"partitionId":"${f.partitionId}","data":1,"eventType":"i\\u0000"}`,
      ),
    status: 400,
    error: 'eventType: must not contain \\u0000',
  },
  {
    name: 'trace name holding \\u0000',
    send: (f) =>
      text(
        TRACES,
        `{"transactionId":${JSON.stringify(f.transactionId)},"partitionId":"${f.partitionId}","data":1,"traceNames":["n\\u0000"]}`,
      ),
    status: 400,
    error: 'traceNames[0]: must not contain \\u0000',
  },
  {
    name: 'trace workerId holding \\u0000',
    send: (f) =>
      text(
        TRACES,
        `{"transactionId":${JSON.stringify(f.transactionId)},"partitionId":"${f.partitionId}","data":1,"workerId":"w\\u0000"}`,
      ),
    status: 400,
    error: 'workerId: must not contain \\u0000',
  },
  {
    name: 'traces by name with %00 in the name',
    send: get('/api/v1/traces/by-name/a%00b'),
    status: 400,
    error: 'traceName: must not contain \\u0000',
  },
  {
    name: 'messages filtered by a namespace holding %00',
    send: get('/api/v1/messages?ns=a%00'),
    status: 400,
    error: 'namespace: must not contain \\u0000',
  },
  {
    name: 'queue listing searched for %00',
    send: get('/api/v1/resources/queues?search=a%00'),
    status: 400,
    error: 'search: must not contain \\u0000',
  },
  {
    name: 'queue listing filtered by a namespace holding %00',
    send: get('/api/v1/resources/queues?namespace=%00'),
    status: 400,
    error: 'namespace: must not contain \\u0000',
  },
  {
    name: 'queue status filtered by a task holding %00',
    send: get('/api/v1/status/queues?task=t%00'),
    status: 400,
    error: 'task: must not contain \\u0000',
  },
  {
    name: 'system metrics of a hostname holding %00',
    send: get('/api/v1/analytics/system-metrics?hostname=h%00'),
    status: 400,
    error: 'hostname: must not contain \\u0000',
  },
  {
    name: 'namespace pop with a task holding %00',
    send: get('/api/v1/pop?task=a%00'),
    status: 400,
    error: 'task: must not contain \\u0000',
  },
  {
    name: 'stream query name holding \\u0000',
    send: text(QUERIES, '{"name":"n\\u0000","source_queue":"hx-src","config_hash":"h"}'),
    status: 400,
    error: 'name: must not contain \\u0000',
  },
  {
    name: 'stream key_prefix holding \\u0000',
    send: text(STATE, `{"query_id":"${UUID}","partition_id":"${UUID}","key_prefix":"\\u0000"}`),
    status: 400,
    error: 'key_prefix: strings must not contain \\u0000',
  },
  {
    name: 'pop partition %00 in the path',
    send: get('/api/v1/pop/queue/hx-pop/partition/%00'),
    status: 400,
    error: 'partition: must not contain control characters',
  },
  {
    name: 'resource queue %00 in the path',
    send: get('/api/v1/resources/queues/a%00'),
    status: 400,
    error: 'queue: ',
  },

  // --- volume (QUEEN_MAX_BATCH_ITEMS = 10 000 per request, QUEEN_MAX_BODY_BYTES = 32 MiB)
  {
    name: 'push of exactly 10 000 items (the limit: accepted)',
    send: () =>
      json('POST', PUSH, { items: Array.from({ length: 10_000 }, (_, i) => ({ queue: 'hx-bulk', payload: i })) }),
    status: 200,
    error: null,
    storesMessages: 10_000,
  },
  {
    name: 'push of 10 001 items',
    send: () => json('POST', PUSH, { items: Array.from({ length: 10_001 }, () => ({ queue: 'hx-bulk', payload: 1 })) }),
    status: 400,
    error: 'items: at most 10000 items per request',
  },
  {
    name: 'ack batch of 10 001 acknowledgments',
    send: (f) => json('POST', '/api/v1/ack/batch', { acknowledgments: Array.from({ length: 10_001 }, () => ackOf(f)) }),
    status: 400,
    error: 'acknowledgments: at most 10000 items per request',
  },
  {
    name: 'transaction of 10 001 push items',
    send: () =>
      json('POST', TRANSACTION, {
        operations: [
          { type: 'push', items: Array.from({ length: 10_001 }, (_, i) => ({ queue: 'hx-tx', payload: i })) },
        ],
      }),
    status: 400,
    error: 'operations: at most 10000 push items and acks per transaction',
  },
  {
    name: 'stream cycle of 10 001 push items',
    send: () =>
      json(
        'POST',
        CYCLE,
        cycleOf({ push_items: Array.from({ length: 10_001 }, () => ({ queue: 'hx-sink', payload: 1 })) }),
      ),
    status: 400,
    error: 'push_items, state_ops: at most 10000',
  },
  {
    name: 'a 100 MB push body, actually sent',
    send: { via: 'flood', path: PUSH, bytes: 100 * 1024 * 1024 },
    status: 413,
    error: 'Request body is larger than 33554432 bytes',
  },
  {
    name: 'a 100 MB Content-Length on a route that reads no body',
    send: { via: 'flood', path: '/api/v1/stats/refresh', bytes: 100 * 1024 * 1024 },
    status: 413,
    error: 'Request body is larger than 33554432 bytes',
  },

  // --- header floods and slow headers
  {
    name: '1 500 small headers (under 16 KiB: served)',
    send: {
      via: 'socket',
      slices: [
        `GET /api/v1/pop/queue/hx-none HTTP/1.1\r\nHost: 127.0.0.1\r\n${headerLines(1500)}Connection: close\r\n\r\n`,
      ],
    },
    status: 200,
    error: null,
  },
  {
    name: '5 000 headers (over 16 KiB)',
    send: {
      via: 'socket',
      slices: [
        `POST ${PUSH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${headerLines(5000)}` +
          'Content-Length: 42\r\n\r\n{"items":[{"queue":"hx-new","payload":1}]}',
      ],
    },
    status: 431,
    error: null,
  },
  {
    name: 'one header of 64 KiB',
    send: {
      via: 'raw',
      method: 'POST',
      path: PUSH,
      headers: { 'content-type': 'application/json', 'x-huge': 'h'.repeat(64 * 1024) },
      body: '{"items":[{"queue":"hx-new","payload":1}]}',
    },
    status: 431,
    error: null,
  },
  {
    name: 'a URL of 64 KiB',
    send: get(`${POP}?consumerGroup=${'g'.repeat(64 * 1024)}`),
    status: 431,
    error: null,
  },
  {
    name: 'a path parameter over the router limit (5 000 characters)',
    send: get(`/api/v1/pop/queue/${'q'.repeat(5000)}`),
    status: 414,
    error: 'path: a path parameter is longer than 4096 characters',
  },
  {
    name: 'slow headers, one character every 200 ms (slowloris)',
    send: {
      via: 'socket',
      slices: ['POST /api/v1/push HTTP/1.1\r\nHost: 127.0.0.1\r\n', ...'X-Slow: '.concat('s'.repeat(200)).split('')],
      dripMs: 200,
    },
    status: 408,
    error: null,
  },
  {
    name: 'Content-Length and Transfer-Encoding together (request smuggling)',
    send: {
      via: 'socket',
      slices: [
        'POST /api/v1/push HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
          'Content-Length: 44\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      ],
    },
    status: 400,
    error: null,
  },

  // --- malformed HTTP framing (Node's parser refuses it before any route runs)
  {
    name: 'HTTP/1.1 without a Host header',
    send: { via: 'socket', slices: ['GET /api/v1/pop/queue/hx-pop HTTP/1.1\r\n\r\n'] },
    status: 400,
    error: null,
  },
  {
    name: 'a chunk size beyond 64 bits',
    send: {
      via: 'socket',
      slices: [
        `POST ${PUSH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
          'Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n{}\r\n0\r\n\r\n',
      ],
    },
    status: 400,
    error: null,
  },
  {
    name: 'a NUL byte in a header value',
    send: { via: 'socket', slices: ['GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Evil: a\u0000b\r\n\r\n'] },
    status: 400,
    error: null,
  },
  {
    name: 'a space in a header name',
    send: { via: 'socket', slices: ['GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX Evil: 1\r\n\r\n'] },
    status: 400,
    error: null,
  },
  {
    name: 'a bare LF in the request line',
    send: { via: 'socket', slices: [`POST ${PUSH} HTTP/1.1\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}`] },
    status: 400,
    error: null,
  },
  {
    name: 'a second Content-Length that disagrees',
    send: {
      via: 'socket',
      slices: [
        `POST ${PUSH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
          'Content-Length: 12\r\nContent-Length: 2\r\n\r\n{"items":[]}',
      ],
    },
    status: 400,
    error: null,
  },

  // --- paths that try to reach another route
  {
    name: 'a doubled slash in front of a route',
    send: { via: 'raw', method: 'POST', path: '//api/v1/push', headers: {} },
    status: 404,
    error: 'Route POST //api/v1/push not found',
  },
  {
    name: 'an encoded traversal after a route',
    send: { via: 'raw', method: 'GET', path: '/api/v1/pop/queue/..%2F..%2Fhealth', headers: {} },
    status: 400,
    error: 'queue: must be 1-255 characters',
  },
  {
    name: 'a literal traversal to an operator route',
    send: { via: 'raw', method: 'GET', path: '/api/v1/pop/../system/maintenance', headers: {} },
    status: 404,
    error: 'Route GET /api/v1/pop/../system/maintenance not found',
  },

  // --- bad percent-encoding in paths and queries
  {
    name: 'truncated percent-encoding in a queue path',
    send: get('/api/v1/pop/queue/hx%E0%A4%A'),
    status: 400,
    error: 'path: not valid percent-encoded UTF-8',
  },
  {
    name: 'non-hex percent-encoding in a lease path',
    send: { via: 'raw', method: 'POST', path: '/api/v1/lease/%zz/extend', headers: {} },
    status: 400,
    error: 'path: not valid percent-encoded UTF-8',
  },
  {
    name: 'an encoded lone surrogate in a message path',
    send: get(`/api/v1/messages/${UUID}/%ED%A0%80`),
    status: 400,
    error: 'path: not valid percent-encoded UTF-8',
  },
  {
    name: 'overlong UTF-8 slash in a consumer-group path',
    send: json('POST', '/api/v1/consumer-groups/%C0%AF/queues/hx-base/seek', { toEnd: true }),
    status: 400,
    error: 'path: not valid percent-encoded UTF-8',
  },
  {
    name: 'an encoded slash in a queue path',
    send: get('/api/v1/pop/queue/a%2Fb'),
    status: 400,
    error: 'queue: must be 1-255 characters',
  },
  {
    name: 'a truncated percent-encoding in the query',
    send: get(`${POP}?batch=%3`),
    status: 400,
    error: 'batch: not valid percent-encoded UTF-8',
  },
  {
    name: 'a lone percent sign in a query value',
    send: get(`/api/v1/messages?queue=100%`),
    status: 400,
    error: 'queue: not valid percent-encoded UTF-8',
  },
  {
    name: 'bad percent-encoding in a query key',
    send: get(`${POP}?%E0=1`),
    status: 400,
    error: 'query: not valid percent-encoded UTF-8',
  },

  // --- JSON framing
  {
    name: 'trailing garbage after the JSON',
    send: text(PUSH, '{"items":[]} x'),
    status: 400,
    error: 'Invalid JSON: Unexpected',
  },
  {
    name: 'a byte-order mark before the JSON (skipped, as JSON parsers may: accepted)',
    send: text(PUSH, '\ufeff{"items":[]}'),
    status: 200,
    error: null,
    storesMessages: 0,
  },
  {
    name: 'single-quoted JSON',
    send: text(PUSH, "{'items':[]}"),
    status: 400,
    error: "Invalid JSON: Expected property name or '}'",
  },
  {
    name: 'NaN as a payload',
    send: text(PUSH, '{"items":[{"queue":"hx-new","payload":NaN}]}'),
    status: 400,
    error: 'Invalid JSON: Unexpected',
  },
  {
    name: 'a text/plain body',
    send: text(PUSH, '{"items":[]}', 'text/plain'),
    status: 415,
    error: "Unsupported Content-Type 'text/plain'",
  },
  {
    name: 'a form body',
    send: text(PUSH, 'items=1', 'application/x-www-form-urlencoded'),
    status: 415,
    error: "Unsupported Content-Type 'application/x-www-form-urlencoded'",
  },
  {
    name: 'a Content-Length shorter than the body',
    send: {
      via: 'socket',
      slices: [
        'POST /api/v1/push HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n{"items":[]}',
      ],
    },
    // Node's parser reads the 5 bytes, then fails on the rest as a second request and closes the connection.
    status: 400,
    error: null,
  },

  // --- unknown fields (ignored where the contract says so) and prototype pollution
  {
    name: 'push with unknown top-level and item fields (ignored: accepted)',
    send: json('POST', PUSH, {
      items: [{ queue: 'hx-unknown', payload: 1, producerSub: 'mallory', namespace: 'x', extra: { deep: [1] } }],
      bufferMs: 100,
      bufferMax: 5,
    }),
    status: 200,
    error: null,
    storesMessages: 1,
  },
  {
    name: 'configure with an unknown option',
    send: configure({ ttl2: 5 }),
    status: 400,
    error: 'options.ttl2 is not a known option',
  },
  {
    name: 'a body with a __proto__ key',
    send: text(PUSH, '{"items":[{"queue":"hx-new","payload":1}],"__proto__":{"polluted":true}}'),
    status: 400,
    error: 'Invalid JSON: __proto__ and constructor.prototype keys are not allowed',
  },
  {
    name: 'a payload with a __proto__ key',
    send: text(PUSH, '{"items":[{"queue":"hx-new","payload":{"__proto__":{"isAdmin":true}}}]}'),
    status: 400,
    error: 'Invalid JSON: __proto__ and constructor.prototype keys are not allowed',
  },
  {
    name: 'a __proto__ key spelled with unicode escapes',
    send: text(PUSH, '{"items":[{"queue":"hx-new","payload":{"\\u005f\\u005fproto\\u005f\\u005f":{"x":1}}}]}'),
    status: 400,
    error: 'Invalid JSON: __proto__ and constructor.prototype keys are not allowed',
  },
  {
    name: 'configure options with constructor.prototype',
    send: text(CONFIGURE, '{"queue":"hx-cfg","options":{"constructor":{"prototype":{"leaseTime":1}}}}'),
    status: 400,
    error: 'Invalid JSON: __proto__ and constructor.prototype keys are not allowed',
  },
  {
    name: 'configure options with a constructor key alone',
    send: text(CONFIGURE, '{"queue":"hx-cfg","options":{"constructor":1}}'),
    status: 400,
    error: 'options.constructor is not a known option',
  },
  {
    name: 'configure options with a hasOwnProperty key',
    send: configure({ hasOwnProperty: 1 }),
    status: 400,
    error: 'options.hasOwnProperty is not a known option',
  },
  {
    name: 'ack status "constructor"',
    send: (f) => json('POST', '/api/v1/ack', ackOf(f, { status: 'constructor' })),
    status: 400,
    error: 'status: must be one of',
  },
  {
    name: 'ack status "toString"',
    send: (f) => json('POST', '/api/v1/ack', ackOf(f, { status: 'toString' })),
    status: 400,
    error: 'status: must be one of',
  },
  {
    name: 'messages status "constructor"',
    send: get('/api/v1/messages?status=constructor'),
    status: 400,
    error: 'status: must be one of',
  },
  {
    name: 'analytics interval "__proto__"',
    send: get('/api/v1/status/analytics?interval=__proto__'),
    status: 400,
    error: 'interval: must be minute, hour or day',
  },
  {
    name: 'query parameter __proto__[batch]',
    send: get(`${POP}?__proto__[batch]=0&batch=x`),
    status: 400,
    error: 'batch: must be an integer',
  },

  // --- filters of messages, DLQ, status
  { name: 'messages limit=0', send: get('/api/v1/messages?limit=0'), status: 400, error: 'limit: ' },
  { name: 'messages limit=1001', send: get('/api/v1/messages?limit=1001'), status: 400, error: 'limit: ' },
  { name: 'messages from=yesterday', send: get('/api/v1/messages?from=yesterday'), status: 400, error: 'from: ' },
  { name: 'messages queue with a space', send: get('/api/v1/messages?queue=a%20b'), status: 400, error: 'queue: ' },
  { name: 'dlq offset=-1', send: get('/api/v1/dlq?offset=-1'), status: 400, error: 'offset: ' },
  { name: 'dlq to=2026-02-30T25:00:00Z', send: get('/api/v1/dlq?to=2026-02-30T25:00:00Z'), status: 400, error: 'to: ' },
  {
    name: 'dlq consumerGroup of 256 characters',
    send: get(`/api/v1/dlq?consumerGroup=${'g'.repeat(256)}`),
    status: 400,
    error: 'consumerGroup: ',
  },
  {
    name: 'status from after to',
    send: get('/api/v1/status?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z'),
    status: 400,
    error: 'from: ',
  },
  {
    name: 'status range of 10 years',
    send: get('/api/v1/status?from=2016-01-01T00:00:00Z&to=2026-01-01T00:00:00Z'),
    status: 400,
    error: 'from: ',
  },
  {
    name: 'lagging minLagSeconds=abc',
    send: get('/api/v1/consumer-groups/lagging?minLagSeconds=abc'),
    status: 400,
    error: 'minLagSeconds: ',
  },
]
