/**
 * Streams SDK under concurrency: two queries reading one source (each has its own consumer group
 * `streams.<queryId>` and its own state), and a throughput run of 5,000 messages over 20 partitions that
 * must reach the sink exactly once (the cycle commits the sink push and the source ack in one transaction).
 */
import { expect, it } from 'vitest'
import { describeWithClient } from './client.js'
import {
  addTo,
  alignTo,
  createdAtMs,
  drainQueue,
  readPartition,
  sleep,
  useStreamHarness,
  waitFor,
  type WindowTotals,
} from './streams-support.js'

describeWithClient('streams SDK: concurrency and throughput', () => {
  const h = useStreamHarness('compat_streams_concurrency')

  it('two streams on one source: each sees every message once, with its own state', async () => {
    await h().createQueue('cc-src')
    await h().createQueue('cc-out')
    const partitions = ['p0', 'p1', 'p2', 'p3']
    const perPartition = 25

    const mapped = await h().run(
      h()
        .Stream.from(h().queen.queue('cc-src'))
        .map((m: any) => ({ id: m.data.id, v10: m.data.v * 10 }))
        .to(h().queen.queue('cc-out')),
      { queryId: 'cc-mapped' },
    )
    const windows: { partition: string; start: number; count: number; sum: number }[] = []
    const windowed = await h().run(
      h()
        .Stream.from(h().queen.queue('cc-src'))
        .windowTumbling({ seconds: 1, idleFlushMs: 250 })
        .aggregate({ count: () => 1, sum: (d: any) => d.v })
        .foreach((agg: any, ctx: any) => {
          windows.push({ partition: ctx.partition, start: ctx.windowStart, count: agg.count, sum: agg.sum })
        }),
      { queryId: 'cc-windowed' },
    )

    await alignTo(1000, 150)
    const inputs = partitions.map((_, p) =>
      Array.from({ length: perPartition }, (_unused, i) => ({ id: p * perPartition + i, v: p * perPartition + i + 1 })),
    )
    await Promise.all(partitions.map((partition, p) => h().push('cc-src', partition, inputs[p]!)))
    const all = inputs.flat()

    const out = await drainQueue(h(), 'cc-out', all.length, { streams: [mapped, windowed] })
    expect(out.map((m) => m.data).sort((a, b) => a.id - b.id)).toEqual(all.map(({ id, v }) => ({ id, v10: v * 10 })))

    const totals: WindowTotals = {}
    for (const partition of partitions) {
      for (const m of await readPartition(h(), 'cc-src', partition, perPartition)) {
        addTo(totals, `${partition}@${Math.floor(createdAtMs(m) / 1000) * 1000}`, m.data.v)
      }
    }
    const want = Object.entries(totals)
      .map(([window, t]) => ({ window, count: t.count, sum: t.sum }))
      .sort((a, b) => a.window.localeCompare(b.window))
    await waitFor(`${want.length} windows`, () => windows.length >= want.length, { streams: [mapped, windowed] })
    await sleep(800)
    const got = windows
      .map((w) => ({ window: `${w.partition}@${w.start}`, count: w.count, sum: w.sum }))
      .sort((a, b) => a.window.localeCompare(b.window))
    expect(got).toEqual(want)
    expect(mapped.metrics().messagesTotal).toBe(all.length)
    expect(windowed.metrics().messagesTotal).toBe(all.length)
  })

  it('throughput: 5,000 messages over 20 partitions reach the sink exactly once', async () => {
    await h().createQueue('tp-src')
    await h().createQueue('tp-out')
    const partitions = Array.from({ length: 20 }, (_, i) => `part-${i}`)
    const perPartition = 250
    const inputs = partitions.map((_, p) =>
      Array.from({ length: perPartition }, (_unused, i) => {
        const id = p * perPartition + i
        return { id, v: (id * 7919) % 1000 }
      }),
    )
    const all = inputs.flat()

    const stream = await h().run(
      h()
        .Stream.from(h().queen.queue('tp-src'))
        .map((m: any) => ({ id: m.data.id, v: m.data.v, from: m.partition }))
        .to(h().queen.queue('tp-out')),
      { queryId: 'tp' },
    )
    await Promise.all(partitions.map((partition, p) => h().push('tp-src', partition, inputs[p]!)))

    const out = await drainQueue(h(), 'tp-out', all.length, { streams: [stream], timeoutMs: 60_000, settleMs: 1000 })

    expect(out.length).toBe(all.length)
    expect(new Set(out.map((m) => m.data.id)).size).toBe(all.length)
    expect(out.reduce((sum, m) => sum + m.data.v, 0)).toBe(all.reduce((sum, { v }) => sum + v, 0))
    // Each record stays on its source partition's name, in that partition's order.
    for (const [p, partition] of partitions.entries()) {
      const ids = out.filter((m) => m.partition === partition).map((m) => m.data.id)
      expect(ids).toEqual(inputs[p]!.map(({ id }) => id))
    }
    expect(out.every((m) => m.data.from === m.partition)).toBe(true)
    expect(stream.metrics().messagesTotal).toBe(all.length)
  })
})
