/**
 * Streams SDK, event-time windows (`eventTime` extractor): window membership comes from a timestamp in the
 * payload, the per-partition watermark is `max(event time seen) - allowedLateness` and a window closes when
 * the watermark reaches its end. Events below the watermark are late: with `onLate: 'drop'` (the default)
 * they are dropped and counted in `metrics().lateEventsTotal` (Runner.js, _processStatelessWindow).
 *
 * The timestamps are synthetic (a fixed base), so the expected windows follow from the inputs alone. The
 * idle-flush timer is off (`idleFlushMs: 0`): in event-time mode it never advances the watermark, and the
 * tests push each step only after the previous one was processed, so the watermark at each step is known.
 */
import { expect, it } from 'vitest'
import { describeWithClient } from './client.js'
import {
  addTo,
  sleep,
  useStreamHarness,
  waitFor,
  waitForProcessed,
  windowsContaining,
  type RunningStream,
  type WindowTotals,
} from './streams-support.js'

/** A whole second far from now, so that no wall-clock logic could mistake these times for recent ones. */
const BASE = Date.UTC(2030, 0, 1, 0, 0, 0)

interface Emit {
  key: string
  start: number
  end: number
  count: number
  sum: number
}

function recorder() {
  const emits: Emit[] = []
  const sink = (agg: any, ctx: any) => {
    emits.push({ key: ctx.key, start: ctx.windowStart, end: ctx.windowEnd, count: agg.count, sum: agg.sum })
  }
  return { emits, sink }
}

/** Emits as `{window, count, sum}` with windows named by their offset from BASE, duplicates kept. */
function emitted(emits: Emit[], withKey = false) {
  return emits
    .map((e) => ({ window: `${withKey ? `${e.key}@` : ''}+${e.start - BASE}`, count: e.count, sum: e.sum }))
    .sort((a, b) => a.window.localeCompare(b.window))
}

function expected(totals: WindowTotals) {
  return Object.entries(totals)
    .map(([window, t]) => ({ window, count: t.count, sum: t.sum }))
    .sort((a, b) => a.window.localeCompare(b.window))
}

/** An event `offset` ms after BASE. */
const ev = (
  offset: number,
  v: number,
  extra: Record<string, string> = {},
): { ts: number; v: number; [field: string]: unknown } => ({
  ts: BASE + offset,
  v,
  ...extra,
})

