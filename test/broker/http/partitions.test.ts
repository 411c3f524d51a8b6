/**
 * GET /api/v1/resources/partitions (JS `Admin.getPartitions`): the partition listing, filtered by queue and
 * paged, with each partition's queue, tags, times and live counters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { pop, push } from '../../support/queen.js'

let broker: TestBroker
/** Partition ids by `<queue>/<partition>`. */
const ids: Record<string, string> = {}

async function configureTagged(queue: string, namespace: string, task: string): Promise<void> {
  const response = await http(broker, 'POST', '/api/v1/configure', { queue, namespace, task, options: {} })
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  ids[`${queue}/Default`] = response.body.partitionId
}

beforeAll(async () => {
  broker = await startTestBroker({ label: 'partitions' })
  // Given parts-a with two messages on x and one on y, parts-b with one on z, and one of x's messages leased
  await configureTagged('parts-a', 'ns-a', 'task-a')
  await configureTagged('parts-b', 'ns-b', 'task-b')
  const pushed = await push(broker, [
    { queue: 'parts-a', partition: 'x', payload: { n: 0 } },
    { queue: 'parts-a', partition: 'x', payload: { n: 1 } },
    { queue: 'parts-a', partition: 'y', payload: { n: 2 } },
    { queue: 'parts-b', partition: 'z', payload: { n: 3 } },
  ])
  ids['parts-a/x'] = pushed[0].partition_id
  ids['parts-a/y'] = pushed[2].partition_id
  ids['parts-b/z'] = pushed[3].partition_id
  expect((await pop(broker, 'parts-a', { batch: 1 }, 'x')).messages).toHaveLength(1)
})
afterAll(async () => {
  await broker.close()
})

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

/** The listing's `<queue>/<name>` keys, in answer order. */
function keys(body: { partitions: { queue: string; name: string }[] }): string[] {
  return body.partitions.map((p) => `${p.queue}/${p.name}`)
}

describe('GET /api/v1/resources/partitions', () => {
  it('lists the partitions of one queue with their queue, tags, times and counters', async () => {
    const response = await http(broker, 'GET', '/api/v1/resources/partitions?queue=parts-a')
    expect(response.status).toBe(200)
    expect(Object.keys(response.body)).toEqual(['partitions'])
    const common = {
      queue: 'parts-a',
      namespace: 'ns-a',
      task: 'task-a',
      createdAt: expect.stringMatching(ISO),
      lastActivityAt: expect.stringMatching(ISO),
    }
    expect(response.body.partitions).toEqual([
      { id: ids['parts-a/Default'], name: 'Default', ...common, messages: { total: 0, pending: 0, processing: 0 } },
      { id: ids['parts-a/x'], name: 'x', ...common, messages: { total: 2, pending: 1, processing: 1 } },
      { id: ids['parts-a/y'], name: 'y', ...common, messages: { total: 1, pending: 1, processing: 0 } },
    ])
  })

  it('lists every queue of the tenant without a queue filter, by queue then partition name', async () => {
    const response = await http(broker, 'GET', '/api/v1/resources/partitions')
    expect(response.status).toBe(200)
    expect(keys(response.body)).toEqual(['parts-a/Default', 'parts-a/x', 'parts-a/y', 'parts-b/Default', 'parts-b/z'])
    expect(response.body.partitions[4]).toMatchObject({
      id: ids['parts-b/z'],
      namespace: 'ns-b',
      task: 'task-b',
      messages: { total: 1, pending: 1, processing: 0 },
    })
  })

  it('pages with limit and offset', async () => {
    const page = await http(broker, 'GET', '/api/v1/resources/partitions?limit=2&offset=1')
    expect(page.status).toBe(200)
    expect(keys(page.body)).toEqual(['parts-a/x', 'parts-a/y'])
    const last = await http(broker, 'GET', '/api/v1/resources/partitions?queue=parts-b&limit=1&offset=1')
    expect(keys(last.body)).toEqual(['parts-b/z'])
    const past = await http(broker, 'GET', '/api/v1/resources/partitions?offset=5')
    expect(past.body).toEqual({ partitions: [] })
  })

  it('answers an empty listing for an unknown queue', async () => {
    const response = await http(broker, 'GET', '/api/v1/resources/partitions?queue=never-created')
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ partitions: [] })
  })

  it('answers 400 naming the parameter for a bad queue name, limit or offset', async () => {
    for (const [query, field] of [
      ['queue=.hidden', 'queue'],
      ['limit=0', 'limit'],
      ['limit=10001', 'limit'],
      ['limit=many', 'limit'],
      ['offset=-1', 'offset'],
    ]) {
      const response = await http(broker, 'GET', `/api/v1/resources/partitions?${query}`)
      expect(response.status, query).toBe(400)
      expect(response.body.error, query).toMatch(new RegExp(`^${field}: `))
    }
  })
})
