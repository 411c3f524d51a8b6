/**
 * Streams SDK, stateless operators (client-v2/streams: map, filter, flatMap, keyBy, foreach, .to(sink)),
 * driven through the real client against our broker. Each test pushes its own input and asserts what the
 * sink queue or the foreach callback received.
 */
import { expect, it } from 'vitest'
import { describeWithClient } from './client.js'
import { drainQueue, sleep, useStreamHarness, waitForProcessed } from './streams-support.js'

describeWithClient('streams SDK: stateless operators', () => {
  const h = useStreamHarness('compat_streams_stateless')

  it('map: the sink queue receives every mapped record once, in partition order', async () => {
    await h().createQueue('sl-map-src')
    await h().createQueue('sl-map-out')
    const inputs = Array.from({ length: 12 }, (_, i) => ({ n: i + 1 }))
    await h().push('sl-map-src', 'p1', inputs)

    const stream = await h().run(
      h()
        .Stream.from(h().queen.queue('sl-map-src'))
        .map((m: any) => ({ n: m.data.n, square: m.data.n * m.data.n }))
        .to(h().queen.queue('sl-map-out')),
      { queryId: 'sl-map' },
    )
    const out = await drainQueue(h(), 'sl-map-out', inputs.length, { streams: [stream] })

    expect(out.map((m) => m.data)).toEqual(inputs.map(({ n }) => ({ n, square: n * n })))
  })

  it('filter: foreach receives exactly the records the predicate keeps', async () => {
    await h().createQueue('sl-filter-src')
    const inputs = Array.from({ length: 20 }, (_, i) => ({ n: i + 1 }))
    await h().push('sl-filter-src', 'p1', inputs)

    const seen: any[] = []
    const stream = await h().run(
      h()
        .Stream.from(h().queen.queue('sl-filter-src'))
        .filter((m: any) => m.data.n % 3 === 0)
        .foreach((value: any) => {
          seen.push(value)
        }),
      { queryId: 'sl-filter' },
    )
    await waitForProcessed(stream, inputs.length)

    expect(seen).toEqual(inputs.filter(({ n }) => n % 3 === 0))
  })

  it('flatMap: each record expands to zero or more records, in order', async () => {
    await h().createQueue('sl-flat-src')
    const inputs = [{ words: 'alpha beta' }, { words: '' }, { words: 'gamma' }, { words: 'delta epsilon zeta' }]
    await h().push('sl-flat-src', 'p1', inputs)

    const seen: string[] = []
    const stream = await h().run(
      h()
        .Stream.from(h().queen.queue('sl-flat-src'))
        .flatMap((m: any) => (m.data.words === '' ? [] : m.data.words.split(' ')))
        .foreach((word: string) => {
          seen.push(word)
        }),
      { queryId: 'sl-flat' },
    )
    await waitForProcessed(stream, inputs.length)

    expect(seen).toEqual(inputs.flatMap(({ words }) => (words === '' ? [] : words.split(' '))))
  })

  it('keyBy: foreach sees the derived key of each record in ctx.key', async () => {
    await h().createQueue('sl-key-src')
    const inputs = Array.from({ length: 9 }, (_, i) => ({ n: i, user: `u${i % 3}` }))
    await h().push('sl-key-src', 'p1', inputs)

    const seen: { n: number; key: string }[] = []
    const stream = await h().run(
      h()
        .Stream.from(h().queen.queue('sl-key-src'))
        .keyBy((m: any) => m.data.user)
        .foreach((value: any, ctx: any) => {
          seen.push({ n: value.n, key: ctx.key })
        }),
      { queryId: 'sl-key' },
    )
    await waitForProcessed(stream, inputs.length)

    expect(seen).toEqual(inputs.map(({ n, user }) => ({ n, key: user })))
  })

  it('foreach: each record is seen once with the source partition in ctx', async () => {
    await h().createQueue('sl-each-src')
    const byPartition: Record<string, { n: number }[]> = {
      east: [{ n: 1 }, { n: 2 }, { n: 3 }],
      west: [{ n: 10 }, { n: 20 }],
    }
    for (const [partition, payloads] of Object.entries(byPartition)) await h().push('sl-each-src', partition, payloads)

    const seen: Record<string, number[]> = {}
    const stream = await h().run(
      h()
        .Stream.from(h().queen.queue('sl-each-src'))
        .foreach((value: any, ctx: any) => {
          ;(seen[ctx.partition] ??= []).push(value.n)
        }),
      { queryId: 'sl-each' },
    )
    await waitForProcessed(stream, 5)
    await sleep(500)

    expect(seen).toEqual({ east: [1, 2, 3], west: [10, 20] })
  })

  it('foreach that throws: the batch is not acked and comes back after the lease expires', async () => {
    await h().createQueue('sl-retry-src', { leaseTime: 2 })
    const inputs = [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]
    await h().push('sl-retry-src', 'p1', inputs)

    const deliveries: number[] = []
    let thrown = false
    const stream = await h().run(
      h()
        .Stream.from(h().queen.queue('sl-retry-src'))
        .foreach((value: any) => {
          deliveries.push(value.n)
          if (value.n === 3 && !thrown) {
            thrown = true
            throw new Error('side effect failed once')
          }
        }),
      { queryId: 'sl-retry' },
      (error) => error.message.includes('side effect failed once'),
    )
    await waitForProcessed(stream, inputs.length, 20_000)
    await sleep(700)

    // The failed attempt ran up to n=3; the redelivery runs the whole batch again (at-least-once).
    const times = (n: number) => deliveries.filter((d) => d === n).length
    expect(stream.errors.map((e) => e.message)).toEqual(['side effect failed once'])
    expect(new Set(deliveries)).toEqual(new Set(inputs.map(({ n }) => n)))
    expect(times(3)).toBe(2)
    expect(stream.metrics().messagesTotal).toBe(inputs.length)
  })

  it('.to(sink) keeps each record on its source partition name by default', async () => {
    await h().createQueue('sl-part-src')
    await h().createQueue('sl-part-out')
    await h().push('sl-part-src', 'alpha', [{ n: 1 }, { n: 2 }])
    await h().push('sl-part-src', 'beta', [{ n: 3 }])

    const stream = await h().run(
      h()
        .Stream.from(h().queen.queue('sl-part-src'))
        .map((m: any) => ({ n: m.data.n * 100 }))
        .to(h().queen.queue('sl-part-out')),
      { queryId: 'sl-part' },
    )
    const out = await drainQueue(h(), 'sl-part-out', 3, { streams: [stream] })

    const placed = out.map((m) => ({ partition: m.partition, n: m.data.n })).sort((a, b) => a.n - b.n)
    expect(placed).toEqual([
      { partition: 'alpha', n: 100 },
      { partition: 'alpha', n: 200 },
      { partition: 'beta', n: 300 },
    ])
  })

  it('.to(sink, { partition }) routes each record to the partition the function names', async () => {
    await h().createQueue('sl-route-src')
    await h().createQueue('sl-route-out')
    const inputs = Array.from({ length: 6 }, (_, i) => ({ n: i + 1 }))
    await h().push('sl-route-src', 'p1', inputs)

    const stream = await h().run(
      h()
        .Stream.from(h().queen.queue('sl-route-src'))
        .map((m: any) => ({ n: m.data.n }))
        .to(h().queen.queue('sl-route-out'), { partition: (v: any) => (v.n % 2 === 0 ? 'even' : 'odd') }),
      { queryId: 'sl-route' },
    )
    const out = await drainQueue(h(), 'sl-route-out', inputs.length, { streams: [stream] })

    const placed = out.map((m) => ({ partition: m.partition, n: m.data.n })).sort((a, b) => a.n - b.n)
    expect(placed).toEqual(inputs.map(({ n }) => ({ partition: n % 2 === 0 ? 'even' : 'odd', n })))
  })

  it('a record that is not an object reaches the sink wrapped as { value }', async () => {
    await h().createQueue('sl-wrap-src')
    await h().createQueue('sl-wrap-out')
    await h().push('sl-wrap-src', 'p1', [{ n: 7 }, { n: 8 }])

    const stream = await h().run(
      h()
        .Stream.from(h().queen.queue('sl-wrap-src'))
        .map((m: any) => m.data.n * 2)
        .to(h().queen.queue('sl-wrap-out')),
      { queryId: 'sl-wrap' },
    )
    const out = await drainQueue(h(), 'sl-wrap-out', 2, { streams: [stream] })

    expect(out.map((m) => m.data)).toEqual([{ value: 14 }, { value: 16 }])
  })
})
