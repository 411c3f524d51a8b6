/**
 * The CLI against a broker with JWT_ENABLED=true (issue 19 part 4, end to end): `--token` is sent as the
 * bearer token, a token minted by `queenctl token create` is accepted, and a 401 or 403 exits 3 with the
 * broker's reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import QueueDelete from '../../src/commands/queue/delete.js'
import QueueList from '../../src/commands/queue/list.js'
import TokenCreate from '../../src/commands/token/create.js'
import { startTestBroker, type TestBroker } from '../support/broker.js'
import { runCommand } from '../support/run-command.js'
import { hsToken, SECRET } from '../broker/auth/tokens.js'

let broker: TestBroker
beforeAll(async () => {
  broker = await startTestBroker({ label: 'cli_auth', config: { auth: { enabled: true, secret: SECRET } } })
})
afterAll(async () => {
  await broker.close()
})

const list = (...argv: string[]) => runCommand(QueueList, 'queue:list', ['--server', broker.url, '-o', 'json', ...argv])

describe('queenctl with a bearer token', () => {
  it('a token from queenctl token create is accepted', async () => {
    const minted = await runCommand(
      TokenCreate,
      'token:create',
      ['--secret-env', 'JWT_SECRET', '--sub', 'alice', '--role', 'read-only', '--ttl', '1h'],
      { env: { JWT_SECRET: SECRET } },
    )
    expect(minted.code, minted.stderr).toBe(0)
    const listed = await list('--token', minted.stdout.trim())
    expect(listed.code, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout)).toBeDefined()
  })

  it('no token: exit 3 with the broker’s reason', async () => {
    const listed = await list()
    expect(listed.code).toBe(3)
    // With -o json the error is the JSON document on stdout.
    expect(JSON.parse(listed.stdout).error).toMatchObject({
      code: 'QUEEN_ERR_UNAUTHORIZED',
      message: 'Authentication required',
    })
  })

  it('a read-only token on an admin command: exit 3 with Insufficient permissions', async () => {
    const token = await hsToken({ sub: 'alice', role: 'read-only' })
    const deleted = await runCommand(QueueDelete, 'queue:delete', [
      '--server',
      broker.url,
      '--token',
      token,
      '--yes',
      'orders',
    ])
    expect(deleted.code).toBe(3)
    expect(deleted.stderr).toContain('Insufficient permissions')
  })
})
