/**
 * Wildcard consumers over many partitions through the real client, ledger-checked (docs/reliability.md, "The ledger"):
 * producers keep pushing to hundreds of partitions while consumers of queue mode and of a named group pop
 * several partitions at a time (the ready index of schema 015 decides what they get). Every pushed id must
 * reach each group exactly once, in partition order.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { Ledger } from '../support/ledger.js'
import { closeQueen, describeWithClient, openQueen, runConsumer } from './client.js'

const PARTITIONS = 400
const ROUNDS = 6
const QUEUE = 'wide-ledger'
const GROUPS = ['__QUEUE_MODE__', 'audit'] as const

describeWithClient('many partitions through the client', () => {
  let broker: TestBroker
  let queen: any
  beforeAll(async () => {
    broker = await startTestBroker({ label: 'compat_wide' })
    queen = await openQueen(broker)
  })
  afterAll(async () => {
    await closeQueen(queen)
    await broker?.close()
  })

  it('delivers every id to each group exactly once and in partition order while pushes keep coming', async () => {
    const ledger = new Ledger()
    const total = PARTITIONS * ROUNDS
    // Round r pushes one message to each of the 400 partitions p(200r) .. p(200r + 399), all at once, so
    // partitions get one or two messages and pushes commit out of order while consumers absorb them.
    const produce = async () => {
      for (let round = 0; round < ROUNDS; round++) {
        await Promise.all(
          Array.from({ length: PARTITIONS }, async (_, k) => {
            const partition = `p${round * (PARTITIONS / 2) + k}`
            const txId = `${partition}-${round}`
            const [result] = await queen
              .queue(QUEUE)
              .partition(partition)
              .push([{ transactionId: txId, data: { partition, round } }])
            ledger.push({ txId, partition, seq: round, outcome: result?.status === 'queued' ? 'ok' : 'fail' })
          }),
        )
      }
    }
    const seen = new Map<string, Set<string>>(GROUPS.map((group) => [group, new Set<string>()]))
    const consumer = (group: (typeof GROUPS)[number], partitions: number, batch: number) =>
      runConsumer(
        (signal) => {
          let builder = queen.queue(QUEUE)
          if (group !== '__QUEUE_MODE__') builder = builder.group(group)
          return builder
            .batch(batch)
            .partitions(partitions)
            .timeoutMillis(300)
            .consume(
              (messages: any[]) => {
                for (const m of messages) {
                  ledger.deliver({ txId: m.transactionId, group, partition: m.partition })
                  seen.get(group)!.add(m.transactionId)
                }
              },
              { signal },
            )
        },
        () => seen.get(group)!.size >= total,
        90_000,
      )
    const [, ...consumed] = await Promise.all([
      produce(),
      consumer('__QUEUE_MODE__', 8, 50),
      consumer('__QUEUE_MODE__', 8, 50),
      consumer('__QUEUE_MODE__', 1, 10),
      consumer('audit', 4, 20),
      consumer('audit', 16, 100),
    ])
    for (const { error } of consumed) expect(error).toBeUndefined()
    expect(ledger.pushes.filter((entry) => entry.outcome !== 'ok')).toEqual([])
    for (const group of GROUPS) {
      const report = ledger.check(group)
      expect({ group, lost: report.lost, unexpected: report.unexpected, inversions: report.inversions }).toEqual({
        group,
        lost: [],
        unexpected: [],
        inversions: [],
      })
      // Nothing was nacked and no lease expired: a second delivery would be a duplicate.
      expect({ group, duplicates: report.duplicates }).toEqual({ group, duplicates: [] })
      expect(report.acknowledged).toBe(total)
    }
  }, 120_000)
})
