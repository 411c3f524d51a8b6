/** The ledger checker (issue 38): each category of Ledger.audit names the ids behind it. */
import { describe, expect, it } from 'vitest'
import { Ledger, type PushEntry } from './ledger.js'

const all = (_entry: PushEntry) => true

function ledgerWith(pushes: [string, number, PushEntry['outcome']][]): Ledger {
  const ledger = new Ledger()
  for (const [txId, seq, outcome] of pushes) ledger.push({ txId, partition: 'q/p', seq, outcome, t0: seq, t1: seq })
  return ledger
}

describe('Ledger.audit', () => {
  it('reports a clean run as clean', () => {
    const ledger = ledgerWith([
      ['a', 0, 'ok'],
      ['b', 1, 'buffered'],
    ])
    ledger.deliver({ txId: 'a', group: 'g', partition: 'q/p', leaseId: 'L1', t: 1000 })
    ledger.deliver({ txId: 'b', group: 'g', partition: 'q/p', leaseId: 'L1', t: 1000 })
    ledger.acked({ txId: 'a', group: 'g', t: 1010 })
    ledger.acked({ txId: 'b', group: 'g', t: 1010 })
    expect(ledger.audit('g', all, 5000)).toEqual({
      group: 'g',
      acknowledged: 2,
      delivered: 2,
      lost: [],
      duplicatedAfterAck: [],
      outOfOrder: [],
      unexpected: [],
      doubleLeases: [],
      redelivered: [],
      recovered: [],
      failedYetDelivered: [],
    })
  })

  it('names lost, unexpected, out-of-order, duplicated-after-ack and double-leased ids', () => {
    const ledger = ledgerWith([
      ['lost', 0, 'buffered'],
      ['first', 1, 'ok'],
      ['second', 2, 'ok'],
      ['maybe', 3, 'unknown'],
      ['refused', 4, 'fail'],
    ])
    // "second" comes before "first": an inversion; "first" is then delivered again after its ack.
    ledger.deliver({ txId: 'second', group: 'g', partition: 'q/p', leaseId: 'L1', t: 1000 })
    ledger.deliver({ txId: 'first', group: 'g', partition: 'q/p', leaseId: 'L1', t: 1000 })
    ledger.acked({ txId: 'first', group: 'g', t: 1100 })
    ledger.deliver({ txId: 'first', group: 'g', partition: 'q/p', leaseId: 'L2', t: 1200 })
    // "second" again under another lease 2 s later, never acked: the first lease (5 s) was still live.
    ledger.deliver({ txId: 'second', group: 'g', partition: 'q/p', leaseId: 'L3', t: 3000 })
    ledger.deliver({ txId: 'ghost', group: 'g', partition: 'q/p', leaseId: 'L3', t: 3000 })
    ledger.deliver({ txId: 'maybe', group: 'g', partition: 'q/p', leaseId: 'L3', t: 3000 })
    ledger.deliver({ txId: 'refused', group: 'g', partition: 'q/p', leaseId: 'L3', t: 3000 })
    // Another group's deliveries do not count for this one.
    ledger.deliver({ txId: 'lost', group: 'other', partition: 'q/p', leaseId: 'L9', t: 1000 })

    const report = ledger.audit('g', all, 5000)
    expect(report.lost).toEqual(['lost'])
    expect(report.unexpected).toEqual(['ghost'])
    expect(report.outOfOrder).toEqual(['first'])
    expect(report.duplicatedAfterAck).toEqual(['first'])
    expect(report.doubleLeases).toEqual(['second'])
    expect(report.recovered).toEqual(['maybe'])
    expect(report.failedYetDelivered).toEqual(['refused'])
    expect(report.redelivered.sort()).toEqual(['first', 'second'])
  })

  it('counts the first lease from when its pop was sent, so a slow answer is no double lease', () => {
    const ledger = ledgerWith([
      ['slow', 0, 'ok'],
      ['quick', 1, 'ok'],
    ])
    // "slow" arrived 1.5 s after its pop was sent: its lease may have begun at 0 and expired at 5000.
    ledger.deliver({ txId: 'slow', group: 'g', partition: 'q/p', leaseId: 'L1', t: 1500, sent: 0 })
    ledger.deliver({ txId: 'slow', group: 'g', partition: 'q/p', leaseId: 'L2', t: 5100, sent: 5000 })
    // "quick" arrived 10 ms after its pop: its lease ran until 10_010 at least, and it came again at 14_900.
    ledger.deliver({ txId: 'quick', group: 'g', partition: 'q/p', leaseId: 'L3', t: 10_010, sent: 10_000 })
    ledger.deliver({ txId: 'quick', group: 'g', partition: 'q/p', leaseId: 'L4', t: 14_900, sent: 14_890 })
    const report = ledger.audit('g', all, 5000)
    expect(report.doubleLeases).toEqual(['quick'])
    expect(report.redelivered.sort()).toEqual(['quick', 'slow'])
  })

  it('allows a redelivery once the first lease could have expired', () => {
    const ledger = ledgerWith([['a', 0, 'ok']])
    ledger.deliver({ txId: 'a', group: 'g', partition: 'q/p', leaseId: 'L1', t: 1000 })
    ledger.deliver({ txId: 'a', group: 'g', partition: 'q/p', leaseId: 'L2', t: 6500 })
    const report = ledger.audit('g', all, 5000)
    expect(report.doubleLeases).toEqual([])
    expect(report.redelivered).toEqual(['a'])
  })
})
