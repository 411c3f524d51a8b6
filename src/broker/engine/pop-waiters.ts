/**
 * Parked long-poll pops (docs/semantics.md, "Long-poll"). Waiters with the same (tenant, queue, partition filter,
 * group) share one re-check: on a wake, the oldest waiter tries its pop; if it got messages the next one
 * tries, and the first empty attempt ends the round, so thousands of waiters cost one query per key per
 * wake. Wakes come from local pushes, lease releases, hints from other replicas and a backoff timer
 * (100 ms for the first 3 empty checks, then doubling up to 1 s), because messages also become
 * deliverable by time (delays, window buffers, retry times, lease expiry). No database connection is
 * held while parked.
 *
 * A long-poll enters the line of its key ({@link PopWaiters.enter}) with a first attempt of its own, but
 * only a bounded number of those run at once per key: the others park at the end of the line at once and
 * have the key re-checked, so a burst of thousands of long-polls on one queue costs the bound of
 * connections plus one round, not one pool checkout each (issue 22: they overflowed the pool's wait queue
 * and were answered "database unavailable"). A first attempt in flight keeps its arrival place in the line:
 * a round stops there rather than serve those behind it first, and runs again when the attempt ends.
 */
import type { WakeSource } from '../observe/wake-sources.js'

/** Waiter keys whose queue starts with this are namespace/task pops: any push of the tenant re-checks them. */
export const NAMESPACE_WAIT_PREFIX = '\u0001ns:'

/** Identifies the pops that share a re-check. */
export interface WaitKey {
  tenant: string
  queue: string
  /** A partition name, or null for wildcard pops. */
  partition: string | null
  group: string
}

/**
 * Result of one attempt of a parked pop: 'delivered' (answered; the next waiter would likely find
 * nothing), 'more' (answered, and candidates were left for the next waiter), 'failed' (answered without
 * messages because the pop failed, e.g. the database is unreachable), or 'empty'.
 */
export type AttemptResult = 'delivered' | 'more' | 'failed' | 'empty'

/** How a waiter ended without messages. */
export type WaiterEnd = 'timeout' | 'shutdown' | 'cancelled'

/** One parked pop. */
export interface ParkedPop {
  /**
   * Tries the pop; on messages it answers the client itself and returns 'delivered'. `first` is set for the
   * pop's own first attempt on entering the line (see {@link PopWaiters.enter}), before it is parked.
   */
  attempt: (first: boolean) => Promise<AttemptResult>
  /** Answers the client without messages. */
  end: (reason: WaiterEnd) => void
  /** Absolute deadline (epoch ms). */
  deadline: number
}

/** Backoff of the periodic re-check. */
export interface WaitBackoff {
  initialIntervalMs: number
  backoffThreshold: number
  backoffMultiplier: number
  maxIntervalMs: number
}

interface Waiter extends ParkedPop {
  /** In a round's attempt. */
  busy: boolean
  /** Running its first attempt: holds its place in the line, is not parked (nor counted) yet. */
  pending: boolean
  finished: boolean
  /** How it ends once its attempt in flight comes back empty (deadline, disconnect or shutdown meanwhile). */
  endAfter: WaiterEnd | undefined
  timer: NodeJS.Timeout | undefined
}

interface KeyState {
  key: WaitKey
  /** The line, oldest first: parked waiters and pending first attempts. */
  waiters: Waiter[]
  running: boolean
  dirty: boolean
  /** First attempts in flight (the pending waiters of the line). */
  firstAttempts: number
  /** A round stopped at a pending first attempt: run one when that attempt ends. */
  blocked: boolean
  emptyChecks: number
  /** The last attempt failed (or threw): newcomers then try for themselves rather than queue behind. */
  lastFailed: boolean
  timer: NodeJS.Timeout | undefined
}

/** What an ack needs to know of past wakes: {@link PopWaiters.wakeMark} and {@link PopWaiters.wokenSince}. */
export type WakeMarks = Pick<PopWaiters, 'wakeMark' | 'wokenSince'>

/** Queues whose last wake is remembered for {@link PopWaiters.wokenSince}; past it the memory starts over. */
const REMEMBERED_QUEUES = 10_000

