/**
 * `queenctl lease extend` (docs/cli.md, "Data-plane commands", docs/http-api.md, "Lease extend") against a real
 * in-process broker; the new expiry is read back from the broker's view of the message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import LeaseExtend from '../../src/commands/lease/extend.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { pushPayloads, type WireMessage } from '../support/data-plane.js'
import { runCommand } from '../support/run-command.js'

let broker: TestBroker

beforeAll(async () => {
  broker = await startTestBroker({ label: 'cli_lease' })
})
afterAll(async () => {
  await broker.close()
})

const extend = (...argv: string[]) => runCommand(LeaseExtend, 'lease:extend', ['--server', broker.url, ...argv])

let queues = 0

async function leasedMessage(): Promise<WireMessage> {
  const queue = `lease-${++queues}`
  await pushPayloads(broker, queue, ['work'])
  const popped = await http(broker, 'GET', `/api/v1/pop/queue/${queue}`)
  return popped.body.messages[0] as WireMessage
}

/** When the broker says the message's lease expires. */
async function leaseExpiry(message: WireMessage): Promise<number> {
  const answer = await http(broker, 'GET', `/api/v1/messages/${message.partitionId}/${message.transactionId}`)
  return Date.parse(answer.body.leaseExpiresAt)
}

describe('queenctl lease extend', () => {
  it('extends a live lease and prints the new expiry', async () => {
    const message = await leasedMessage()
    const before = await leaseExpiry(message)
    const result = await extend(message.leaseId, '--seconds', '3600', '-o', 'table')
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toBe('')
    const printed = new RegExp(`^renewed ${message.leaseId} -> (\\S+)\n$`).exec(result.stdout)
    expect(printed).not.toBeNull()
    const expiresAt = Date.parse(printed![1]!)
    expect(await leaseExpiry(message)).toBe(expiresAt)
    // An hour from now: later than the queue's default lease of the pop.
    expect(expiresAt).toBeGreaterThan(before)
    expect(expiresAt).toBeGreaterThan(Date.now() + 3_500_000)
  })

  it('prints the broker answer under -o json, extending by 60 seconds by default', async () => {
    const message = await leasedMessage()
    const result = await extend(message.leaseId, '--json')
    expect(result.code).toBe(0)
    const answer = JSON.parse(result.stdout) as { expiresAt: string }
    expect(answer).toEqual({
      index: 0,
      leaseId: message.leaseId,
      success: true,
      error: null,
      expiresAt: expect.any(String),
    })
    expect(await leaseExpiry(message)).toBe(Date.parse(answer.expiresAt))
  })

  it('exits 2 for a lease the broker does not know', async () => {
    const lease = '0190f3c2-1111-7000-8000-00000000dead'
    expect(await extend(lease, '-o', 'table')).toEqual({
      code: 2,
      stdout: '',
      stderr:
        `queenctl: lease ${lease} was not renewed: Lease not found\n` +
        'hint: a lease lives until its messages are acked or it expires; pop again for a new one\n',
    })
  })

  it('exits 1 with the broker validation message for a lease id that is not a UUID', async () => {
    const result = await extend('not-a-lease', '-o', 'table')
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/^queenctl: leaseId: /)
  })

  it('exits 1 on bad usage', async () => {
    const zero = await extend('0190f3c2-1111-7000-8000-000000000002', '--seconds', '0')
    expect(zero.code).toBe(1)
    expect(zero.stderr).toMatch(/^queenctl: --seconds: Expected an integer greater than or equal to 1/)
    const none = await extend()
    expect(none.code).toBe(1)
    expect(none.stderr).toMatch(/^queenctl: Missing 1 required arg/)
    const unknown = await extend('x', '--bogus')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/^queenctl: Nonexistent flag: --bogus\n/)
  })
})
