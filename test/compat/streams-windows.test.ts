/**
 * Streams SDK, processing-time windows (client-v2/streams/operators/Window*.js): a window's time is the
 * `createdAt` the broker stamped on each source message, a window closes when a later message of the
 * partition passes its end or when the idle-flush timer finds it ripe (`windowEnd <= Date.now()`).
 *
 * Expected aggregates are computed from the messages the test pushed and the `createdAt` the broker gave
 * them (read back through a separate consumer group). Bursts are pushed shortly after a window boundary and
 * a whole window apart, so that every window is closed by one path only.
 */
import { expect, it } from 'vitest'
import { describeWithClient } from './client.js'
import {
  addTo,
  alignTo,
  createdAtMs,
  readPartition,
  sleep,
  useStreamHarness,
  waitFor,
  waitForProcessed,
  windowsContaining,
  type PoppedMessage,
  type WindowTotals,
} from './streams-support.js'

interface Emit {
  partition: string
  key: string
  start: number
  end: number
  count: number
  sum: number
  at: number
}

/** A foreach sink that records each emitted aggregate with its window. */
function recorder() {
  const emits: Emit[] = []
  const sink = (agg: any, ctx: any) => {
    emits.push({
      partition: ctx.partition,
      key: ctx.key,
      start: ctx.windowStart,
      end: ctx.windowEnd,
      count: agg.count,
      sum: agg.sum,
      at: Date.now(),
    })
  }
  return { emits, sink }
}

/** Emits as `{window, count, sum}` sorted by window, duplicates kept. */
function emitted(emits: Emit[], label: (e: Emit) => string) {
  return emits
    .map((e) => ({ window: label(e), count: e.count, sum: e.sum }))
    .sort((a, b) => a.window.localeCompare(b.window))
}

function expected(totals: WindowTotals) {
  return Object.entries(totals)
    .map(([window, t]) => ({ window, count: t.count, sum: t.sum }))
    .sort((a, b) => a.window.localeCompare(b.window))
}

const at = (start: number) => new Date(start).toISOString()

