/**
 * `queenctl status`, `ping`, `version` and `metrics` (docs/cli.md, "Command reference") against a real in-process
 * broker, and against a URL where nothing listens.
 */
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Metrics from '../../src/commands/metrics.js'
import Ping from '../../src/commands/ping.js'
import Status from '../../src/commands/status.js'
import Version from '../../src/commands/version.js'
import { BROKER_VERSION } from '../../src/broker/version.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { runCommand } from '../support/run-command.js'

let broker: TestBroker
let closed: string

/** A URL where nothing listens. */
async function closedUrl(): Promise<string> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return `http://127.0.0.1:${port}`
}

beforeAll(async () => {
  broker = await startTestBroker({ label: 'cli_status' })
  closed = await closedUrl()
  const items = [1, 2, 3].map((index) => ({ queue: 'st-orders', partition: `p${index % 2}`, payload: { index } }))
  expect((await http(broker, 'POST', '/api/v1/push', { items })).status).toBe(200)
})
afterAll(async () => {
  await broker.close()
})

describe('queenctl status', () => {
  it('summarises the cluster as key/value YAML', async () => {
    const result = await runCommand(Status, 'status', ['--server', broker.url, '-o', 'table'])
    expect(result.code).toBe(0)
    expect(result.stderr).toBe('')
    expect(result.stdout).toMatch(/^queues: \d+\npartitions: \d+\ntotal: \d+\npending: \d+\n/)
    expect(result.stdout).toContain('activeLeases: 0\n')
  })

  it('summarises one queue from the statistics snapshot: totals then a partition table', async () => {
    expect((await http(broker, 'POST', '/api/v1/stats/refresh')).status).toBe(200)
    const result = await runCommand(Status, 'status', ['--server', broker.url, 'st-orders', '-o', 'table'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^queue: st-orders\n/)
    expect(result.stdout).toContain('pending: 3\n')
    expect(result.stdout).toMatch(/PARTITION +PENDING +PROCESSING +COMPLETED\np[01] +[12] +0 +0\np[01] +[12] +0 +0\n$/)
  })

  it('an unknown queue exits 1', async () => {
    const result = await runCommand(Status, 'status', ['--server', broker.url, 'st-none'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('Queue not found')
  })
})

describe('queenctl ping', () => {
  it('prints the readiness status and the latency', async () => {
    const result = await runCommand(Ping, 'ping', ['--server', broker.url, '-o', 'table'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(
      new RegExp(
        `^server: ${broker.url.replace(/[.:/]/g, '\\$&')}\nstatus: healthy\ndatabase: connected\nversion: \\S+\nlatency: [\\d.]+ ms\n$`,
      ),
    )
  })

  it('--live asks /health/live', async () => {
    const result = await runCommand(Ping, 'ping', ['--server', broker.url, '--live'])
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({
      status: 'alive',
      server: broker.url,
      health: { status: 'alive' },
    })
  })

  it('an unreachable broker is exit 2', async () => {
    const result = await runCommand(Ping, 'ping', ['--server', closed])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`cannot reach the broker at ${closed}`)
  })

  it('a draining broker answers not ready: exit 2 with its status', async () => {
    const draining = await startTestBroker({ label: 'cli_status_drain' })
    try {
      draining.services.state.phase = 'draining'
      const result = await runCommand(Ping, 'ping', ['--server', draining.url, '-o', 'table'])
      expect(result.code).toBe(2)
      expect(result.stdout).toContain('status: draining\n')
      expect(result.stderr).toContain('is not ready: draining')
    } finally {
      draining.services.state.phase = 'ready'
      await draining.close()
    }
  })
})

describe('queenctl version', () => {
  it('--short prints only the CLI version and contacts nothing', async () => {
    const result = await runCommand(Version, 'version', ['--short', '--server', closed, '-o', 'table'])
    expect(result).toEqual({ code: 0, stdout: `${BROKER_VERSION}\n`, stderr: '' })
  })

  it('prints the CLI version, then the broker version and status', async () => {
    const result = await runCommand(Version, 'version', ['--server', broker.url, '-o', 'table'])
    expect(result).toEqual({
      code: 0,
      stdout: `cli: ${BROKER_VERSION}\nserver: ${broker.url}\nbroker: ${BROKER_VERSION}\nstatus: healthy\n`,
      stderr: '',
    })
  })

  it('an unreachable broker still prints the CLI version, says so, and exits 2', async () => {
    const result = await runCommand(Version, 'version', ['--server', closed, '-o', 'table'])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe(`cli: ${BROKER_VERSION}\nserver: ${closed}\nbroker: unreachable\n`)
    expect(result.stderr).toContain(`cannot reach the broker at ${closed}`)
  })
})

describe('queenctl metrics', () => {
  it('prints GET /metrics as pretty JSON', async () => {
    const result = await runCommand(Metrics, 'metrics', ['--server', broker.url, '-o', 'table'])
    expect(result.code).toBe(0)
    const expected = (await http(broker, 'GET', '/metrics')).body
    const printed = JSON.parse(result.stdout)
    expect(Object.keys(printed).sort()).toEqual(Object.keys(expected).sort())
    expect(result.stdout).toMatch(/^\{\n {2}"/)
  })

  it('--prometheus prints the text exposition', async () => {
    const result = await runCommand(Metrics, 'metrics', ['--server', broker.url, '--prometheus'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^# (HELP|TYPE) /m)
  })

  it('never sends the tenancy header, which the operator route refuses', async () => {
    const result = await runCommand(Metrics, 'metrics', ['--server', broker.url, '--tenant', 'acme'])
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toBeTypeOf('object')
  })
})
