import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, startTestBroker, WAKE_ONLY_POP_WAIT, type TestBroker } from '../../support/broker.js'
import { parsePrometheusText } from '../../support/prometheus-text.js'
import { createTestDatabase, dropTestDatabase } from '../../support/database.js'
import { ack, ackBatch, configure, numbers, pop, push, pushMany, sleep } from '../../support/queen.js'
import type { PopMessagesAnswer, PoppedMessage } from '../../../src/wire/index.js'

// The broker writes the messages answer as text (src/broker/http/envelopes/pop-envelope.ts); these key sets are
// checked by the compiler against src/wire/pop.ts, so the text and the wire types cannot drift apart unseen.
const ANSWER_KEYS = {
  success: true,
  queue: true,
  partition: true,
  partitionId: true,
  leaseId: true,
  consumerGroup: true,
  messages: true,
  partitionsClaimed: true,
} satisfies Record<keyof PopMessagesAnswer, true>
const MESSAGE_KEYS = {
  id: true,
  transactionId: true,
  traceId: true,
  data: true,
  producerSub: true,
  createdAt: true,
  partitionId: true,
  partition: true,
  leaseId: true,
  consumerGroup: true,
  queue: true,
  retryCount: true,
} satisfies Record<keyof PoppedMessage, true>
const wireKeys = (keys: object) => Object.keys(keys).sort()

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'pop' })
})
afterAll(async () => {
  await broker.close()
})

/** The broker's parked count once it equals `count`, or whatever it is after 10 s. */
async function parkedReaches(target: TestBroker, count: number): Promise<number> {
  for (let waited = 0; target.services.waiters.parked !== count && waited < 10_000; waited += 20) await sleep(20)
  return target.services.waiters.parked
}

