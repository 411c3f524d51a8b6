/** A stored batch wakes each of its partitions once (push-engine.ts), whatever its number of messages. */
import { describe, expect, it } from 'vitest'
import { forEachPartitionOnce } from '../../../src/broker/engine/push-engine.js'

function visits(entries: { queue: string; partition: string }[]): string[] {
  const seen: string[] = []
  forEachPartitionOnce(entries, (queue, partition) => seen.push(`${queue}/${partition}`))
  return seen
}

describe('forEachPartitionOnce', () => {
  it('visits every partition of a batch once, in the order it first appears', () => {
    const entries = Array.from({ length: 100 }, (_, index) => ({ queue: 'orders', partition: `p${index % 3}` }))
    expect(visits(entries)).toEqual(['orders/p0', 'orders/p1', 'orders/p2'])
  })

  it('keeps partitions of the same name in different queues apart', () => {
    const entries = [
      { queue: 'orders', partition: 'Default' },
      { queue: 'emails', partition: 'Default' },
      { queue: 'orders', partition: 'Default' },
      { queue: 'emails', partition: 'eu' },
    ]
    expect(visits(entries)).toEqual(['orders/Default', 'emails/Default', 'emails/eu'])
  })

  it('visits nothing for an empty batch', () => {
    expect(visits([])).toEqual([])
  })
})
