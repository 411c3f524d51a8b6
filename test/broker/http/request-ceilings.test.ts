/**
 * What one request may create (issue 40, docs/security.md): a push, a transaction or a stream cycle may name
 * at most QUEEN_MAX_QUEUES_PER_REQUEST queues and QUEEN_MAX_PARTITIONS_PER_REQUEST partitions; past either
 * it is refused with 400 naming the variable, and nothing is created.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'

const items = (count: number, item: (n: number) => { queue: string; partition?: string }) =>
  Array.from({ length: count }, (_, n) => ({ ...item(n), payload: { n } }))

async function queuesNamed(broker: TestBroker, prefix: string): Promise<number> {
  const { rows } = await broker.db.query('SELECT count(*)::int AS n FROM queen.queues WHERE name LIKE $1', [
    `${prefix}%`,
  ])
  return rows[0].n
}

describe('the defaults: 100 queues and 1,000 partitions per request', () => {
  let broker: TestBroker
  beforeAll(async () => {
    broker = await startTestBroker({ label: 'ceilings-default' })
  })
  afterAll(async () => {
    await broker.close()
  })

  it('refuses a push naming 101 queues, creating none; 100 are served', async () => {
    const refused = await http(broker, 'POST', '/api/v1/push', { items: items(101, (n) => ({ queue: `many-${n}` })) })
    expect(refused.status).toBe(400)
    expect(refused.body).toEqual({
      error: 'items: names 101 queues; at most 100 per request (QUEEN_MAX_QUEUES_PER_REQUEST)',
      code: 'QUEEN_ERR_VALIDATION',
    })
    expect(await queuesNamed(broker, 'many-')).toBe(0)
    const served = await http(broker, 'POST', '/api/v1/push', { items: items(100, (n) => ({ queue: `many-${n}` })) })
    expect(served.status).toBe(200)
    expect(await queuesNamed(broker, 'many-')).toBe(100)
  })

  it('refuses a push naming 1,001 partitions; repeated names count once', async () => {
    const refused = await http(broker, 'POST', '/api/v1/push', {
      items: items(1001, (n) => ({ queue: 'wide', partition: `p${n}` })),
    })
    expect(refused.status).toBe(400)
    expect(refused.body.error).toBe(
      'items: names 1001 partitions; at most 1000 per request (QUEEN_MAX_PARTITIONS_PER_REQUEST)',
    )
    expect(await queuesNamed(broker, 'wide')).toBe(0)
    const repeated = await http(broker, 'POST', '/api/v1/push', {
      items: items(3000, (n) => ({ queue: 'wide', partition: `p${n % 1000}` })),
    })
    expect(repeated.status).toBe(200)
  })
})

describe('ceilings set by the operator', () => {
  let broker: TestBroker
  beforeAll(async () => {
    broker = await startTestBroker({
      label: 'ceilings-set',
      env: { QUEEN_MAX_QUEUES_PER_REQUEST: '2', QUEEN_MAX_PARTITIONS_PER_REQUEST: '3' },
    })
  })
  afterAll(async () => {
    await broker.close()
  })

  it('hold for pushes', async () => {
    const three = await http(broker, 'POST', '/api/v1/push', { items: items(3, (n) => ({ queue: `set-${n}` })) })
    expect(three.status).toBe(400)
    expect(three.body.error).toBe('items: names 3 queues; at most 2 per request (QUEEN_MAX_QUEUES_PER_REQUEST)')
    const partitions = await http(broker, 'POST', '/api/v1/push', {
      items: items(4, (n) => ({ queue: `set-${n % 2}`, partition: `p${n}` })),
    })
    expect(partitions.body.error).toBe(
      'items: names 4 partitions; at most 3 per request (QUEEN_MAX_PARTITIONS_PER_REQUEST)',
    )
    expect(await queuesNamed(broker, 'set-')).toBe(0)
  })

  it('hold for the pushes of a transaction, counted over all its operations', async () => {
    const answer = await http(broker, 'POST', '/api/v1/transaction', {
      operations: [
        { type: 'push', items: items(2, (n) => ({ queue: `tx-${n}` })) },
        { type: 'push', queue: 'tx-2', payload: { n: 3 } },
      ],
    })
    expect(answer.status).toBe(400)
    expect(answer.body.error).toBe('operations: names 3 queues; at most 2 per request (QUEEN_MAX_QUEUES_PER_REQUEST)')
    expect(await queuesNamed(broker, 'tx-')).toBe(0)
  })
})
