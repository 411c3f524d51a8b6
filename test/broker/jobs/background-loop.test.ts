import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { BackgroundLoop } from '../../../src/platform/jobs/background-loop.js'
import { STATS_REFRESH_DURATION_FACTOR, statsRefreshJob } from '../../../src/broker/jobs/stats-refresh-job.js'
import { sleep } from '../../support/queen.js'

interface Cycle {
  start: number
  end: number
}

/** Runs a loop whose cycles last the given times (ms), then stops it; returns when each cycle ran. */
async function runCycles(durationsMs: number[], options: { durationFactor?: number }): Promise<Cycle[]> {
  const cycles: Cycle[] = []
  const loop = new BackgroundLoop(
    'paced',
    10,
    async () => {
      const start = performance.now()
      await sleep(durationsMs[cycles.length] ?? 0)
      cycles.push({ start, end: performance.now() })
    },
    pino({ enabled: false }),
    options,
  )
  loop.start()
  for (let tries = 0; tries < 300 && cycles.length < durationsMs.length; tries++) await sleep(10)
  await loop.stop()
  expect(cycles.length).toBeGreaterThanOrEqual(durationsMs.length)
  return cycles
}

const pauseAfter = (cycles: Cycle[], index: number) => cycles[index + 1]!.start - cycles[index]!.end

describe('BackgroundLoop pacing', () => {
  it('pauses durationFactor times a long cycle before the next one, and only the interval after a short one', async () => {
    const cycles = await runCycles([80, 0, 0], { durationFactor: 4 })
    const longCycle = cycles[0]!.end - cycles[0]!.start
    // A timer may fire up to a millisecond early.
    expect(pauseAfter(cycles, 0)).toBeGreaterThanOrEqual(4 * longCycle - 1)
    expect(pauseAfter(cycles, 1)).toBeGreaterThanOrEqual(8)
    expect(pauseAfter(cycles, 1)).toBeLessThan(4 * longCycle)
  })

  it('keeps the plain interval after a long cycle without a duration factor', async () => {
    const cycles = await runCycles([80, 0], {})
    expect(pauseAfter(cycles, 0)).toBeGreaterThanOrEqual(8)
    expect(pauseAfter(cycles, 0)).toBeLessThan(4 * (cycles[0]!.end - cycles[0]!.start))
  })
})

describe('BackgroundLoop stop', () => {
  it('aborts the signal of the running cycle, so a cycle that honours it ends the stop at once', async () => {
    let started = false
    let cutByAbort = false
    const loop = new BackgroundLoop(
      'long',
      10,
      (signal) =>
        new Promise<void>((_resolve, reject) => {
          started = true
          signal.addEventListener(
            'abort',
            () => {
              cutByAbort = true
              reject(signal.reason as Error)
            },
            { once: true },
          )
        }),
      pino({ enabled: false }),
    )
    loop.start()
    for (let tries = 0; tries < 300 && !started; tries++) await sleep(10)
    expect(started).toBe(true)
    expect(cutByAbort).toBe(false)
    await loop.stop()
    expect(cutByAbort).toBe(true)
  })

  it('gives the cycles of a restarted loop a signal that is not aborted', async () => {
    const seen: boolean[] = []
    const loop = new BackgroundLoop(
      'restarted',
      10,
      (signal) => {
        seen.push(signal.aborted)
        return Promise.resolve()
      },
      pino({ enabled: false }),
    )
    loop.start()
    for (let tries = 0; tries < 300 && seen.length === 0; tries++) await sleep(10)
    await loop.stop()
    const before = seen.length
    loop.start()
    for (let tries = 0; tries < 300 && seen.length === before; tries++) await sleep(10)
    await loop.stop()
    expect(seen.length).toBeGreaterThan(before)
    expect(seen.every((aborted) => !aborted)).toBe(true)
  })
})

describe('stats refresh loop', () => {
  it('pauses STATS_REFRESH_DURATION_FACTOR times a slow refresh, so refreshes take at most a fifth of the time', async () => {
    expect(STATS_REFRESH_DURATION_FACTOR).toBe(4)
    const refreshes: Cycle[] = []
    const job = statsRefreshJob(
      {
        refresh: async () => {
          const start = performance.now()
          await sleep(refreshes.length === 0 ? 80 : 0)
          refreshes.push({ start, end: performance.now() })
          return { skipped: true }
        },
        afterCycle: () => undefined,
      },
      10,
      pino({ enabled: false }),
    )
    job.start()
    for (let tries = 0; tries < 300 && refreshes.length < 2; tries++) await sleep(10)
    await job.stop()
    expect(pauseAfter(refreshes, 0)).toBeGreaterThanOrEqual(4 * (refreshes[0]!.end - refreshes[0]!.start) - 1)
  })
})
