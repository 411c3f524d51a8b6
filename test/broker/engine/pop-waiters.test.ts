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

/**
 * Pops on one key over a shared in-memory list of messages, each attempt taking a turn of the event loop:
 * records how many attempts overlap and which pop got which message.
 */
function sharedQueue(messages: number[]) {
  const state = { inFlight: 0, maxInFlight: 0, firstAttempts: 0, served: new Map<number, number>() }
  const waiterEnds: WaiterEnd[] = []
  const popNumber = (index: number) => ({
    deadline: Date.now() + 60_000,
    attempt: async (first: boolean): Promise<AttemptResult> => {
      state.inFlight += 1
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight)
      if (first) state.firstAttempts += 1
      await new Promise((resolve) => setImmediate(resolve))
      state.inFlight -= 1
      const message = messages.shift()
      if (message === undefined) return 'empty'
      state.served.set(index, message)
      return messages.length > 0 ? 'more' : 'delivered'
    },
    end: (reason: WaiterEnd) => waiterEnds.push(reason),
  })
  return { state, waiterEnds, popNumber }
}

/** Waits (a bounded number of event-loop turns) until `done` holds. */
async function until(done: () => boolean): Promise<void> {
  for (let turns = 0; turns < 10_000 && !done(); turns++) await settle()
}

describe('PopWaiters: first attempts of newcomers', () => {
  it('runs at most the bound of first attempts of one key at once; the others park in arrival order', async () => {
    const waiters = new PopWaiters(WAKE_ONLY_POP_WAIT, () => undefined)
    const messages: number[] = []
    const { state, waiterEnds, popNumber } = sharedQueue(messages)

    // 200 long-polls arrive at once on an empty queue, with a bound of 4
    for (let index = 0; index < 200; index++) waiters.enter(KEY, popNumber(index), 4)
    await until(() => waiters.parked === 200)

    // Four looked at the queue, never more at once; everyone is parked
    expect(state.firstAttempts).toBe(4)
    expect(state.maxInFlight).toBeLessThanOrEqual(4)
    expect(waiters.parked).toBe(200)

    // Messages arrive: each goes to the oldest pop still parked, one attempt at a time
    messages.push(...Array.from({ length: 150 }, (_, index) => 1000 + index))
    waiters.wake('', 'orders', null)
    await until(() => waiters.parked === 50)
    expect([...state.served.entries()].sort(([a], [b]) => a - b)).toEqual(
      Array.from({ length: 150 }, (_, index) => [index, 1000 + index]),
    )
    expect(state.maxInFlight).toBeLessThanOrEqual(4)
    expect(waiterEnds).toEqual([])
    waiters.shutdown()
    expect(waiterEnds).toHaveLength(50)
  })

  it('lets a handful of consumers draining a queue pop at once, each with its own attempt', async () => {
    const waiters = new PopWaiters(WAKE_ONLY_POP_WAIT, () => undefined)
    const messages = Array.from({ length: 100 }, (_, index) => index)
    const { state, popNumber } = sharedQueue(messages)

    // 8 consumers pop at once under a bound of 10: none waits for another's look
    for (let index = 0; index < 8; index++) waiters.enter(KEY, popNumber(index), 10)
    await until(() => state.served.size === 8)
    expect(state.maxInFlight).toBe(8)
    expect(state.firstAttempts).toBe(8)
    expect(waiters.parked).toBe(0)
  })

  it('serves messages already there to newcomers in arrival order, past the bound without waiting for a wake', async () => {
    const waiters = new PopWaiters(WAKE_ONLY_POP_WAIT, () => undefined)
    const messages = Array.from({ length: 30 }, (_, index) => 1000 + index)
    const { state, popNumber } = sharedQueue(messages)

    // 50 arrive at once while 30 messages wait; 4 may look at once, the rest park behind them
    for (let index = 0; index < 50; index++) waiters.enter(KEY, popNumber(index), 4)
    await until(() => state.served.size === 30 && waiters.parked === 20)

    // The first 30 to arrive got them in order (the four first attempts leave candidates, which runs the line)
    expect([...state.served.entries()].sort(([a], [b]) => a - b)).toEqual(
      Array.from({ length: 30 }, (_, index) => [index, 1000 + index]),
    )
    expect(state.maxInFlight).toBeLessThanOrEqual(4)
    expect(waiters.parked).toBe(20)
    waiters.shutdown()
  })

  it('keeps a wake that came during a first attempt: the line is re-checked once that attempt finds nothing', async () => {
    const waiters = new PopWaiters(WAKE_ONLY_POP_WAIT, () => undefined)
    let finishFirst: (result: AttemptResult) => void = () => undefined
    const calls: boolean[] = []
    waiters.enter(
      KEY,
      {
        deadline: Date.now() + 60_000,
        attempt: (first) => {
          calls.push(first)
          return first ? new Promise<AttemptResult>((resolve) => (finishFirst = resolve)) : Promise.resolve('delivered')
        },
        end: () => undefined,
      },
      4,
    )
    // Not parked while it looks; the wake's round stops at it instead of passing it by
    expect(waiters.parked).toBe(0)
    waiters.wake('', 'orders', null)
    await settle()
    expect(calls).toEqual([true])

    // Its look (begun before the push) found nothing: it parks, and the wake's round runs now
    finishFirst('empty')
    await until(() => calls.length === 2)
    expect(calls).toEqual([true, false])
    expect(waiters.parked).toBe(0)
  })

  it('answers a pop cancelled, timed out or shut down during its first attempt once that attempt comes back', async () => {
    const waiters = new PopWaiters(WAKE_ONLY_POP_WAIT, () => undefined)
    const looking = (deadline: number) => {
      const ends: WaiterEnd[] = []
      let finish: (result: AttemptResult) => void = () => undefined
      const cancel = waiters.enter(
        { ...KEY, group: `g${deadline}` },
        {
          deadline,
          attempt: () => new Promise<AttemptResult>((resolve) => (finish = resolve)),
          end: (reason) => ends.push(reason),
        },
        4,
      )
      return { ends, cancel, finish: (result: AttemptResult) => finish(result) }
    }
    const gone = looking(Date.now() + 60_000)
    const late = looking(Date.now() + 20)
    const found = looking(Date.now() + 60_000)
    const closing = looking(Date.now() + 60_000)

    // The client disconnects and the deadline passes while they look: nothing is answered yet
    gone.cancel()
    found.cancel()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect([gone.ends, late.ends, found.ends]).toEqual([[], [], []])

    // Their attempts come back: the empty ones end as they were told, the one with messages answered itself
    gone.finish('empty')
    late.finish('empty')
    found.finish('delivered')
    await settle()
    expect([gone.ends, late.ends, found.ends]).toEqual([['cancelled'], ['timeout'], []])

    // SIGTERM answers the parked pops at once, and one still looking as soon as its look comes back
    waiters.shutdown()
    expect(closing.ends).toEqual([])
    closing.finish('empty')
    await settle()
    expect(closing.ends).toEqual(['shutdown'])
    expect(waiters.parked).toBe(0)
  })
})
