/**
 * Property-based fuzzing of the control plane and the streams routes: configure, consumer-group seeks
 * and subscription, the messages and DLQ filters, and /streams/v1/queries, /cycle and /state/get. Never
 * a 5xx, and a refused request stores nothing.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { QUEUE_OPTIONS } from '../../../src/broker/engine/queue-options.js'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import {
  bodyText,
  field,
  fuzzRoute,
  groupName,
  hostileString,
  integerText,
  jsonValue,
  partitionName,
  payload,
  queryString,
  queueName,
  timestamp,
  urlText,
  uuid,
  type FuzzRequest,
} from './fuzz-support.js'

let broker: TestBroker
/** A registered stream query and a partition of its source, so cycles get past the lookups. */
let stream: { queryId: string; partitionId: string; transactionId: string }

beforeAll(async () => {
  broker = await startTestBroker({ label: 'hostile_fuzz_control' })
  const items = Array.from({ length: 50 }, (_, i) => ({ queue: 'fz-a', payload: { i } }))
  expect((await http(broker, 'POST', '/api/v1/push', { items })).status).toBe(200)
  const pop = await http(broker, 'GET', '/api/v1/pop/queue/fz-a?batch=10&consumerGroup=g1')
  const registered = await http(broker, 'POST', '/streams/v1/queries', {
    name: 'fz-stream',
    source_queue: 'fz-a',
    config_hash: 'h1',
  })
  expect(registered.body.success).toBe(true)
  const message = pop.body.messages[0]
  stream = { queryId: registered.body.query_id, partitionId: message.partitionId, transactionId: message.transactionId }
})

afterAll(async () => {
  await broker.close()
})

const post = (path: fc.Arbitrary<string> | string, body: fc.Arbitrary<unknown>): fc.Arbitrary<FuzzRequest> =>
  fc
    .tuple(typeof path === 'string' ? fc.constant(path) : path, fc.option(bodyText(body), { nil: undefined, freq: 8 }))
    .map(([p, text]) => ({ method: 'POST', path: p, body: text }))

const get = (path: string, query: fc.Arbitrary<string>): fc.Arbitrary<FuzzRequest> =>
  query.map((q) => ({ method: 'GET', path: `${path}${q}` }))

/** Option values: in range for their kind, the wrong kind, or anything. */
const optionValue = fc.oneof(
  fc.integer({ min: -2000, max: 700_000 }),
  fc.boolean(),
  fc.constantFrom(2 ** 31, 2 ** 64, 0.5, -0, '10', null),
  jsonValue,
)
const optionName = fc.oneof(
  { arbitrary: fc.constantFrom(...Object.keys(QUEUE_OPTIONS), 'ttl', 'dlqAfterMaxRetries'), weight: 8 },
  { arbitrary: hostileString, weight: 1 },
)

