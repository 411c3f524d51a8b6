// The eviction cycle (docs/semantics.md, "Retention, eviction and cleanup", docs/reliability.md, "Hazards"):
// maxWaitTimeSeconds, live leases, the DLQ with payload copies, known groups. Messages are aged with UPDATE instead of
// sleeping.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { ack, ackBatch, configure, numbers, pop, pushMany } from '../../support/queen.js'
import {
  ageMessages,
  cursors,
  history,
  housekeepingFor,
  storedNumbers,
  type Maintenance,
} from './housekeeping-support.js'

let broker: TestBroker
let jobs: Maintenance
beforeAll(async () => {
  broker = await startTestBroker({ label: 'eviction' })
  jobs = housekeepingFor(broker)
})
afterAll(async () => {
  await jobs.close()
  await broker.close()
})

async function runEviction() {
  jobs.deletions.splice(0)
  await jobs.eviction.runOnce()
  expect(jobs.runs.at(-1)).toMatchObject({ job: 'eviction', outcome: 'ran' })
  const deletions = jobs.deletions.splice(0)
  return {
    deleted: deletions.reduce((sum, deletion) => sum + deletion.deleted, 0),
    deadLettered: deletions.reduce((sum, deletion) => sum + deletion.deadLettered, 0),
  }
}

async function dlq(queue: string) {
  const response = await http(broker, 'GET', `/api/v1/dlq?queue=${queue}&limit=100`)
  expect(response.status).toBe(200)
  return (response.body.messages as any[])
    .map((message) => ({ n: message.data?.n, group: message.consumerGroup, error: message.errorMessage }))
    .sort((x, y) => x.n - y.n || String(x.group).localeCompare(String(y.group)))
}

async function endLeases(queue: string) {
  await broker.db.query(
    `UPDATE queen.consumers c SET lease_expires_at = now() - interval '1 second'
     FROM queen.queues q WHERE q.id = c.queue_id AND q.name = $1 AND c.lease_id IS NOT NULL`,
    [queue],
  )
}

const EVICTED = 'evicted after maxWaitTimeSeconds'

describe('eviction', () => {
  it('never deletes a leased message (its ack succeeds) and evicts it after the lease if still unsettled', async () => {
    const queue = 'ev-lease'
    await configure(broker, queue, { maxWaitTimeSeconds: 5, deadLetterQueue: true })
    await pushMany(broker, queue, 'p', 6)
    const leased = await pop(broker, queue, { batch: 3 })
    expect(numbers(leased)).toEqual([0, 1, 2])
    await ageMessages(broker, queue, 60)

    expect(await runEviction()).toEqual({ deleted: 3, deadLettered: 3 })
    expect(await storedNumbers(broker, queue, 'p')).toEqual([0, 1, 2])
    const acked = await ack(broker, leased.messages[0])
    expect(acked).toMatchObject({ success: true })

    // Still leased: nothing more goes. Then the lease ends with 1 and 2 unsettled: they go; 0 was settled.
    expect(await runEviction()).toEqual({ deleted: 0, deadLettered: 0 })
    await endLeases(queue)
    expect(await runEviction()).toEqual({ deleted: 2, deadLettered: 2 })
    expect(await storedNumbers(broker, queue, 'p')).toEqual([0])
    expect(await cursors(broker, queue)).toEqual([
      { partition: 'p', group: '__QUEUE_MODE__', cursor: 6, head: 6, lease: true },
    ])
    expect(await history(broker, queue)).toEqual({ eviction: 5 })

    // Evicted messages are in the DLQ with their payload.
    expect(await dlq(queue)).toEqual([1, 2, 3, 4, 5].map((n) => ({ n, group: '__QUEUE_MODE__', error: EVICTED })))
    expect((await pop(broker, queue, { batch: 10 })).messages).toEqual([])
  })

  it('without deadLetterQueue, and with no group at all, simply deletes old messages', async () => {
    const queue = 'ev-plain'
    await configure(broker, queue, { maxWaitTimeSeconds: 5 })
    await pushMany(broker, queue, 'p', 4)
    await ageMessages(broker, queue, 60)
    await pushMany(broker, queue, 'p', 2, 4)
    expect(await runEviction()).toEqual({ deleted: 4, deadLettered: 0 })
    expect(await storedNumbers(broker, queue, 'p')).toEqual([4, 5])
    expect(await dlq(queue)).toEqual([])
    expect(numbers(await pop(broker, queue, { batch: 10 }))).toEqual([4, 5])
  })

  it('dead-letters for every known group that had not settled, and leaves what every group settled', async () => {
    const queue = 'ev-groups'
    await configure(broker, queue, { maxWaitTimeSeconds: 5, deadLetterQueue: true })
    // C subscribes from the beginning before p exists, and never reads it.
    expect((await pop(broker, queue, { consumerGroup: 'C', subscriptionMode: 'all' })).messages).toEqual([])
    await pushMany(broker, queue, 'p', 4)
    await ackBatch(broker, (await pop(broker, queue, { consumerGroup: 'A', batch: 10 })).messages)
    await ackBatch(broker, (await pop(broker, queue, { consumerGroup: 'B', batch: 2 })).messages)
    await pushMany(broker, queue, 'q', 2)
    await ackBatch(broker, (await pop(broker, queue, { consumerGroup: 'A', batch: 10 }, 'q')).messages)
    await ackBatch(broker, (await pop(broker, queue, { consumerGroup: 'B', batch: 10 }, 'q')).messages)
    await ackBatch(broker, (await pop(broker, queue, { consumerGroup: 'C', batch: 10 }, 'q')).messages)
    await ageMessages(broker, queue, 60)

    expect(await runEviction()).toEqual({ deleted: 4, deadLettered: 6 })
    expect(await storedNumbers(broker, queue, 'p')).toEqual([])
    // q was settled by every group: not eviction's business (completed retention's, if configured).
    expect(await storedNumbers(broker, queue, 'q')).toEqual([0, 1])
    expect(await dlq(queue)).toEqual([
      { n: 0, group: 'C', error: EVICTED },
      { n: 1, group: 'C', error: EVICTED },
      { n: 2, group: 'B', error: EVICTED },
      { n: 2, group: 'C', error: EVICTED },
      { n: 3, group: 'B', error: EVICTED },
      { n: 3, group: 'C', error: EVICTED },
    ])
    for (const group of ['A', 'B', 'C']) {
      expect((await pop(broker, queue, { consumerGroup: group, batch: 10 })).messages).toEqual([])
    }
  })

  it('does not touch queues without maxWaitTimeSeconds, and keeps young messages', async () => {
    await pushMany(broker, 'ev-off', 'p', 2)
    await ageMessages(broker, 'ev-off', 86_400)
    await configure(broker, 'ev-young', { maxWaitTimeSeconds: 3600 })
    await pushMany(broker, 'ev-young', 'p', 2)
    await ageMessages(broker, 'ev-young', 60)
    expect(await runEviction()).toEqual({ deleted: 0, deadLettered: 0 })
    expect(await storedNumbers(broker, 'ev-off', 'p')).toEqual([0, 1])
    expect(await storedNumbers(broker, 'ev-young', 'p')).toEqual([0, 1])
  })
})