describeWithClient('streams SDK: event time', () => {
  const h = useStreamHarness('compat_streams_event_time')

  /** Pushes one step and waits until the stream processed every message pushed so far. */
  async function step(stream: RunningStream, queue: string, events: object[], total: number) {
    await h().push(queue, 'p1', events)
    await waitForProcessed(stream, total)
  }

  it('keyBy + tumbling: a closed window emits one aggregate per key', async () => {
    await h().createQueue('et-keyed')
    const { emits, sink } = recorder()
    const stream = await h().run(
      h()
        .Stream.from(h().queen.queue('et-keyed'))
        .keyBy((m: any) => m.data.user)
        .windowTumbling({ seconds: 1, eventTime: (m: any) => m.data.ts, idleFlushMs: 0 })
        .aggregate({ count: () => 1, sum: (d: any) => d.v })
        .foreach(sink),
      { queryId: 'et-keyed' },
    )
    const events = [
      ev(100, 1, { user: 'a' }),
      ev(200, 2, { user: 'b' }),
      ev(300, 4, { user: 'a' }),
      ev(900, 8, { user: 'c' }),
      ev(950, 16, { user: 'b' }),
      // Moves the watermark to +1500: closes [+0, +1000) and stays open in [+1000, +2000).
      ev(1500, 32, { user: 'a' }),
    ]
    await step(stream, 'et-keyed', events, events.length)

    const totals: WindowTotals = {}
    for (const e of events.filter((x) => x.ts - BASE < 1000)) addTo(totals, `${e.user as string}@+0`, e.v)
    const want = expected(totals)
    await waitFor(`${want.length} keyed aggregates`, () => emits.length >= want.length, { streams: [stream] })
    await sleep(400)

    expect(emitted(emits, true)).toEqual(want)
  })

  it('allowed lateness: an out-of-order event not older than the watermark still lands in its window', async () => {
    await h().createQueue('et-within')
    const { emits, sink } = recorder()
    const stream = await h().run(
      h()
        .Stream.from(h().queen.queue('et-within'))
        .windowTumbling({ seconds: 1, eventTime: (m: any) => m.data.ts, allowedLateness: 1, idleFlushMs: 0 })
        .aggregate({ count: () => 1, sum: (d: any) => d.v })
        .foreach(sink),
      { queryId: 'et-within' },
    )
    // Watermark after each step (max event time - 1000): +800, +800, +2500.
    await step(stream, 'et-within', [ev(100, 1), ev(1800, 2)], 2)
    await step(stream, 'et-within', [ev(900, 4)], 3)
    expect(emits).toEqual([])
    await step(stream, 'et-within', [ev(3500, 8)], 4)
    await waitFor('two closed windows', () => emits.length >= 2, { streams: [stream] })
    await sleep(400)

    expect(emitted(emits)).toEqual([
      { window: '+0', count: 2, sum: 1 + 4 },
      { window: '+1000', count: 1, sum: 2 },
    ])
    expect(stream.metrics().lateEventsTotal).toBe(0)
  })

  it('allowed lateness: an event older than the watermark is dropped and counted as late', async () => {
    await h().createQueue('et-late')
    const { emits, sink } = recorder()
    const stream = await h().run(
      h()
        .Stream.from(h().queen.queue('et-late'))
        .windowTumbling({ seconds: 1, eventTime: (m: any) => m.data.ts, allowedLateness: 1, idleFlushMs: 0 })
        .aggregate({ count: () => 1, sum: (d: any) => d.v })
        .foreach(sink),
      { queryId: 'et-late' },
    )
    // Watermark after each step: +1600 (closes [+0,+1000)), +1600, +3000 (closes [+1000,+2000), [+2000,+3000)).
    await step(stream, 'et-late', [ev(100, 1), ev(2600, 2)], 2)
    // +500 is below the watermark (+1600): late. +1700 is not.
    await step(stream, 'et-late', [ev(500, 4), ev(1700, 8)], 4)
    await step(stream, 'et-late', [ev(4000, 16)], 5)
    await waitFor('three closed windows', () => emits.length >= 3, { streams: [stream] })
    await sleep(400)

    expect(emitted(emits)).toEqual([
      { window: '+0', count: 1, sum: 1 },
      { window: '+1000', count: 1, sum: 8 },
      { window: '+2000', count: 1, sum: 2 },
    ])
    expect(stream.metrics().lateEventsTotal).toBe(1)
    // The late event was consumed (acked with its batch), not left for redelivery.
    expect(stream.metrics().messagesTotal).toBe(5)
  })

  it('sliding in event time: each event is counted in exactly size/slide windows', async () => {
    await h().createQueue('et-slide')
    const { emits, sink } = recorder()
    const stream = await h().run(
      h()
        .Stream.from(h().queen.queue('et-slide'))
        .windowSliding({ size: 2, slide: 1, eventTime: (m: any) => m.data.ts, idleFlushMs: 0 })
        .aggregate({ count: () => 1, sum: (d: any) => d.v })
        .foreach(sink),
      { queryId: 'et-slide' },
    )
    const events = [ev(100, 1), ev(700, 2), ev(1200, 4), ev(2300, 8), ev(2900, 16), ev(3400, 32)]
    // One event per step, so windows close one cycle at a time; the closer moves the watermark past them all.
    let total = 0
    for (const e of events) await step(stream, 'et-slide', [e], ++total)
    const closer = ev(10_000, 0)
    await step(stream, 'et-slide', [closer], ++total)

    const totals: WindowTotals = {}
    for (const e of events)
      for (const start of windowsContaining(e.ts, 2000, 1000)) addTo(totals, `+${start - BASE}`, e.v)
    const memberships = events.length * (2 / 1)
    const countOf = () => emits.reduce((n, e) => n + e.count, 0)
    await waitFor(`${memberships} window memberships`, () => countOf() >= memberships, { streams: [stream] })
    await sleep(400)

    expect(countOf()).toBe(memberships)
    expect(emitted(emits)).toEqual(expected(totals))
  })
})