/** The registry of parked pops of this broker. */
export class PopWaiters {
  private readonly states = new Map<string, KeyState>()
  private count = 0
  private closed = false
  /** Wakes so far (every call of wake(), matched or not): the marks of {@link wokenSince}. */
  private wakes = 0
  /** The mark of the last wake per (tenant, queue). */
  private readonly lastWakeOf = new Map<string, number>()
  /** Marks below this were forgotten when the memory above was cleared. */
  private forgottenBefore = 0

  private readonly backoff: WaitBackoff
  private readonly onError: (error: unknown) => void
  private readonly onWakeup: (source: WakeSource) => void

  /** `onWakeup` hears of every wake or timer that re-checked parked pops (queen_pop_wakeups_total). */
  constructor(
    backoff: WaitBackoff,
    onError: (error: unknown) => void,
    onWakeup: (source: WakeSource) => void = () => undefined,
  ) {
    this.backoff = backoff
    this.onError = onError
    this.onWakeup = onWakeup
  }

  /** A mark to pass to {@link wokenSince} later. */
  get wakeMark(): number {
    return this.wakes
  }

  /**
   * Whether a queue was woken after `mark` was taken (conservatively true once that is forgotten). An ack
   * that released a lease with nothing left behind it skips its wake unless a push came in meanwhile: that
   * push's own wake may have run while the lease still hid the partition from the re-check.
   */
  wokenSince(tenant: string, queue: string, mark: number): boolean {
    if (mark < this.forgottenBefore) return true
    return (this.lastWakeOf.get(queueId(tenant, queue)) ?? 0) > mark
  }

  /** Parked pops right now. */
  get parked(): number {
    return this.count
  }

  /**
   * Parks a pop until an attempt delivers, its deadline passes, the broker shuts down, or the returned
   * cancel function is called (client disconnect).
   */
  park(key: WaitKey, pop: ParkedPop): () => void {
    if (this.closed) {
      pop.end('shutdown')
      return () => undefined
    }
    const state = this.stateOf(key)
    const waiter = this.line(state, pop, false)
    this.settle(waiter, state)
    return () => this.cancel(waiter, state)
  }

  /**
   * Lines up a new long-poll pop. It parks behind the waiters of its key without a look of its own when
   * {@link queueBehindWaiters} says so; otherwise it runs a first attempt, unless `maxFirstAttempts` of its
   * key are already running: it then parks at the end of the line at once (holding no connection) and has
   * the key re-checked now (or, when a first attempt heads the line, as soon as that one leaves candidates),
   * so messages already there reach the line, oldest first, without waiting for the timer. A first attempt
   * keeps the pop's place in the line; if it finds nothing the pop is parked there.
   * Returns the cancel function (client disconnect); a pop cancelled, timed out or shut down during its
   * first attempt is answered when that attempt comes back empty, as it would be if it found messages.
   */
  enter(key: WaitKey, pop: ParkedPop, maxFirstAttempts: number): () => void {
    if (this.closed || this.queueBehindWaiters(key)) return this.park(key, pop)
    const state = this.stateOf(key)
    if (state.firstAttempts >= maxFirstAttempts) {
      const cancel = this.park(key, pop)
      // A round would stop at once at a first attempt at the head of the line; that attempt's end runs one
      // when it leaves candidates behind, or when a wake came while it was looking.
      if (!state.waiters[0]?.pending) void this.recheck(state)
      return cancel
    }
    const waiter = this.line(state, pop, true)
    state.firstAttempts += 1
    void this.firstAttempt(waiter, state)
    return () => this.cancel(waiter, state)
  }

  /**
   * Whether a new pop with this key should park behind the waiters already parked on it without a first
   * attempt of its own: they are parked, no re-check is running and no wake is unchecked, so the last look
   * at the database for this key found nothing left (or delivered without candidates left), and every
   * event that can make messages deliverable wakes the key or its timer. A first attempt would be one more
   * empty round trip, and finding something would serve the newcomer before the waiters ahead of it (4.7:
   * first come, first served). Not after a failed attempt: a newcomer then gets its own answer at once (the
   * database failure) instead of waiting for the waiters' next timer.
   */
  queueBehindWaiters(key: WaitKey): boolean {
    const state = this.states.get(keyId(key))
    if (!state || this.closed) return false
    // Parked waiters, not only first attempts in flight: behind those alone, a newcomer would wait for their
    // end to be served (a drain's consumers would take turns). One in flight that leaves candidates behind
    // runs a round for the line when it ends.
    return !state.running && !state.dirty && !state.lastFailed && state.waiters.length > state.firstAttempts
  }

