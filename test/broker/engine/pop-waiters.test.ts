import { describe, expect, it } from 'vitest'
import { PopWaiters, type AttemptResult, type WaiterEnd } from '../../../src/broker/engine/pop-waiters.js'
import { WAKE_ONLY_POP_WAIT } from '../../support/broker.js'

const KEY = { tenant: '', queue: 'orders', partition: null, group: '__QUEUE_MODE__' }

/** A parked pop whose attempts answer what the test scripts, one per wake. */
function scriptedPop(results: (AttemptResult | Error)[]) {
  const ends: WaiterEnd[] = []
  let attempts = 0
  return {
    ends,
    attempts: () => attempts,
    pop: {
      deadline: Date.now() + 60_000,
      attempt: () => {
        const next = results[attempts++] ?? 'empty'
        return next instanceof Error ? Promise.reject(next) : Promise.resolve(next)
      },
      end: (reason: WaiterEnd) => ends.push(reason),
    },
  }
}

/** Lets a wake's re-check round run to its end. */
const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('PopWaiters: newcomers queue behind parked pops', () => {
  it('queues a newcomer only behind waiters whose last look found nothing', async () => {
    const errors: unknown[] = []
    const waiters = new PopWaiters(WAKE_ONLY_POP_WAIT, (error) => errors.push(error))
    expect(waiters.queueBehindWaiters(KEY)).toBe(false)

    const first = scriptedPop(['failed'])
    const second = scriptedPop([new Error('connection refused'), 'empty'])
    waiters.park(KEY, first.pop)
    waiters.park(KEY, second.pop)
    expect(waiters.queueBehindWaiters(KEY)).toBe(true)
    expect(waiters.queueBehindWaiters({ ...KEY, group: 'other' })).toBe(false)

    // The oldest waiter is answered with a failure: newcomers must get their own answer, not wait.
    waiters.wake('', 'orders', null)
    expect(waiters.queueBehindWaiters(KEY)).toBe(false)
    await settle()
    expect(first.attempts()).toBe(1)
    expect(waiters.parked).toBe(1)
    expect(waiters.queueBehindWaiters(KEY)).toBe(false)

    // An attempt that throws leaves its waiter parked, and still counts as a failed look.
    waiters.wake('', 'orders', null)
    await settle()
    expect(errors).toHaveLength(1)
    expect(waiters.parked).toBe(1)
    expect(waiters.queueBehindWaiters(KEY)).toBe(false)

    // A look that finds nothing makes queueing behind right again.
    waiters.wake('', 'orders', null)
    await settle()
    expect(second.attempts()).toBe(2)
    expect(waiters.queueBehindWaiters(KEY)).toBe(true)

    waiters.shutdown()
    expect(second.ends).toEqual(['shutdown'])
    expect(first.ends).toEqual([])
    expect(waiters.queueBehindWaiters(KEY)).toBe(false)
  })
})

describe('PopWaiters: wake-ups', () => {
  it('reports each wake or timer that re-checked parked pops, by source, and nothing for a wake that found none', async () => {
    const sources: string[] = []
    // Long enough that the first part runs before any timer, short enough to watch two timer re-checks.
    const fastTimer = { initialIntervalMs: 200, backoffThreshold: 3, backoffMultiplier: 2, maxIntervalMs: 200 }
    const waiters = new PopWaiters(
      fastTimer,
      () => undefined,
      (source) => sources.push(source),
    )
    waiters.wake('', 'orders', null)
    expect(sources).toEqual([])

    const parked = scriptedPop(['empty', 'empty', 'delivered'])
    waiters.park(KEY, parked.pop)
    waiters.wake('', 'other-queue', null)
    waiters.wake('', 'orders', null, 'pg_notify')
    await settle()
    expect(sources).toEqual(['pg_notify'])
    expect(parked.attempts()).toBe(1)

    // Nothing wakes the key now: its backoff timer re-checks it, and that answers the pop.
    for (let tries = 0; tries < 300 && parked.attempts() < 3; tries++) await new Promise((r) => setTimeout(r, 10))
    expect(parked.attempts()).toBe(3)
    expect(sources).toEqual(['pg_notify', 'timer', 'timer'])
    expect(waiters.parked).toBe(0)
  })

  it('tells whether a queue was woken after a mark, per tenant and queue, whether or not a pop was parked', () => {
    const waiters = new PopWaiters(WAKE_ONLY_POP_WAIT, () => undefined)
    const mark = waiters.wakeMark
    expect(waiters.wokenSince('', 'orders', mark)).toBe(false)
    waiters.wake('', 'invoices', 'p1')
    waiters.wake('tenant-b', 'orders', null)
    expect(waiters.wokenSince('', 'orders', mark)).toBe(false)
    waiters.wake('', 'orders', 'p2')
    expect(waiters.wokenSince('', 'orders', mark)).toBe(true)
    expect(waiters.wokenSince('', 'orders', waiters.wakeMark)).toBe(false)
  })

  it('answers yes for a mark older than what it still remembers once many queues were woken', () => {
    const waiters = new PopWaiters(WAKE_ONLY_POP_WAIT, () => undefined)
    const old = waiters.wakeMark
    for (let index = 0; index < 10_001; index++) waiters.wake('', `queue-${index}`, null)
    // "orders" was never woken, but the memory of the wakes after `old` is gone: the answer must be safe.
    expect(waiters.wokenSince('', 'orders', old)).toBe(true)
    const recent = waiters.wakeMark
    expect(waiters.wokenSince('', 'orders', recent)).toBe(false)
  })
})
