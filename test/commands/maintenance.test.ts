/**
 * `queenctl maintenance` (docs/cli.md, "queenctl maintenance") against a real in-process broker: run in this process
 * with stdout, stderr and the exit code captured, plus one smoke run of `node bin/run.js` from the build.
 */
import net from 'node:net'
import pg from 'pg'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import Maintenance from '../../src/commands/maintenance/index.js'
import MaintenanceOff from '../../src/commands/maintenance/off.js'
import MaintenanceOn from '../../src/commands/maintenance/on.js'
import MaintenanceStatus from '../../src/commands/maintenance/status.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { pgUrl, runCli } from '../support/cli-harness.js'
import { databaseConnection } from '../support/database.js'
import { runCommand } from '../support/run-command.js'

let broker: TestBroker

beforeAll(async () => {
  broker = await startTestBroker({ label: 'cli_maintenance' })
})
afterAll(async () => {
  await broker.close()
})
beforeEach(async () => {
  await http(broker, 'POST', '/api/v1/system/maintenance', { enabled: false })
  await http(broker, 'POST', '/api/v1/system/maintenance/pop', { enabled: false })
})

const status = (...argv: string[]) =>
  runCommand(MaintenanceStatus, 'maintenance:status', ['--server', broker.url, ...argv])
const on = (...argv: string[]) => runCommand(MaintenanceOn, 'maintenance:on', ['--server', broker.url, ...argv])
const off = (...argv: string[]) => runCommand(MaintenanceOff, 'maintenance:off', ['--server', broker.url, ...argv])

/** The broker's view of the flags. */
async function flags(): Promise<{ push: boolean; pop: boolean }> {
  const answer = await http(broker, 'GET', '/api/v1/system/maintenance')
  return { push: answer.body.maintenanceMode, pop: answer.body.popMaintenanceMode }
}

/** A URL where nothing listens. */
async function closedUrl(): Promise<string> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return `http://127.0.0.1:${port}`
}

// The test broker runs without a spool: the spool figures say so (unhealthy, nothing buffered).
const STATUS_TABLE = (push: 'on' | 'off', pop: 'on' | 'off') =>
  `push: ${push}\npop: ${pop}\nbuffered: 0\nbuffer: unhealthy\nquarantined: 0\ndatabase: reachable\n`

describe('queenctl maintenance status', () => {
  it('prints the flags, the buffered records, the buffer health and the quarantine as key/value YAML', async () => {
    const result = await status('--output', 'table')
    expect(result).toEqual({ code: 0, stdout: STATUS_TABLE('off', 'off'), stderr: '' })
  })

  it('is what the topic index prints', async () => {
    const result = await runCommand(Maintenance, 'maintenance', ['--server', broker.url, '-o', 'table'])
    expect(result).toEqual({ code: 0, stdout: STATUS_TABLE('off', 'off'), stderr: '' })
  })

  it('prints only the pop flag with --pop', async () => {
    await http(broker, 'POST', '/api/v1/system/maintenance/pop', { enabled: true })
    const result = await status('--pop', '-o', 'table')
    expect(result).toEqual({ code: 0, stdout: 'pop: on\n', stderr: '' })
  })

  it('prints its typed result as JSON with -o json, --json, and by default when piped, with the Go CLI keys', async () => {
    const expected = {
      push: false,
      pop: false,
      buffered: 0,
      bufferHealthy: false,
      quarantined: 0,
      dbHealthy: true,
      maintenanceMode: false,
      popMaintenanceMode: false,
    }
    for (const argv of [['-o', 'json'], ['--json'], []]) {
      const result = await status(...argv)
      expect(result.code, result.stderr).toBe(0)
      expect(JSON.parse(result.stdout)).toEqual(expected)
      expect(result.stdout).toBe(`${JSON.stringify(expected, null, 2)}\n`)
    }
  })

  it('prints the result as YAML with -o yaml', async () => {
    const result = await status('-o', 'yaml')
    expect(result.stdout).toBe(
      'push: false\npop: false\nbuffered: 0\nbufferHealthy: false\nquarantined: 0\ndbHealthy: true\nmaintenanceMode: false\npopMaintenanceMode: false\n',
    )
  })

  it('traces the HTTP request under --debug without printing the token', async () => {
    const result = await status('-o', 'table', '--debug', '--token', 'very-secret-token')
    expect(result.code).toBe(0)
    expect(result.stderr).toMatch(new RegExp(`^http: GET ${broker.url}/api/v1/system/maintenance 200 \\d+ms$`, 'm'))
    expect(result.stderr).not.toContain('very-secret-token')
  })

  it('reads the broker from QUEEN_SERVER', async () => {
    const result = await runCommand(MaintenanceStatus, 'maintenance:status', ['-o', 'table'], {
      env: { QUEEN_SERVER: broker.url },
    })
    expect(result.stdout).toBe(STATUS_TABLE('off', 'off'))
  })

  it('exits 2 with a hint naming the server when no broker answers', async () => {
    const url = await closedUrl()
    const result = await runCommand(MaintenanceStatus, 'maintenance:status', ['--server', url, '-o', 'table'])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe(
      `queenctl: cannot reach the broker at ${url}: ECONNREFUSED\n` +
        `hint: is a broker running at ${url}? Pass --server, set QUEEN_SERVER, or pick a --context\n`,
    )
  })

  it('prints the error as JSON on stdout under -o json, with the same exit code', async () => {
    const url = await closedUrl()
    const result = await runCommand(MaintenanceOff, 'maintenance:off', ['--server', url, '-o', 'json'])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe('')
    expect(JSON.parse(result.stdout)).toEqual({
      error: {
        code: 'unreachable',
        message: `cannot reach the broker at ${url}: ECONNREFUSED`,
        hint: `is a broker running at ${url}? Pass --server, set QUEEN_SERVER, or pick a --context`,
      },
    })
  })

  it('exits 1 for an unknown output format and for --json with another -o', async () => {
    const unknown = await status('-o', 'xml')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/^queenctl: unknown output format xml\nhint: use one of table, wide, json/)
    const path = await status('-o', 'jsonpath=.pop')
    expect(path).toEqual({ code: 0, stdout: 'false\n', stderr: '' })
    const badPath = await status('-o', 'jsonpath=pop(')
    expect(badPath.code).toBe(1)
    expect(badPath.stderr).toMatch(/^queenctl: -o jsonpath=pop\(: not a path/)
    const conflict = await status('--json', '-o', 'yaml')
    expect(conflict.code).toBe(1)
    expect(JSON.parse(conflict.stdout).error.message).toBe('--json and --output yaml ask for different formats')
  })
})

