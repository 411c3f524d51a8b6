/**
 * Streams SDK, restarts under one queryId (Stream.js `run`, runtime/register.js, util/configHash.js): the
 * query's state lives in the broker, so a stream restarted with the same operator chain resumes its open
 * windows; a chain whose structural config changed is refused at registration with
 * `STREAMS_CONFIG_HASH_MISMATCH` (the broker's 409) unless `reset: true`, which discards the stored state.
 *
 * Windows are in event time (synthetic timestamps, idle flush off) so that what is open at a restart
 * follows from the inputs alone.
 */
import { expect, it } from 'vitest'
import { describeWithClient } from './client.js'
import { sleep, useStreamHarness, waitFor, waitForProcessed } from './streams-support.js'

const BASE = Date.UTC(2030, 0, 1, 0, 0, 0)
const ev = (offset: number, v: number) => ({ ts: BASE + offset, v })

describeWithClient('streams SDK: restart and config hash', () => {
  const h = useStreamHarness('compat_streams_recovery')

  /** A 1 s event-time tumbling aggregate of `fields` over `queue`, recording what it emits. */
  function windowed(queue: string, fields: Record<string, (d: any) => number>, seconds = 1) {
    const emits: { start: number; value: any }[] = []
    const stream = h()
      .Stream.from(h().queen.queue(queue))
      .windowTumbling({ seconds, eventTime: (m: any) => m.data.ts, idleFlushMs: 0 })
      .aggregate(fields)
      .foreach((value: any, ctx: any) => {
        emits.push({ start: ctx.windowStart - BASE, value })
      })
    return { stream, emits }
  }

  const countSum = { count: () => 1, sum: (d: any) => d.v }

  it('same config: a restarted stream resumes its open window and its position', async () => {
    await h().createQueue('rc-resume')
    const first = windowed('rc-resume', countSum)
    const run1 = await h().run(first.stream, { queryId: 'rc-resume' })
    await h().push('rc-resume', 'p1', [ev(100, 1), ev(200, 2)])
    await waitForProcessed(run1, 2)
    await run1.stop()
    expect(first.emits).toEqual([])

    const second = windowed('rc-resume', countSum)
    const run2 = await h().run(second.stream, { queryId: 'rc-resume' })
    // +2500 moves the watermark past [+0, +1000), which holds the two events of the first run and +300.
    await h().push('rc-resume', 'p1', [ev(300, 4), ev(2500, 8)])
    await waitForProcessed(run2, 2)
    await waitFor('the resumed window to close', () => second.emits.length >= 1, { streams: [run2] })
    await sleep(400)

    expect(second.emits).toEqual([{ start: 0, value: { count: 3, sum: 1 + 2 + 4 } }])
    expect(run2.metrics().messagesTotal).toBe(2)
  })

  it('changed config: the restart is refused with STREAMS_CONFIG_HASH_MISMATCH and the state is kept', async () => {
    await h().createQueue('rc-refuse')
    const first = windowed('rc-refuse', countSum)
    const run1 = await h().run(first.stream, { queryId: 'rc-refuse' })
    await h().push('rc-refuse', 'p1', [ev(100, 1), ev(200, 2)])
    await waitForProcessed(run1, 2)
    await run1.stop()

    const changed = windowed('rc-refuse', countSum, 2)
    const refused = await h()
      .run(changed.stream, { queryId: 'rc-refuse' })
      .then(
        () => undefined,
        (error: any) => error,
      )
    expect(refused?.code).toBe('STREAMS_CONFIG_HASH_MISMATCH')
    expect(String(refused?.message)).toContain('reset: true')

    // The refused registration changed nothing: the original chain still resumes its window.
    const again = windowed('rc-refuse', countSum)
    const run3 = await h().run(again.stream, { queryId: 'rc-refuse' })
    await h().push('rc-refuse', 'p1', [ev(2500, 8)])
    await waitForProcessed(run3, 1)
    await waitFor('the kept window to close', () => again.emits.length >= 1, { streams: [run3] })
    await sleep(400)
    expect(again.emits).toEqual([{ start: 0, value: { count: 2, sum: 3 } }])
  })

  it('changed config with reset: true: the stored state is discarded and the stream goes on from its position', async () => {
    await h().createQueue('rc-reset')
    const first = windowed('rc-reset', countSum)
    const run1 = await h().run(first.stream, { queryId: 'rc-reset' })
    await h().push('rc-reset', 'p1', [ev(100, 1), ev(200, 2)])
    await waitForProcessed(run1, 2)
    await run1.stop()

    // Same window (same state keys), one more aggregate field: a different config hash.
    const second = windowed('rc-reset', { ...countSum, max: (d: any) => d.v })
    const run2 = await h().run(second.stream, { queryId: 'rc-reset', reset: true })
    await h().push('rc-reset', 'p1', [ev(300, 4), ev(2500, 8)])
    await waitForProcessed(run2, 2)
    await waitFor('the window to close', () => second.emits.length >= 1, { streams: [run2] })
    await sleep(400)

    // Only +300 is in [+0, +1000): the first run's accumulator is gone, its messages are not read again.
    expect(second.emits).toEqual([{ start: 0, value: { count: 1, sum: 4, max: 4 } }])
    expect(run2.metrics().messagesTotal).toBe(2)
  })
})
