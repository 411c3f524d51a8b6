import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, type TestBroker } from '../../support/broker.js'
import { configure, numbers, pop, pushMany, sleep } from '../../support/queen.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'tx' })
})
afterAll(async () => {
  await broker.close()
})

async function count(queue: string): Promise<number> {
  const rows = await broker.db.query(
    'SELECT count(*)::int AS n FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = $1',
    [queue],
  )
  return rows.rows[0].n
}

describe('POST /api/v1/transaction', () => {
  it('acks one message and pushes another atomically, and a resend applies nothing twice', async () => {
    await pushMany(broker, 'tx-in', 'p', 1)
    const body = await pop(broker, 'tx-in')
    const message = body.messages[0]
    const request = {
      operations: [
        {
          type: 'ack',
          transactionId: message.transactionId,
          partitionId: message.partitionId,
          leaseId: message.leaseId,
        },
        {
          type: 'push',
          items: [{ queue: 'tx-out', payload: { from: message.transactionId }, transactionId: 'derived-1' }],
        },
      ],
      requiredLeases: [message.leaseId],
    }
    const response = await http(broker, 'POST', '/api/v1/transaction', request)
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({ success: true })
    expect(response.body.transactionId).toMatch(/^[0-9a-f-]{36}$/)
    expect(response.body.results).toEqual([
      {
        index: 0,
        type: 'ack',
        success: true,
        transactionId: message.transactionId,
        error: null,
        dlq: false,
        alreadyAcked: false,
      },
      {
        index: 1,
        type: 'push',
        success: true,
        transactionId: 'derived-1',
        messageId: expect.any(String),
        partitionId: expect.any(String),
        queueName: 'tx-out',
        duplicate: false,
      },
    ])
    expect(await count('tx-out')).toBe(1)

    // Resending (the answer was lost) succeeds without a second copy or a second settle. The lease is
    // gone by now, so the resend names none.
    const resend = await http(broker, 'POST', '/api/v1/transaction', {
      operations: request.operations.map((op) => ({ ...op, leaseId: undefined })),
    })
    expect(resend.body.success).toBe(true)
    expect(resend.body.results[0]).toMatchObject({ alreadyAcked: true })
    expect(resend.body.results[1]).toMatchObject({ duplicate: true, messageId: response.body.results[1].messageId })
    expect(await count('tx-out')).toBe(1)
  })

  it('rolls everything back when one operation fails, naming the operation', async () => {
    const response = await http(broker, 'POST', '/api/v1/transaction', {
      operations: [
        { type: 'push', queue: 'tx-rollback', payload: { n: 1 } },
        { type: 'ack', transactionId: 'missing', partitionId: '0190b3c6-4f1c-7a3e-9b2d-1c2d3e4f5a6b' },
      ],
    })
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({ success: false, error: 'ACK operation failed: Message not found' })
    expect(response.body.results).toHaveLength(1)
    expect(await count('tx-rollback')).toBe(0)
  })

  it('refuses the whole transaction when a required lease expired, and changes nothing', async () => {
    await configure(broker, 'tx-lease', { leaseTime: 1 })
    await pushMany(broker, 'tx-lease', 'p', 1)
    const body = await pop(broker, 'tx-lease')
    await sleep(1200)
    const response = await http(broker, 'POST', '/api/v1/transaction', {
      operations: [{ type: 'push', queue: 'tx-lease-out', payload: 1 }],
      requiredLeases: [body.leaseId],
    })
    expect(response.body).toMatchObject({ success: false, error: `Lease expired or not found: ${body.leaseId}` })
    expect(await count('tx-lease-out')).toBe(0)
    // The message is still there for the next consumer.
    expect(numbers(await pop(broker, 'tx-lease'))).toEqual([0])
  })

  it('accepts the flat push form with data instead of payload', async () => {
    const response = await http(broker, 'POST', '/api/v1/transaction', {
      operations: [{ type: 'push', queue: 'tx-flat', partition: 'x', data: { hello: 'world' } }],
    })
    expect(response.body.success).toBe(true)
    const popped = await pop(broker, 'tx-flat')
    expect(popped.messages[0]).toMatchObject({ data: { hello: 'world' }, partition: 'x' })
  })
})