describe('GET /api/v1/pop/queue/:queue', () => {
  it('delivers in position order with the envelope and message fields of docs/http-api.md, "Popped message" and "Pop answer"', async () => {
    await pushMany(broker, 'pop-shape', 'p', 3)
    const body = await pop(broker, 'pop-shape', { batch: 10 })
    expect(Object.keys(body).sort()).toEqual(wireKeys(ANSWER_KEYS))
    expect(body).toMatchObject({
      success: true,
      queue: 'pop-shape',
      partition: 'p',
      consumerGroup: '__QUEUE_MODE__',
      partitionsClaimed: 1,
    })
    expect(numbers(body)).toEqual([0, 1, 2])
    const message = body.messages[0]
    expect(Object.keys(message).sort()).toEqual(wireKeys(MESSAGE_KEYS))
    expect(message).toMatchObject({
      leaseId: body.leaseId,
      queue: 'pop-shape',
      partition: 'p',
      retryCount: 0,
      producerSub: null,
    })
  })

  it('returns every field as pushed, whatever characters the strings and payloads hold', async () => {
    const traceId = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'
    const pushed = [
      { transactionId: 'tx "quoted" \\ back/slash', payload: 'a "string" payload with \\ and \u2028' },
      { transactionId: 'ünïcødé 😀 tx', payload: { nested: { list: [1, 2.5, null, true], text: 'é "q"' } }, traceId },
      { transactionId: 'null-payload', payload: null },
      { transactionId: 'number-payload', payload: -12.75 },
      { transactionId: 'array-payload', payload: [{ a: 1 }, 'two', []] },
    ]
    await push(
      broker,
      pushed.map((item) => ({ queue: 'pop-fields', partition: 'p.ü-1', ...item })),
    )
    const body = await pop(broker, 'pop-fields', { batch: 10, consumerGroup: 'group "g" ü' })
    expect(body.consumerGroup).toBe('group "g" ü')
    expect(
      body.messages.map((m: any) => [m.transactionId, m.data, m.traceId, m.partition, m.consumerGroup, m.queue]),
    ).toEqual(
      pushed.map((item) => [
        item.transactionId,
        item.payload,
        item.traceId ?? null,
        'p.ü-1',
        'group "g" ü',
        'pop-fields',
      ]),
    )
    for (const message of body.messages) {
      expect(message.id).toMatch(/^[0-9a-f-]{36}$/)
      expect(message.partitionId).toBe(body.partitionId)
      expect(message.leaseId).toBe(body.leaseId)
      expect(Date.parse(message.createdAt)).toBeGreaterThan(Date.now() - 60_000)
    }
  })

  it('returns a batch of thousands whole and in order, multi-byte characters and partition changes included', async () => {
    // Large answers are turned into bytes in pieces (pop-envelope.ts): no message may be cut, doubled or re-encoded
    // where one piece ends, wherever that falls among multi-byte characters or between partitions.
    const texts = ['plain', 'ünïcødé', '😀 emoji', '"quoted" \\ \u2028', '日本語テキスト']
    for (const [index, partition] of ['a', 'b ü'].entries()) {
      const items = Array.from({ length: 700 }, (_, n) => ({
        queue: 'pop-large',
        partition,
        transactionId: `tx-${partition}-${n}-${texts[n % texts.length]}`,
        payload: { n: index * 1000 + n, text: texts[n % texts.length]!.repeat((n % 7) + 1) },
      }))
      await push(broker, items)
    }
    const answer = await http(broker, 'GET', '/api/v1/pop/queue/pop-large?batch=1400&partitions=2')
    // docs/http-api.md, "Pop answer": written as the connection takes it, so no length is known up front.
    expect(answer.headers.get('transfer-encoding')).toBe('chunked')
    expect(answer.headers.get('content-length')).toBeNull()
    const body = answer.body
    expect(body.partitionsClaimed).toBe(2)
    expect(body.messages).toHaveLength(1400)
    const first = body.messages[0].partition as string
    const expected = [first, first === 'a' ? 'b ü' : 'a'].flatMap((partition) => {
      const index = partition === 'a' ? 0 : 1
      return Array.from({ length: 700 }, (_, n) => ({
        partition,
        transactionId: `tx-${partition}-${n}-${texts[n % texts.length]}`,
        data: { n: index * 1000 + n, text: texts[n % texts.length]!.repeat((n % 7) + 1) },
      }))
    })
    expect(
      body.messages.map((m: any) => ({ partition: m.partition, transactionId: m.transactionId, data: m.data })),
    ).toEqual(expected)
    expect(new Set(body.messages.map((m: any) => m.leaseId))).toEqual(new Set([body.leaseId]))
    await ackBatch(broker, body.messages)
    await pushMany(broker, 'pop-large', 'a', 256, 5000)
    const small = await http(broker, 'GET', '/api/v1/pop/queue/pop-large?batch=1000')
    expect(small.body.messages).toHaveLength(256)
    expect(Number(small.headers.get('content-length'))).toBeGreaterThan(256 * 100)
  })

  it('never returns more than batch messages, and a leased partition is skipped by the same group', async () => {
    await pushMany(broker, 'pop-batch', 'p', 5)
    const first = await pop(broker, 'pop-batch', { batch: 2 })
    expect(numbers(first)).toEqual([0, 1])
    // The only partition is leased by the first pop: nothing for another consumer of the group.
    const second = await pop(broker, 'pop-batch', { batch: 2 })
    expect(second).toEqual({ success: false, error: 'no_available_partition', messages: [] })
    await ackBatch(broker, first.messages)
    const third = await pop(broker, 'pop-batch', { batch: 10 })
    expect(numbers(third)).toEqual([2, 3, 4])
  })

  it('claims up to `partitions` partitions in one pop, grouped by partition, under one lease', async () => {
    const pushedTo = ['a', 'b "q"', 'c']
    for (const [index, partition] of pushedTo.entries()) await pushMany(broker, 'pop-multi', partition, 2, index * 10)
    const body = await pop(broker, 'pop-multi', { batch: 10, partitions: 2 })
    expect(body.partitionsClaimed).toBe(2)
    expect(body.messages).toHaveLength(4)
    const partitions = body.messages.map((message: any) => message.partition)
    expect(new Set(partitions).size).toBe(2)
    expect(partitions[0]).toBe(partitions[1])
    // Each message names the partition it was pushed to, and one id per partition.
    for (const message of body.messages) expect(message.partition).toBe(pushedTo[Math.floor(message.data.n / 10)])
    const ids = new Map(body.messages.map((message: any) => [message.partition, message.partitionId]))
    expect(new Set(ids.values()).size).toBe(2)
    expect(body.partitionId).toBe(ids.get(body.partition))
    expect(new Set(body.messages.map((message: any) => message.leaseId))).toEqual(new Set([body.leaseId]))
    const rest = await pop(broker, 'pop-multi', { batch: 10, partitions: 5 })
    expect(rest.messages).toHaveLength(2)
    expect(partitions).not.toContain(rest.partition)
  })

  it('answers no_available_partition for an unknown queue and never creates it', async () => {
    const body = await pop(broker, 'never-pushed')
    expect(body).toEqual({ success: false, error: 'no_available_partition', messages: [] })
    const rows = await broker.db.query("SELECT count(*)::int AS n FROM queen.queues WHERE name = 'never-pushed'")
    expect(rows.rows[0].n).toBe(0)
  })

  it('serves the specific-partition route, with partition_not_found and lease_held', async () => {
    await pushMany(broker, 'pop-specific', 'left', 2)
    await pushMany(broker, 'pop-specific', 'right', 2, 10)
    const right = await pop(broker, 'pop-specific', { batch: 10 }, 'right')
    expect(numbers(right)).toEqual([10, 11])
    expect(await pop(broker, 'pop-specific', {}, 'right')).toEqual({
      success: false,
      error: 'lease_held',
      messages: [],
    })
    expect(await pop(broker, 'pop-specific', {}, 'nowhere')).toEqual({
      success: false,
      error: 'partition_not_found',
      messages: [],
    })
    const rows = await broker.db.query("SELECT count(*)::int AS n FROM queen.partitions WHERE name = 'nowhere'")
    expect(rows.rows[0].n).toBe(0)
  })

  it('gives every consumer group every message (fan-out) while consumers inside a group share them', async () => {
    await pushMany(broker, 'fanout', 'p', 3)
    const a = await pop(broker, 'fanout', { consumerGroup: 'A', batch: 10 })
    const b = await pop(broker, 'fanout', { consumerGroup: 'B', batch: 10 })
    expect(numbers(a)).toEqual([0, 1, 2])
    expect(numbers(b)).toEqual([0, 1, 2])
    expect(a.messages[0].consumerGroup).toBe('A')
    // Queue mode is a group of its own.
    const queueMode = await pop(broker, 'fanout', { batch: 10 })
    expect(numbers(queueMode)).toEqual([0, 1, 2])
  })

  it('starts a new named group at the oldest message by default, and at "now" with subscriptionMode=new', async () => {
    await pushMany(broker, 'subscribe', 'p', 2)
    const all = await pop(broker, 'subscribe', { consumerGroup: 'from-start', batch: 10 })
    expect(numbers(all)).toEqual([0, 1])
    const fresh = await pop(broker, 'subscribe', { consumerGroup: 'only-new', subscriptionMode: 'new', batch: 10 })
    expect(fresh.messages).toEqual([])
    await pushMany(broker, 'subscribe', 'p', 1, 100)
    const later = await pop(broker, 'subscribe', { consumerGroup: 'only-new', batch: 10 })
    expect(numbers(later)).toEqual([100])
    // new-only is the same as new.
    const newOnly = await pop(broker, 'subscribe', { consumerGroup: 'new-only-group', subscriptionMode: 'new-only' })
    expect(newOnly.messages).toEqual([])
  })

  it('treats every subscriptionMode other than new/new-only as all, from_beginning included', async () => {
    // A broker whose new groups start at "now" by default: only an explicit all-like mode reads history.
    const newByDefault = await startTestBroker({ label: 'sub_modes', config: { defaultSubscriptionMode: 'new' } })
    try {
      await pushMany(newByDefault, 'modes', 'p', 2)
      const implicit = await pop(newByDefault, 'modes', { consumerGroup: 'implicit', batch: 10 })
      expect(implicit.messages).toEqual([])
      for (const mode of ['from_beginning', 'all', 'earliest']) {
        const body = await pop(newByDefault, 'modes', { consumerGroup: `g-${mode}`, subscriptionMode: mode, batch: 10 })
        expect(numbers(body), mode).toEqual([0, 1])
      }
    } finally {
      await newByDefault.close()
    }
  })

  it('starts at subscriptionFrom and keeps the first recorded subscription on later pops', async () => {
    await pushMany(broker, 'subscribe-from', 'p', 2)
    await sleep(20)
    const cut = new Date().toISOString()
    await sleep(20)
    await pushMany(broker, 'subscribe-from', 'p', 2, 10)
    const body = await pop(broker, 'subscribe-from', { consumerGroup: 'g', subscriptionFrom: cut, batch: 10 })
    expect(numbers(body)).toEqual([10, 11])
    await ackBatch(broker, body.messages)
    // A later pop asking for "all" does not move the recorded start.
    await pushMany(broker, 'subscribe-from', 'p', 1, 20)
    const again = await pop(broker, 'subscribe-from', { consumerGroup: 'g', subscriptionMode: 'all', batch: 10 })
    expect(numbers(again)).toEqual([20])
  })

  it('settles at delivery with autoAck: no lease, leaseId "", never redelivered', async () => {
    await pushMany(broker, 'auto', 'p', 3)
    const body = await pop(broker, 'auto', { autoAck: true, batch: 2, consumerGroup: 'g' })
    expect(numbers(body)).toEqual([0, 1])
    expect(body.leaseId).toBe('')
    expect(body.messages.every((message: any) => message.leaseId === '')).toBe(true)
    const next = await pop(broker, 'auto', { autoAck: true, batch: 10, consumerGroup: 'g' })
    expect(numbers(next)).toEqual([2])
    const rows = await broker.db.query(
      "SELECT c.cursor_position, c.lease_id FROM queen.consumers c JOIN queen.queues q ON q.id = c.queue_id WHERE q.name = 'auto'",
    )
    expect(rows.rows).toEqual([{ cursor_position: 3, lease_id: null }])
  })

  it('holds messages for delayedProcessing seconds', async () => {
    await configure(broker, 'delayed', { delayedProcessing: 1 })
    await pushMany(broker, 'delayed', 'p', 1)
    expect((await pop(broker, 'delayed')).messages).toEqual([])
    await sleep(1100)
    expect(numbers(await pop(broker, 'delayed'))).toEqual([0])
  })

  it('waits for windowBuffer seconds of quiet on a partition, and says so on the partition route', async () => {
    await configure(broker, 'windowed', { windowBuffer: 1 })
    await pushMany(broker, 'windowed', 'p', 2)
    expect((await pop(broker, 'windowed')).messages).toEqual([])
    const specific = await pop(broker, 'windowed', {}, 'p')
    expect(specific).toMatchObject({ success: true, messages: [], windowBufferActive: true, leaseId: '' })
    await sleep(1100)
    expect(numbers(await pop(broker, 'windowed', { batch: 10 }))).toEqual([0, 1])
  })

  it('takes a disconnected long-poll out of line at once, so the next push goes to a live waiter', async () => {
    const slow = await startTestBroker({ label: 'gone', config: { popWait: WAKE_ONLY_POP_WAIT } })
    try {
      const abandoned = new AbortController()
      const dead = fetch(`${slow.url}/api/v1/pop/queue/gone-q?wait=true&timeout=30000`, {
        signal: abandoned.signal,
      }).catch((error: unknown) => error)
      // Waited for rather than slept on: on a loaded machine a request can take longer than 200 ms to park.
      expect(await parkedReaches(slow, 1)).toBe(1)
      const live = pop(slow, 'gone-q', { wait: true, timeout: 30_000 })
      expect(await parkedReaches(slow, 2)).toBe(2)
      abandoned.abort()
      expect(await dead).toBeInstanceOf(Error)
      expect(await parkedReaches(slow, 1)).toBe(1)
      const pushedAt = Date.now()
      await push(slow, [{ queue: 'gone-q', payload: { n: 1 } }])
      expect(numbers(await live)).toEqual([1])
      // Only a wake-up answers within the 60 s re-check interval: the message was not leased to the dead one.
      expect(Date.now() - pushedAt).toBeLessThan(5_000)
    } finally {
      await slow.close()
    }
  })

  it('wakes a parked long-poll on a push to that queue instead of finding it by polling', async () => {
    // With a 60 s re-check interval only a wake-up can answer this pop quickly.
    const slow = await startTestBroker({
      label: 'wake',
      config: { popWait: WAKE_ONLY_POP_WAIT },
    })
    try {
      const started = Date.now()
      const parked = pop(slow, 'wake-q', { wait: true, timeout: 30_000 })
      expect(await parkedReaches(slow, 1)).toBe(1)
      await push(slow, [{ queue: 'wake-q', payload: { n: 7 } }])
      const body = await parked
      expect(numbers(body)).toEqual([7])
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(slow.services.waiters.parked).toBe(0)
    } finally {
      await slow.close()
    }
  })

  it('queues a long-poll behind the pops already parked on its queue: first come, first served', async () => {
    // A 60 s re-check interval: only wakes re-check. The delayed message becomes deliverable without one,
    // while the first pop is parked; the second pop must not take it ahead of the first.
    const slow = await startTestBroker({
      label: 'fcfs',
      config: { popWait: WAKE_ONLY_POP_WAIT },
    })
    try {
      await configure(slow, 'fcfs', { delayedProcessing: 1 })
      await push(slow, [{ queue: 'fcfs', payload: { n: 0 } }])
      const first = pop(slow, 'fcfs', { wait: true, timeout: 30_000, batch: 10 })
      await sleep(1300)
      expect(await parkedReaches(slow, 1)).toBe(1)
      const second = pop(slow, 'fcfs', { wait: true, timeout: 1500, batch: 10 })
      expect(await parkedReaches(slow, 2)).toBe(2)
      // The wake of this push serves the oldest waiter, which finds the now deliverable message 0 (and not
      // the new one, still inside its delay).
      await push(slow, [{ queue: 'fcfs', payload: { n: 1 } }])
      expect(numbers(await first)).toEqual([0])
      expect((await second).messages).toEqual([])
    } finally {
      await slow.close()
    }
  })

  it('re-checks parked pops after an ack only when messages are left behind the lease or a push came meanwhile', async () => {
    // A 60 s re-check interval: only wakes re-check, and queen_pop_wakeups_total counts them.
    const slow = await startTestBroker({ label: 'ack-wake', config: { popWait: WAKE_ONLY_POP_WAIT } })
    const localWakeups = async () => {
      const response = await http(slow, 'GET', '/metrics/prometheus')
      return parsePrometheusText(response.body as string).value('queen_pop_wakeups_total', { source: 'local' })
    }
    const parkedCount = async (count: number) => {
      for (let tries = 0; tries < 100 && slow.services.waiters.parked !== count; tries++) await sleep(20)
      expect(slow.services.waiters.parked).toBe(count)
    }
    try {
      // Two messages behind the lease: the ack wakes the parked pop, which gets them at once.
      await pushMany(slow, 'ack-wake', 'a', 3)
      const first = await pop(slow, 'ack-wake', { batch: 1 })
      expect(numbers(first)).toEqual([0])
      const waiting = pop(slow, 'ack-wake', { wait: true, timeout: 30_000, batch: 10 })
      await parkedCount(1)
      const beforeLeft = await localWakeups()
      await ack(slow, first.messages[0])
      expect(numbers(await waiting)).toEqual([1, 2])
      expect(await localWakeups()).toBe(beforeLeft + 1)

      // Nothing behind the lease: the ack re-checks nobody, and the parked pop still answers the next push.
      await pushMany(slow, 'ack-wake', 'b', 1)
      const only = await pop(slow, 'ack-wake', { batch: 1 })
      expect(only.partition).toBe('b')
      const idle = pop(slow, 'ack-wake', { wait: true, timeout: 30_000 })
      await parkedCount(1)
      const beforeDrained = await localWakeups()
      await ack(slow, only.messages[0])
      await sleep(300)
      expect(await localWakeups()).toBe(beforeDrained)
      expect(slow.services.waiters.parked).toBe(1)
      await pushMany(slow, 'ack-wake', 'c', 1, 7)
      expect(numbers(await idle)).toEqual([7])

      // Nothing behind the lease, but the queue was woken while the ack ran (a push to another partition
      // during the ack): the release wakes the pop parked on this partition as well.
      await pushMany(slow, 'ack-wake', 'd', 1)
      const last = await pop(slow, 'ack-wake', { batch: 1 }, 'd')
      const onPartition = pop(slow, 'ack-wake', { wait: true, timeout: 30_000 }, 'd')
      await parkedCount(1)
      const beforeRace = await localWakeups()
      const message = last.messages[0]
      const acking = slow.services.ack.ack('', [
        {
          transactionId: message.transactionId,
          partitionId: message.partitionId,
          group: '__QUEUE_MODE__',
          leaseId: message.leaseId,
          status: 'completed',
          error: null,
        },
      ])
      // Partition x has no parked pop: this wake re-checks nobody; only the ack's own wake counts.
      slow.services.waiters.wake('', 'ack-wake', 'x')
      expect((await acking)[0]?.success).toBe(true)
      expect(await localWakeups()).toBe(beforeRace + 1)
      // That re-check found partition d empty: the pop is still parked and answers the next push there.
      expect(slow.services.waiters.parked).toBe(1)
      await pushMany(slow, 'ack-wake', 'd', 1, 9)
      expect(numbers(await onPartition)).toEqual([9])
    } finally {
      await slow.close()
    }
  })

  it('tells the other replicas of a released lease even when it re-checks nothing on its own broker', async () => {
    // Two replicas on one database; a push of the other one may have met the lease, so they must hear of it.
    const database = await createTestDatabase('ack-hint')
    const config = { popWait: WAKE_ONLY_POP_WAIT }
    const here = await startTestBroker({ database, durable: {}, config })
    const there = await startTestBroker({ database, durable: {}, config })
    const notifyWakeups = async () => {
      const response = await http(there, 'GET', '/metrics/prometheus')
      return parsePrometheusText(response.body as string).value('queen_pop_wakeups_total', { source: 'pg_notify' })
    }
    try {
      await pushMany(here, 'ack-hint', 'a', 1)
      const leased = await pop(here, 'ack-hint', { batch: 1 })
      expect(numbers(leased)).toEqual([0])
      const parked = pop(there, 'ack-hint', { wait: true, timeout: 30_000 })
      for (let tries = 0; tries < 100 && there.services.waiters.parked !== 1; tries++) await sleep(20)
      expect(there.services.waiters.parked).toBe(1)
      // The push's own hint reached `there` before its pop parked, so it re-checked nothing.
      await sleep(300)
      const before = await notifyWakeups()
      await ack(here, leased.messages[0])
      let after = before
      for (let tries = 0; tries < 100 && after === before; tries++) {
        await sleep(30)
        after = await notifyWakeups()
      }
      expect(after).toBe(before + 1)
      await pushMany(here, 'ack-hint', 'b', 1, 5)
      expect(numbers(await parked)).toEqual([5])
    } finally {
      await here.close()
      await there.close()
      await dropTestDatabase(database)
    }
  })

  it('answers the empty envelope when the long-poll timeout passes', async () => {
    const started = Date.now()
    const body = await pop(broker, 'quiet', { wait: true, timeout: 300, consumerGroup: 'g' })
    expect(Date.now() - started).toBeGreaterThanOrEqual(290)
    expect(body).toEqual({
      success: true,
      queue: 'quiet',
      partition: '',
      partitionId: null,
      leaseId: null,
      consumerGroup: 'g',
      messages: [],
    })
  })

  it('serves partitions least-recently-served first so a busy partition cannot starve the others', async () => {
    await pushMany(broker, 'fair', 'hot', 50)
    for (const partition of ['c1', 'c2', 'c3']) await pushMany(broker, 'fair', partition, 1)
    const served: string[] = []
    for (let index = 0; index < 4; index++) {
      const body = await pop(broker, 'fair', { batch: 5 })
      served.push(body.partition)
      await ackBatch(broker, body.messages)
    }
    expect(new Set(served)).toEqual(new Set(['hot', 'c1', 'c2', 'c3']))
  })

  it('releases the lease without counting a failure when the client is gone before the answer is written', async () => {
    await pushMany(broker, 'gone', 'p', 1)
    const { port } = new URL(broker.url)
    // The client sends its pop and hangs up at once; the broker finds the socket closed when it answers.
    await new Promise<void>((resolve) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => {
        socket.end('GET /api/v1/pop/queue/gone HTTP/1.1\r\nHost: x\r\n\r\n')
        socket.destroy()
        resolve()
      })
    })
    const deadline = Date.now() + 5000
    let released = false
    while (Date.now() < deadline && !released) {
      await sleep(50)
      const rows = await broker.db.query(
        "SELECT c.lease_id FROM queen.consumers c JOIN queen.queues q ON q.id = c.queue_id WHERE q.name = 'gone'",
      )
      released = rows.rows.length === 1 && rows.rows[0].lease_id === null
    }
    expect(released).toBe(true)
    const body = await pop(broker, 'gone', {})
    expect(body.messages).toHaveLength(1)
    expect(body.messages[0].retryCount).toBe(0)
    await ack(broker, body.messages[0])
  })
})