describe('queenctl maintenance on', () => {
  it('refuses without --yes when stdin is not a terminal, naming --yes, and changes nothing', async () => {
    const result = await on('-o', 'table')
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe(
      'queenctl: refusing to turn push maintenance on without --yes (stdin is not a terminal)\n' +
        'hint: run queenctl maintenance on --yes\n',
    )
    expect(await flags()).toEqual({ push: false, pop: false })
  })

  it('turns push-maintenance on: the broker reports it, pushes are sent to the spool, and it prints the state', async () => {
    const result = await on('--yes', '-o', 'table')
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe(STATUS_TABLE('on', 'off'))
    expect(result.stderr).toBe('Push maintenance is on: pushes are written to the spool and answered buffered\n')
    expect(await flags()).toEqual({ push: true, pop: false })

    // This broker has no spool, so a push that must be spooled is refused and nothing is stored.
    const push = await http(broker, 'POST', '/api/v1/push', { items: [{ queue: 'cli-maint', payload: { n: 1 } }] })
    expect(push.status).toBe(503)
    expect(push.body[0]).toMatchObject({ status: 'failed' })
    expect(push.body[0].error).toMatch(/^spool unavailable/)
  })

  it('is idempotent: already on is success and says so', async () => {
    await on('--yes')
    const again = await on('--yes', '-o', 'table')
    expect(again.code).toBe(0)
    expect(again.stdout).toBe(STATUS_TABLE('on', 'off'))
    expect(again.stderr).toMatch(/^push maintenance was already on: /)
  })

  it('turns pop-maintenance on with --pop: pops answer 204', async () => {
    const result = await on('--pop', '--yes', '-o', 'table')
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(STATUS_TABLE('off', 'on'))
    expect(result.stderr).toBe('Pop maintenance is on: pops answer 204\n')
    expect(await flags()).toEqual({ push: false, pop: true })
    const pop = await http(broker, 'GET', '/api/v1/pop/queue/cli-maint-pop?wait=false')
    expect(pop.status).toBe(204)
  })

  it('prints the change as JSON, and --quiet drops the confirmation', async () => {
    const result = await on('--yes', '--json', '--quiet')
    expect(result.code).toBe(0)
    expect(result.stderr).toBe('')
    expect(JSON.parse(result.stdout)).toEqual({
      push: true,
      pop: false,
      buffered: 0,
      bufferHealthy: false,
      quarantined: 0,
      dbHealthy: true,
      mode: 'push',
      enabled: true,
      changed: true,
      dryRun: false,
      via: 'http',
      message: 'Push maintenance is on: pushes are written to the spool and answered buffered',
    })
  })

  it('--dry-run changes nothing, and exits 4 without output when nothing would change', async () => {
    const planned = await on('--dry-run', '-o', 'table')
    expect(planned.code).toBe(0)
    expect(planned.stderr).toBe('would turn push maintenance on\n')
    expect(planned.stdout).toBe(STATUS_TABLE('off', 'off'))
    expect(await flags()).toEqual({ push: false, pop: false })

    await on('--yes')
    const noop = await on('--dry-run', '-o', 'table')
    expect(noop).toEqual({ code: 4, stdout: '', stderr: '' })
  })
})