  /** Re-checks the waiters of a queue (all partitions, or wildcard waiters and that partition's). */
  wake(tenant: string, queue: string, partition: string | null, source: WakeSource = 'local'): void {
    this.remember(tenant, queue)
    let rechecked = false
    for (const state of this.states.values()) {
      const key = state.key
      if (key.tenant !== tenant) continue
      if (key.queue.startsWith(NAMESPACE_WAIT_PREFIX)) {
        rechecked = true
        void this.recheck(state)
        continue
      }
      if (key.queue !== queue) continue
      if (partition !== null && key.partition !== null && key.partition !== partition) continue
      state.emptyChecks = 0
      rechecked = true
      void this.recheck(state)
    }
    if (rechecked) this.onWakeup(source)
  }

  /** Re-checks every parked pop (pop-maintenance ended). */
  wakeAll(): void {
    if (this.states.size === 0) return
    for (const state of this.states.values()) {
      state.emptyChecks = 0
      void this.recheck(state)
    }
    this.onWakeup('local')
  }

  /** Answers the parked pops of one queue without messages (the queue was deleted). */
  endQueue(tenant: string, queue: string): void {
    for (const state of [...this.states.values()]) {
      if (state.key.tenant !== tenant || state.key.queue !== queue) continue
      for (const waiter of [...state.waiters]) this.cancel(waiter, state)
    }
  }

  /**
   * Answers every parked pop at once (SIGTERM) and refuses new ones. A pop still in its first attempt is
   * answered when that attempt ends (with what it found, or empty).
   */
  shutdown(): void {
    this.closed = true
    for (const state of [...this.states.values()]) {
      for (const waiter of [...state.waiters]) {
        if (waiter.pending) waiter.endAfter ??= 'shutdown'
        else this.finish(waiter, state, 'shutdown')
      }
    }
  }

  private stateOf(key: WaitKey): KeyState {
    const id = keyId(key)
    let state = this.states.get(id)
    if (!state) {
      state = {
        key,
        waiters: [],
        running: false,
        dirty: false,
        firstAttempts: 0,
        blocked: false,
        emptyChecks: 0,
        lastFailed: false,
        timer: undefined,
      }
      this.states.set(id, state)
    }
    return state
  }

  /** Appends a pop to the end of the line of its key. */
  private line(state: KeyState, pop: ParkedPop, pending: boolean): Waiter {
    const waiter: Waiter = { ...pop, busy: false, pending, finished: false, endAfter: undefined, timer: undefined }
    state.waiters.push(waiter)
    return waiter
  }

  /** Makes a waiter of the line parked: counted, with its deadline armed and the key's timer running. */
  private settle(waiter: Waiter, state: KeyState): void {
    waiter.pending = false
    this.count += 1
    waiter.timer = setTimeout(() => this.expire(waiter, state), Math.max(0, waiter.deadline - Date.now()))
    this.scheduleTimer(state)
  }

  /** Runs the first attempt of a pop holding its place in the line. */
  private async firstAttempt(waiter: Waiter, state: KeyState): Promise<void> {
    const result = await this.attemptOnce(waiter, state, true)
    state.firstAttempts -= 1
    if (result !== 'empty') {
      // Answered by the attempt itself: it leaves the line without ever having been parked.
      this.finish(waiter, state, 'delivered')
    } else {
      this.settle(waiter, state)
      if (waiter.endAfter === undefined && Date.now() >= waiter.deadline) waiter.endAfter = 'timeout'
      if (waiter.endAfter !== undefined) this.finish(waiter, state, waiter.endAfter)
    }
    // Parked waiters get their round now when one stopped at a first attempt (a wake or timer came while it
    // looked: its look may predate what they woke for) or candidates were left for them.
    const parkedLeft = state.waiters.length > state.firstAttempts
    if ((state.blocked || result === 'more') && parkedLeft) {
      state.blocked = false
      void this.recheck(state)
    }
  }

