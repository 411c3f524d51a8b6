/**
 * Traffic for the dashboard's tests, through the public JavaScript client: pushes per partition, and pops
 * acked by a consumer group (or queue mode), so the pages show what real producers and consumers did.
 */
import { expect } from 'vitest'

/** Pushes `count` messages to each partition of `queue`. */
export async function pushTo(queen: any, queue: string, partitions: string[], count: number): Promise<void> {
  for (const partition of partitions) {
    const results = await queen
      .queue(queue)
      .partition(partition)
      .push(Array.from({ length: count }, (_, n) => ({ data: { n } })))
    expect(results.map((r: any) => r.status)).toEqual(Array(count).fill('queued'))
  }
}

/** Pops `count` messages of `queue` as `group` (queue mode when undefined) and acks each. */
export async function consume(queen: any, queue: string, group: string | undefined, count: number): Promise<void> {
  let acked = 0
  while (acked < count) {
    const builder = group === undefined ? queen.queue(queue) : queen.queue(queue).group(group)
    const messages = await builder
      .batch(count - acked)
      .wait(false)
      .pop()
    expect(messages.length, `a pop of ${queue} for ${group ?? 'queue mode'}`).toBeGreaterThan(0)
    for (const message of messages) await queen.ack(message, true, group === undefined ? {} : { group })
    acked += messages.length
  }
}