describe('GET /api/v1/pop (namespace/task)', () => {
  it('pops from queues matching namespace and task, higher priority first, each message naming its queue', async () => {
    await configure(broker, 'shop.orders', { priority: 1 })
    await configure(broker, 'shop.returns', { priority: 5 })
    await configure(broker, 'other.orders', {})
    await pushMany(broker, 'shop.orders', 'p', 2)
    await pushMany(broker, 'shop.returns', 'p', 1, 100)
    await pushMany(broker, 'other.orders', 'p', 1, 200)
    const response = await http(broker, 'GET', '/api/v1/pop?namespace=shop&batch=10&partitions=5')
    expect(response.status).toBe(200)
    expect(response.body.queue).toBe('shop.returns')
    expect(response.body.messages.map((message: any) => [message.queue, message.data.n])).toEqual([
      ['shop.returns', 100],
      ['shop.orders', 0],
      ['shop.orders', 1],
    ])
    await ackBatch(broker, response.body.messages)
    const byTask = await http(broker, 'GET', '/api/v1/pop?task=orders&batch=10')
    expect(byTask.body.messages.map((message: any) => message.queue)).toEqual(['other.orders'])
    const none = await http(broker, 'GET', '/api/v1/pop?namespace=nothing-here')
    expect(none.body).toEqual({ success: false, error: 'no_available_partition', messages: [] })
    const missing = await http(broker, 'GET', '/api/v1/pop')
    expect(missing.status).toBe(400)
    expect(missing.body.error).toBe('namespace or task is required')
  })

  it('wakes a namespace long-poll on a push to any matching queue', async () => {
    await configure(broker, 'wakens.a', {})
    const parked = http(broker, 'GET', '/api/v1/pop?namespace=wakens&wait=true&timeout=10000')
    await sleep(150)
    await pushMany(broker, 'wakens.a', 'p', 1, 5)
    const body = (await parked).body
    expect(body.messages.map((message: any) => message.data.n)).toEqual([5])
  })
})