describe('queenctl maintenance off', () => {
  it('turns push-maintenance off without confirmation, and pushes go to PostgreSQL again', async () => {
    await on('--yes')
    const result = await off('-o', 'table')
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(STATUS_TABLE('off', 'off'))
    expect(result.stderr).toBe('Push maintenance is off: spooled pushes are being replayed\n')
    expect(await flags()).toEqual({ push: false, pop: false })
    const push = await http(broker, 'POST', '/api/v1/push', { items: [{ queue: 'cli-maint', payload: { n: 2 } }] })
    expect(push.status).toBe(200)
    expect(push.body[0].status).toBe('queued')
  })

  it('turns pop-maintenance off with --pop and is a success when already off', async () => {
    await on('--pop', '--yes')
    expect((await off('--pop', '-o', 'table')).stdout).toBe(STATUS_TABLE('off', 'off'))
    const again = await off('--pop', '-o', 'table')
    expect(again.code).toBe(0)
    expect(again.stderr).toMatch(/^pop maintenance was already off: /)
  })
})

describe('queenctl maintenance --direct', () => {
  it('writes the flag into PostgreSQL, notifies queen_hints, and the broker applies it on re-read', async () => {
    const listener = new pg.Client(databaseConnection(broker.database))
    await listener.connect()
    try {
      const hints: string[] = []
      listener.on('notification', (message) => hints.push(message.payload ?? ''))
      await listener.query('LISTEN queen_hints')
      const before = Date.now()

      const result = await runCommand(MaintenanceOn, 'maintenance:on', [
        '--direct',
        '--pg-url',
        pgUrl(broker.database),
        '--yes',
        '-o',
        'table',
      ])
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toBe('push: on\npop: off\n')
      expect(result.stderr).toContain('push maintenance on in PostgreSQL')
      expect(result.stderr).toContain('QUEEN_STATE_REFRESH_MS')

      const rows = await broker.db.query("SELECT value FROM queen.system_state WHERE key = 'maintenance'")
      expect(rows.rows[0].value).toBe(true)
      await expect.poll(() => hints.length).toBe(1)
      const hint = JSON.parse(hints[0]!)
      expect(hint).toMatchObject({ type: 'MAINTENANCE_MODE_SET', enabled: true, from: 'queenctl' })
      expect(hint.ts).toBeGreaterThanOrEqual(before)

      // A broker that missed the notification converges at its periodic re-read.
      await broker.services.maintenance.load('database')
      expect(await flags()).toEqual({ push: true, pop: false })

      const read = await runCommand(MaintenanceStatus, 'maintenance:status', [
        '--direct',
        '--pg-url',
        pgUrl(broker.database),
        '-o',
        'table',
      ])
      expect(read).toEqual({ code: 0, stdout: 'push: on\npop: off\n', stderr: '' })

      const cleared = await runCommand(MaintenanceOff, 'maintenance:off', [
        '--direct',
        '--pg-url',
        pgUrl(broker.database),
        '--pop',
        '-o',
        'json',
      ])
      expect(cleared.code).toBe(0)
      expect(JSON.parse(cleared.stdout)).toMatchObject({ pop: false, mode: 'pop', changed: false, via: 'postgres' })
      await expect.poll(() => hints.length).toBe(2)
      expect(JSON.parse(hints[1]!)).toMatchObject({ type: 'POP_MAINTENANCE_MODE_SET', enabled: false })
    } finally {
      await listener.end()
      await broker.db.query("UPDATE queen.system_state SET value = 'false'::jsonb WHERE key = 'maintenance'")
      await broker.services.maintenance.load('database')
    }
  })

  it('exits 2 when PostgreSQL cannot be reached', async () => {
    const result = await runCommand(MaintenanceOn, 'maintenance:on', [
      '--direct',
      '--pg-url',
      'postgres://x:y@127.0.0.1:1/queen',
      '--yes',
    ])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/^queenctl: cannot connect to PostgreSQL: /)
  })
})

describe('queenctl maintenance from the build', () => {
  it('answers through bin/run.js, including the get and maint aliases', async () => {
    for (const argv of [['maintenance', 'get'], ['maint'], ['maint', 'status']]) {
      const result = await runCli([...argv, '--server', broker.url, '-o', 'table'])
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toBe(STATUS_TABLE('off', 'off'))
    }
    const refused = await runCli(['maintenance', 'on', '--server', broker.url])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('--yes')
  })
})
