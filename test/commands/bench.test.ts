/**
 * `queenctl bench` against a real in-process broker: the messages it pushes come back and are acked, the
 * table shows each phase, the queue is deleted afterwards (or kept with --keep), and a queue that exists
 * or a push that is not stored is refused. No timing is asserted: rates are reported, not judged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Bench from '../../src/commands/bench.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { configure } from '../support/queen.js'
import { runCommand } from '../support/run-command.js'

let broker: TestBroker

beforeAll(async () => {
  broker = await startTestBroker({ label: 'cli_bench' })
})
afterAll(async () => {
  await broker.close()
})

const bench = (...argv: string[]) => runCommand(Bench, 'bench', ['--server', broker.url, ...argv])
const queueStatus = async (queue: string) => (await http(broker, 'GET', `/api/v1/resources/queues/${queue}`)).status

describe('queenctl bench', () => {
  it('pushes, pops and acks every message, prints each phase, and deletes its queue', async () => {
    const result = await bench('--messages', '250', '--batch', '100', '--partitions', '2', '-o', 'table')
    expect(result.code, result.stderr).toBe(0)
    const lines = result.stdout.split('\n').filter(Boolean)
    expect(lines[0]).toMatch(/^PHASE\s+MESSAGES\s+REQUESTS\s+SECONDS\s+MSG\/S$/)
    expect(lines[1]).toMatch(/^push\s+250\s+3\s+\d+\.\d{3}\s+[\d,]+$/)
    expect(lines[2]).toMatch(/^pop\s+250\s+\d+\s+\d+\.\d{3}\s+[\d,]+$/)
    expect(lines[3]).toMatch(/^ack\s+250\s+\d+\s+\d+\.\d{3}\s+[\d,]+$/)
    const queue = /queue (queenctl-bench-[0-9a-f]{8}) \(deleted\)/.exec(result.stderr)?.[1]
    expect(queue, result.stderr).toBeDefined()
    expect(result.stderr).toContain('npm run bench is the real benchmark')
    expect(await queueStatus(queue!)).toBe(404)
  })

  it('keeps the queue with --keep: every message completed, none pending', async () => {
    const result = await bench('--messages', '30', '--batch', '7', '--queue', 'bench-kept', '--keep', '-o', 'json')
    expect(result.code, result.stderr).toBe(0)
    const answer = JSON.parse(result.stdout)
    expect(answer).toMatchObject({ queue: 'bench-kept', kept: true, batch: 7 })
    expect(answer.phases.map((row: { phase: string; messages: number }) => [row.phase, row.messages])).toEqual([
      ['push', 30],
      ['pop', 30],
      ['ack', 30],
    ])
    expect(answer.phases[0].requests).toBe(5)
    const stored = await broker.db.query(
      `SELECT count(*)::int AS n FROM queen.messages m JOIN queen.partitions p ON p.id = m.partition_id
         JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'bench-kept'`,
    )
    expect(stored.rows[0].n).toBe(30)
    // Every one was acked: nothing is left to pop.
    const again = await http(broker, 'GET', '/api/v1/pop/queue/bench-kept?wait=false&batch=100')
    expect(again.body?.messages ?? []).toEqual([])
  })

  it('refuses a queue that exists and leaves it alone', async () => {
    await configure(broker, 'bench-taken')
    const result = await bench('--queue', 'bench-taken', '-o', 'table')
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'queenctl: queue "bench-taken" exists; bench pushes into a queue of its own and deletes it\n' +
        'hint: leave --queue out (a random name is used) or name a queue that does not exist\n',
    })
    expect(await queueStatus('bench-taken')).toBe(200)
  })

  it('exits 2 when pushes are not stored in PostgreSQL (push-maintenance without a spool)', async () => {
    await http(broker, 'POST', '/api/v1/system/maintenance', { enabled: true })
    try {
      const result = await bench('--messages', '5', '-o', 'table')
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(
        /^queenctl: push answered failed: \S.*\nhint: bench measures PostgreSQL-backed pushes/,
      )
    } finally {
      await http(broker, 'POST', '/api/v1/system/maintenance', { enabled: false })
    }
  })

  it('names a bad flag value', async () => {
    const result = await bench('--messages', '0', '-o', 'table')
    expect(result.code).toBe(1)
    expect(result.stderr.split('\n')[0]).toContain('--messages')
  })
})