  /**
   * One attempt of a waiter, recorded as the key's last outcome. A throw is reported and counts as an empty
   * answer that failed (the pop stays in line); it never rejects.
   */
  private async attemptOnce(waiter: Waiter, state: KeyState, first: boolean): Promise<AttemptResult> {
    let result: AttemptResult = 'empty'
    let threw = false
    try {
      result = await waiter.attempt(first)
    } catch (error) {
      threw = true
      this.onError(error)
    }
    state.lastFailed = threw || result === 'failed'
    return result
  }

  /** Client disconnect (or queue deleted): out of line now, or once its first attempt in flight ends. */
  private cancel(waiter: Waiter, state: KeyState): void {
    if (waiter.pending) waiter.endAfter ??= 'cancelled'
    else this.finish(waiter, state, 'cancelled')
  }

  private expire(waiter: Waiter, state: KeyState): void {
    if (waiter.busy) waiter.endAfter ??= 'timeout'
    else this.finish(waiter, state, 'timeout')
  }

  private finish(waiter: Waiter, state: KeyState, reason: WaiterEnd | 'delivered'): void {
    if (waiter.finished) return
    waiter.finished = true
    clearTimeout(waiter.timer)
    const index = state.waiters.indexOf(waiter)
    if (index >= 0) state.waiters.splice(index, 1)
    if (!waiter.pending) this.count -= 1
    if (state.waiters.length === 0) {
      if (state.timer) clearTimeout(state.timer)
      state.timer = undefined
      this.states.delete(keyId(state.key))
    }
    if (reason !== 'delivered') {
      try {
        waiter.end(reason)
      } catch (error) {
        this.onError(error)
      }
    }
  }

  private scheduleTimer(state: KeyState): void {
    // Only parked waiters need the timer: a first attempt in flight is a look of its own.
    if (state.timer || state.waiters.length <= state.firstAttempts) return
    const { initialIntervalMs, backoffThreshold, backoffMultiplier, maxIntervalMs } = this.backoff
    const over = Math.max(0, state.emptyChecks - backoffThreshold + 1)
    const interval = Math.min(maxIntervalMs, initialIntervalMs * Math.pow(backoffMultiplier, over))
    state.timer = setTimeout(() => {
      state.timer = undefined
      this.onWakeup('timer')
      void this.recheck(state)
    }, interval)
  }

  private async recheck(state: KeyState): Promise<void> {
    if (state.running) {
      state.dirty = true
      return
    }
    state.running = true
    try {
      do {
        state.dirty = false
        state.blocked = false
        let answered = false
        let candidatesLeft = false
        let stopped = false
        for (const waiter of [...state.waiters]) {
          if (waiter.finished) continue
          if (waiter.pending) {
            // Its first attempt is looking right now; those behind it are served after it, by the round
            // that attempt's end runs.
            state.blocked = true
            stopped = true
            break
          }
          waiter.busy = true
          const result = await this.attemptOnce(waiter, state, false)
          waiter.busy = false
          candidatesLeft = result === 'more'
          if (result !== 'empty') {
            answered = true
            this.finish(waiter, state, 'delivered')
            // Without candidates left, the next waiter's attempt would be an empty round trip.
            if (result === 'more') continue
            break
          }
          if (waiter.endAfter !== undefined) this.finish(waiter, state, waiter.endAfter)
          break
        }
        // Every waiter of the round was served and candidates remain: waiters that parked during the round
        // (after its list was taken) get a round of their own now rather than at the next timer.
        if (candidatesLeft && !stopped) state.dirty = true
        // A round stopped at a first attempt looked at nothing: it does not count as an empty check.
        if (answered) state.emptyChecks = 0
        else if (!stopped) state.emptyChecks += 1
      } while (state.dirty && state.waiters.length > 0)
    } finally {
      state.running = false
      if (state.timer) clearTimeout(state.timer)
      state.timer = undefined
      this.scheduleTimer(state)
    }
  }

  private remember(tenant: string, queue: string): void {
    this.wakes += 1
    if (this.lastWakeOf.size >= REMEMBERED_QUEUES) {
      this.lastWakeOf.clear()
      this.forgottenBefore = this.wakes
    }
    this.lastWakeOf.set(queueId(tenant, queue), this.wakes)
  }
}

function queueId(tenant: string, queue: string): string {
  return `${tenant}\u0000${queue}`
}

function keyId(key: WaitKey): string {
  return [key.tenant, key.queue, key.partition ?? '\u0001*', key.group].join('\u0000')
}