describe('fuzzing the control plane and streams: no 5xx, refused input stores nothing', () => {
  it('POST /api/v1/configure', async () => {
    const body = fc.oneof(
      {
        arbitrary: fc.record(
          {
            queue: field(queueName),
            namespace: field(fc.oneof(fc.constant(null), fc.string({ maxLength: 10 }))),
            task: field(fc.oneof(fc.constant(null), fc.string({ maxLength: 10 }))),
            options: fc.oneof(
              { arbitrary: fc.dictionary(optionName, optionValue, { maxKeys: 4 }), weight: 8 },
              { arbitrary: jsonValue, weight: 1 },
            ),
          },
          { requiredKeys: ['queue'] },
        ),
        weight: 8,
      },
      { arbitrary: jsonValue, weight: 1 },
    )
    const tally = await fuzzRoute(broker, post('/api/v1/configure', body))
    expect(tally.statuses.get(200) ?? 0).toBeGreaterThan(0)
  })

  it('POST consumer-group seek (queue and partition) and subscription', async () => {
    const group = urlText(field(groupName))
    const queue = urlText(field(fc.constantFrom('fz-a', 'fz-none')))
    const seekBody = fc.oneof(
      fc.record({ toEnd: field(fc.boolean()), timestamp: field(timestamp) }, { requiredKeys: [] }),
      jsonValue,
    )
    const requests = fc.oneof(
      post(
        fc.tuple(group, queue).map(([g, q]) => `/api/v1/consumer-groups/${g}/queues/${q}/seek`),
        seekBody,
      ),
      post(
        fc
          .tuple(group, queue, urlText(field(partitionName)))
          .map(([g, q, p]) => `/api/v1/consumer-groups/${g}/queues/${q}/partitions/${p}/seek`),
        jsonValue,
      ),
      post(
        group.map((g) => `/api/v1/consumer-groups/${g}/subscription`),
        fc.oneof(fc.record({ subscriptionTimestamp: field(timestamp) }, { requiredKeys: [] }), jsonValue),
      ),
    )
    await fuzzRoute(broker, requests)
  })

  it('GET /api/v1/messages filters', async () => {
    const query = queryString({
      queue: urlText(field(queueName)),
      partition: urlText(field(partitionName)),
      ns: urlText(field(fc.constantFrom('fz', 'x'))),
      namespace: urlText(field(fc.constantFrom('fz', 'x'))),
      task: urlText(field(fc.constantFrom('a', 'b'))),
      status: fc.constantFrom('pending', 'processing', 'completed', 'dead_letter', 'failed', 'constructor', 'bogus'),
      consumerGroup: urlText(field(groupName)),
      from: urlText(timestamp),
      to: urlText(timestamp),
      limit: integerText,
      offset: integerText,
    })
    // Eleven fuzzed fields are rarely all valid at once (0-1 accepted of 120 runs): one request in ten is a
    // plain valid filter, so the accepted path is reached in every run.
    const plain = fc.constantFrom('?queue=fz-a', '?queue=fz-a&status=pending&limit=5', '?ns=fz&offset=0')
    const mixed = fc.oneof({ arbitrary: query, weight: 9 }, { arbitrary: plain, weight: 1 })
    const tally = await fuzzRoute(broker, get('/api/v1/messages', mixed))
    expect(tally.statuses.get(200) ?? 0).toBeGreaterThan(0)
  })

  it('GET /api/v1/dlq filters', async () => {
    const query = queryString({
      queue: urlText(field(queueName)),
      consumerGroup: urlText(field(groupName)),
      partition: urlText(field(partitionName)),
      from: urlText(timestamp),
      to: urlText(timestamp),
      limit: integerText,
      offset: integerText,
    })
    const tally = await fuzzRoute(broker, get('/api/v1/dlq', query))
    expect(tally.statuses.get(200) ?? 0).toBeGreaterThan(0)
  })

  it('POST /streams/v1/queries', async () => {
    const body = fc.oneof(
      {
        arbitrary: fc.record(
          {
            name: field(fc.constantFrom('fz-stream', 'fz-other')),
            source_queue: field(queueName),
            config_hash: field(fc.constantFrom('h1', 'h2')),
            sink_queue: field(fc.oneof(fc.constant(null), queueName)),
            reset: field(fc.boolean()),
          },
          { requiredKeys: ['name', 'source_queue', 'config_hash'] },
        ),
        weight: 8,
      },
      { arbitrary: jsonValue, weight: 1 },
    )
    await fuzzRoute(broker, post('/streams/v1/queries', body))
  })

  it('POST /streams/v1/cycle', async () => {
    const stateOp = fc.oneof(
      fc.record({ type: fc.constant('upsert'), key: field(fc.string({ minLength: 1, maxLength: 8 })), value: payload }),
      fc.record({
        type: field(fc.constantFrom('delete', 'merge')),
        key: field(fc.string({ minLength: 1, maxLength: 8 })),
      }),
      jsonValue,
    )
    const pushItem = fc.record(
      {
        queue: field(queueName),
        partition: field(partitionName),
        payload,
        transactionId: field(fc.string({ minLength: 1 })),
      },
      { requiredKeys: [] },
    )
    const ack = fc.oneof(
      fc.constant(null),
      fc.record(
        {
          transactionId: field(fc.constant(stream.transactionId)),
          leaseId: field(uuid),
          status: field(fc.constantFrom('completed', 'failed', 'dlq')),
          count: field(fc.integer({ min: -1, max: 20 })),
          error: field(fc.string()),
        },
        { requiredKeys: ['transactionId'] },
      ),
      jsonValue,
    )
    const body = fc.oneof(
      {
        arbitrary: fc.record(
          {
            query_id: field(fc.oneof(fc.constant(stream.queryId), uuid)),
            partition_id: field(fc.oneof(fc.constant(stream.partitionId), uuid)),
            consumer_group: field(fc.constantFrom('g1', `streams.${stream.queryId}`)),
            state_ops: fc.oneof(fc.array(stateOp, { maxLength: 3 }), jsonValue),
            push_items: fc.oneof(fc.array(pushItem, { maxLength: 3 }), jsonValue),
            ack,
            release_lease: field(fc.boolean()),
          },
          { requiredKeys: ['query_id', 'partition_id'] },
        ),
        weight: 8,
      },
      { arbitrary: jsonValue, weight: 1 },
    )
    await fuzzRoute(broker, post('/streams/v1/cycle', body))
  })

  it('POST /streams/v1/state/get', async () => {
    const body = fc.oneof(
      {
        arbitrary: fc.record(
          {
            query_id: field(fc.oneof(fc.constant(stream.queryId), uuid)),
            partition_id: field(fc.oneof(fc.constant(stream.partitionId), uuid)),
            keys: fc.oneof(fc.array(field(fc.string({ maxLength: 8 })), { maxLength: 3 }), jsonValue),
            key_prefix: field(fc.string({ maxLength: 4 })),
            ripe_at_or_before: field(fc.oneof(fc.integer(), fc.double())),
          },
          { requiredKeys: ['query_id', 'partition_id'] },
        ),
        weight: 8,
      },
      { arbitrary: jsonValue, weight: 1 },
    )
    await fuzzRoute(broker, post('/streams/v1/state/get', body))
  })
})
