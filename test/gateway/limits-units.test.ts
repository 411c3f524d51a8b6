/**
 * The pure parts of quotas and rate limits (docs/gateway.md, "Quotas and rate limits"): bucket arithmetic, the
 * reading of `proxy quota set` values, what a request adds, and the per-day window.
 */
import { describe, expect, it } from 'vitest'
import { bucketCapacity, chunkSize, refillMs, wholeSeconds } from '../../src/gateway/limits/bucket-math.js'
import { LimitValueError, parseLimitValue } from '../../src/gateway/limits/limit-settings.js'
import { mayAdd, requestContents } from '../../src/gateway/limits/push-contents.js'
import { msUntilUtcMidnight, utcDay } from '../../src/gateway/limits/push-counters.js'

const body = (value: unknown) => Buffer.from(JSON.stringify(value))

describe('bucket arithmetic', () => {
  it('holds a burst of one second by default, never less than one token', () => {
    expect(bucketCapacity(40, 1000)).toBe(40)
    expect(bucketCapacity(40, 250)).toBe(10)
    expect(bucketCapacity(0.5, 1000)).toBe(1)
  })

  it("takes a tenth of a second's worth per trip, at least what the request lacks, at most the capacity", () => {
    expect(chunkSize(1000, 1000, 1)).toBe(100)
    expect(chunkSize(5, 5, 1)).toBe(1)
    expect(chunkSize(100, 100, 30)).toBe(30)
    expect(chunkSize(100, 20, 50)).toBe(20)
  })

  it('waits for the missing tokens at the rate, and rounds Retry-After up to whole seconds, at least 1', () => {
    expect(refillMs(10, 20)).toBe(500)
    expect(refillMs(0, 20)).toBe(0)
    expect(wholeSeconds(1)).toBe(1)
    expect(wholeSeconds(1000)).toBe(1)
    expect(wholeSeconds(1001)).toBe(2)
    expect(wholeSeconds(0)).toBe(1)
  })
})

describe('limit values', () => {
  it('reads counts, byte sizes, rates and "unlimited"', () => {
    expect(parseLimitValue('queues', '10')).toBe(10)
    expect(parseLimitValue('queues', '0')).toBe(0)
    expect(parseLimitValue('payloadBytesPerDay', '2GiB')).toBe(2 * 1024 ** 3)
    expect(parseLimitValue('storedBytes', '500MB')).toBe(500_000_000)
    expect(parseLimitValue('storedBytes', '1.5kb')).toBe(1500)
    expect(parseLimitValue('requestsPerSecond', '12.5')).toBe(12.5)
    expect(parseLimitValue('messagesPerSecond', 'unlimited')).toBeNull()
    expect(parseLimitValue('queues', 'None')).toBeNull()
  })

  it('refuses what it cannot read, naming the flag', () => {
    expect(() => parseLimitValue('queues', '10MB')).toThrow('--queues: "10MB" is not a whole number')
    expect(() => parseLimitValue('queues', '-1')).toThrow(LimitValueError)
    expect(() => parseLimitValue('storedBytes', '1.5b')).toThrow('--stored-bytes')
    expect(() => parseLimitValue('requestsPerSecond', '0')).toThrow('--requests-per-second')
    expect(() => parseLimitValue('messagesPerSecond', 'fast')).toThrow('--messages-per-second')
    expect(() => parseLimitValue('messagesPerDay', '1e99')).toThrow('--messages-per-day')
  })
})

describe('what a request adds', () => {
  it('counts a push: messages, payload bytes as compact JSON, distinct queues and partitions', () => {
    const contents = requestContents(
      '/api/v1/push',
      body({
        items: [
          { queue: 'a', payload: { n: 1 } },
          { queue: 'a', partition: 'p', payload: 'xy' },
          { queue: 'b' },
          { queue: 'a', payload: { n: 2 } },
        ],
      }),
    )
    expect(contents.messages).toBe(4)
    // {"n":1} 7, "xy" 4, null 4, {"n":2} 7
    expect(contents.payloadBytes).toBe(22)
    expect(contents.targets).toEqual([
      { queue: 'a', partition: 'Default' },
      { queue: 'a', partition: 'p' },
      { queue: 'b', partition: 'Default' },
    ])
  })

  it("counts a transaction's push operations in both forms, and nothing of its acks", () => {
    const contents = requestContents(
      '/api/v1/transaction',
      body({
        operations: [
          {
            type: 'push',
            items: [
              { queue: 'q', payload: 1 },
              { queue: 'q', payload: 2 },
            ],
          },
          { type: 'push', queue: 'r', data: { d: 1 } },
          { type: 'ack', transactionId: 't', partitionId: 'p' },
        ],
      }),
    )
    expect(contents.messages).toBe(3)
    expect(contents.payloadBytes).toBe(1 + 1 + 7)
    expect(contents.targets.map((t) => t.queue)).toEqual(['q', 'r'])
  })

  it("names a configured queue's Default partition, and adds nothing for a body the brokers would refuse", () => {
    expect(requestContents('/api/v1/configure', body({ queue: 'c' })).targets).toEqual([
      { queue: 'c', partition: 'Default' },
    ])
    expect(requestContents('/api/v1/push', Buffer.from('{not json'))).toMatchObject({ messages: 0, targets: [] })
    expect(requestContents('/api/v1/push', body({ items: [{ payload: 1 }] }))).toMatchObject({ messages: 0 })
    expect(requestContents('/api/v1/push', undefined).messages).toBe(0)
    expect(mayAdd('POST', '/api/v1/push')).toBe(true)
    expect(mayAdd('GET', '/api/v1/resources/queues')).toBe(false)
  })
})

describe('the per-day window', () => {
  it('is the UTC day, and resets at the next UTC midnight', () => {
    const at = Date.parse('2026-03-01T23:59:30.000Z')
    expect(utcDay(at)).toBe('2026-03-01')
    expect(msUntilUtcMidnight(at)).toBe(30_000)
    expect(msUntilUtcMidnight(Date.parse('2026-03-02T00:00:00.000Z'))).toBe(86_400_000)
  })
})