describeWithClient('streams SDK: processing-time windows', () => {
  const h = useStreamHarness('compat_streams_windows')

  it('tumbling: each 1 s window of each partition emits its count and sum once', async () => {
    await h().createQueue('win-tumb')
    const { emits, sink } = recorder()
    const stream = await h().run(
      h()
        .Stream.from(h().queen.queue('win-tumb'))
        .windowTumbling({ seconds: 1, idleFlushMs: 250 })
        .aggregate({ count: () => 1, sum: (d: any) => d.v })
        .foreach(sink),
      { queryId: 'win-tumb' },
    )

    await alignTo(1000, 150)
    await h().push('win-tumb', 'p1', [{ v: 1 }, { v: 2 }, { v: 4 }, { v: 8 }])
    await h().push('win-tumb', 'p2', [{ v: 16 }, { v: 32 }])
    await sleep(1000)
    await alignTo(1000, 150)
    await h().push('win-tumb', 'p1', [{ v: 64 }, { v: 128 }, { v: 256 }])

    const totals: WindowTotals = {}
    for (const [partition, count] of [
      ['p1', 7],
      ['p2', 2],
    ] as const) {
      for (const m of await readPartition(h(), 'win-tumb', partition, count)) {
        addTo(totals, `${partition}@${at(Math.floor(createdAtMs(m) / 1000) * 1000)}`, m.data.v)
      }
    }
    const want = expected(totals)
    await waitFor(`${want.length} windows`, () => emits.length >= want.length, { streams: [stream] })
    await sleep(800)

    expect(emitted(emits, (e) => `${e.partition}@${at(e.start)}`)).toEqual(want)
    expect(emits.every((e) => e.end - e.start === 1000)).toBe(true)
    expect(emits.filter((e) => e.at < e.end)).toEqual([])
  })

  it('idle flush: a window closes after its end although no new event arrives', async () => {
    await h().createQueue('win-idle')
    const { emits, sink } = recorder()
    const stream = await h().run(
      h()
        .Stream.from(h().queen.queue('win-idle'))
        .windowTumbling({ seconds: 1, idleFlushMs: 200 })
        .aggregate({ count: () => 1, sum: (d: any) => d.v })
        .foreach(sink),
      { queryId: 'win-idle' },
    )
    await alignTo(1000, 150)
    await h().push('win-idle', 'p1', [{ v: 3 }, { v: 5 }, { v: 7 }])
    const pushed = await readPartition(h(), 'win-idle', 'p1', 3)
    const start = Math.floor(createdAtMs(pushed[0]!) / 1000) * 1000

    await waitFor('the window to close on idle', () => emits.length >= 1, { streams: [stream], timeoutMs: 5000 })
    await sleep(600)

    expect(emitted(emits, (e) => at(e.start))).toEqual([{ window: at(start), count: 3, sum: 15 }])
    expect(emits[0]!.at).toBeGreaterThanOrEqual(start + 1000)
    expect(emits[0]!.end).toBe(start + 1000)
  })

  it('without idle flush, a window stays open until a later event of the partition passes its end', async () => {
    await h().createQueue('win-noidle')
    const { emits, sink } = recorder()
    const stream = await h().run(
      h()
        .Stream.from(h().queen.queue('win-noidle'))
        .windowTumbling({ seconds: 1, idleFlushMs: 0 })
        .aggregate({ count: () => 1, sum: (d: any) => d.v })
        .foreach(sink),
      { queryId: 'win-noidle' },
    )
    await alignTo(1000, 150)
    await h().push('win-noidle', 'p1', [{ v: 2 }, { v: 9 }])
    await waitForProcessed(stream, 2)
    await sleep(1500)
    expect(emits).toEqual([])

    await h().push('win-noidle', 'p1', [{ v: 100 }])
    const pushed = await readPartition(h(), 'win-noidle', 'p1', 3)
    const first = Math.floor(createdAtMs(pushed[0]!) / 1000) * 1000
    await waitFor('the later event to close the first window', () => emits.length >= 1, { streams: [stream] })
    await sleep(500)

    // The later event's own window stays open: nothing flushes it.
    expect(emitted(emits, (e) => at(e.start))).toEqual([{ window: at(first), count: 2, sum: 11 }])
  })

  it('sliding: each event is counted in exactly size/slide windows', async () => {
    await h().createQueue('win-slide')
    const { emits, sink } = recorder()
    const stream = await h().run(
      h()
        .Stream.from(h().queen.queue('win-slide'))
        .windowSliding({ size: 2, slide: 1, idleFlushMs: 250 })
        .aggregate({ count: () => 1, sum: (d: any) => d.v })
        .foreach(sink),
      { queryId: 'win-slide' },
    )
    await alignTo(1000, 150)
    await h().push('win-slide', 'p1', [{ v: 1 }, { v: 2 }, { v: 4 }])
    await sleep(2000)
    await alignTo(1000, 150)
    await h().push('win-slide', 'p1', [{ v: 8 }, { v: 16 }, { v: 32 }])

    const pushed: PoppedMessage[] = await readPartition(h(), 'win-slide', 'p1', 6)
    const totals: WindowTotals = {}
    for (const m of pushed) {
      for (const start of windowsContaining(createdAtMs(m), 2000, 1000)) addTo(totals, at(start), m.data.v)
    }
    const memberships = pushed.length * (2 / 1)
    const countOf = () => emits.reduce((n, e) => n + e.count, 0)
    await waitFor(`${memberships} window memberships`, () => countOf() >= memberships, { streams: [stream] })
    await sleep(800)

    expect(countOf()).toBe(memberships)
    expect(emitted(emits, (e) => at(e.start))).toEqual(expected(totals))
    expect(emits.every((e) => e.end - e.start === 2000)).toBe(true)
    // A window is emitted only once its end has passed.
    expect(emits.filter((e) => e.at < e.end)).toEqual([])
  })

  it('session: events of a key within the gap form one session; a longer silence starts a new one', async () => {
    await h().createQueue('win-sess')
    const { emits, sink } = recorder()
    const stream = await h().run(
      h()
        .Stream.from(h().queen.queue('win-sess'))
        .keyBy((m: any) => m.data.user)
        .windowSession({ gap: 1, idleFlushMs: 250 })
        .aggregate({ count: () => 1, sum: (d: any) => d.v })
        .foreach(sink),
      { queryId: 'win-sess' },
    )
    const first = [
      { user: 'a', v: 1 },
      { user: 'b', v: 2 },
      { user: 'a', v: 4 },
      { user: 'b', v: 8 },
      { user: 'a', v: 16 },
    ]
    const second = [
      { user: 'a', v: 32 },
      { user: 'b', v: 64 },
      { user: 'a', v: 128 },
    ]
    for (const payload of first) {
      await h().push('win-sess', 'p1', [payload])
      await sleep(150)
    }
    await sleep(2500)
    for (const payload of second) {
      await h().push('win-sess', 'p1', [payload])
      await sleep(150)
    }

    // Sessions per key from the broker's createdAt: a gap above 1000 ms closes a session.
    const pushed = await readPartition(h(), 'win-sess', 'p1', first.length + second.length)
    const sessions: { window: string; count: number; sum: number }[] = []
    for (const user of ['a', 'b']) {
      let open: { start: number; last: number; count: number; sum: number } | undefined
      for (const m of pushed.filter((p) => p.data.user === user)) {
        const t = createdAtMs(m)
        if (open && t - open.last > 1000) {
          sessions.push({ window: `${user}@${at(open.start)}`, count: open.count, sum: open.sum })
          open = undefined
        }
        open ??= { start: t, last: t, count: 0, sum: 0 }
        open.last = t
        open.count += 1
        open.sum += m.data.v
      }
      if (open) sessions.push({ window: `${user}@${at(open.start)}`, count: open.count, sum: open.sum })
    }
    sessions.sort((a, b) => a.window.localeCompare(b.window))

    await waitFor(`${sessions.length} sessions`, () => emits.length >= sessions.length, { streams: [stream] })
    await sleep(1500)

    expect(emitted(emits, (e) => `${e.key}@${at(e.start)}`)).toEqual(sessions)
    // A session is emitted only after its gap has passed (windowEnd = last event + gap).
    expect(emits.filter((e) => e.at < e.end)).toEqual([])
  })

  it('cron every second: windows align to whole UTC seconds and emit once each', async () => {
    await h().createQueue('win-cron')
    const { emits, sink } = recorder()
    const stream = await h().run(
      h()
        .Stream.from(h().queen.queue('win-cron'))
        .windowCron({ every: 'second', idleFlushMs: 250 })
        .aggregate({ count: () => 1, sum: (d: any) => d.v })
        .foreach(sink),
      { queryId: 'win-cron' },
    )
    await alignTo(1000, 150)
    await h().push('win-cron', 'p1', [{ v: 5 }, { v: 6 }])
    await sleep(1000)
    await alignTo(1000, 150)
    await h().push('win-cron', 'p1', [{ v: 7 }])

    const totals: WindowTotals = {}
    for (const m of await readPartition(h(), 'win-cron', 'p1', 3)) {
      const t = createdAtMs(m)
      addTo(totals, at(t - (t % 1000)), m.data.v)
    }
    const want = expected(totals)
    await waitFor(`${want.length} windows`, () => emits.length >= want.length, { streams: [stream] })
    await sleep(800)

    expect(emitted(emits, (e) => at(e.start))).toEqual(want)
    expect(emits.every((e) => e.start % 1000 === 0 && e.end - e.start === 1000)).toBe(true)
    expect(emits.filter((e) => e.at < e.end)).toEqual([])
  })
})
