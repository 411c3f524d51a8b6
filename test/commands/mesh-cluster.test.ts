/**
 * `queenctl mesh status` and `queenctl mesh ping` against three real meshed brokers on loopback (docs/cli.md
 * 9.6, docs/operations.md, "Handshake"): the peer table a user sees, and the handshake with the right secret, the wrong
 * one, and a port nobody listens on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import MeshPing from '../../src/commands/mesh/ping.js'
import MeshStatus from '../../src/commands/mesh/status.js'
import { freePort, meshConnected, startMeshCluster, type MeshCluster } from '../support/mesh-cluster.js'
import { runCommand } from '../support/run-command.js'

const SECRET = 'cli-mesh-secret-0123456789-0123456789-01'

let cluster: MeshCluster

beforeAll(async () => {
  cluster = await startMeshCluster({ names: ['queen-0', 'queen-1', 'queen-2'], secret: SECRET, label: 'cli_mesh3' })
  await meshConnected(cluster.brokers)
})
afterAll(async () => {
  await cluster?.close()
})

describe('queenctl mesh status', () => {
  it('shows self, two connected peers and auth hmac', async () => {
    const [first] = cluster.brokers
    const result = await runCommand(MeshStatus, 'mesh:status', ['--server', first!.url, '-o', 'table'])
    expect(result.code, result.stderr).toBe(0)
    const [summary, header, ...rows] = result.stdout.trimEnd().split('\n')
    expect(summary).toBe(`self queen-0  port ${cluster.ports[0]}  auth hmac  peers 2/3 connected`)
    expect(header).toMatch(/^PEER\s+SERVER ID\s+STATE\s+SINCE\s+LAST HEARTBEAT\s+RTT$/)
    expect(rows).toHaveLength(3)
    expect(rows[0]).toMatch(new RegExp(`^127\\.0\\.0\\.1:${cluster.ports[0]}\\s+queen-0\\s+self\\s`))
    expect(rows[1]).toMatch(new RegExp(`^127\\.0\\.0\\.1:${cluster.ports[1]}\\s+queen-1\\s+connected\\s`))
    expect(rows[2]).toMatch(new RegExp(`^127\\.0\\.0\\.1:${cluster.ports[2]}\\s+queen-2\\s+connected\\s`))
    expect(result.stderr).toBe('')
  })
})

describe('queenctl mesh ping', () => {
  const ping = (target: string, secret: string | undefined, ...argv: string[]) =>
    runCommand(MeshPing, 'mesh:ping', [target, ...argv], { env: { QUEEN_SYNC_SECRET: secret } })

  it('completes the handshake with the right secret', async () => {
    const result = await ping(`127.0.0.1:${cluster.ports[1]}`, SECRET, '-o', 'table')
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/reachable: yes/)
    expect(result.stdout).toMatch(/secret: matches/)
    expect(result.stdout).toMatch(/server id: queen-1/)
    const json = await ping(`127.0.0.1:${cluster.ports[1]}`, SECRET, '-o', 'json')
    expect(JSON.parse(json.stdout)).toMatchObject({ reachable: true, secretMatches: true, outcome: 'ok', auth: 'hmac' })
  })

  it('says the secret differs, exit 3', async () => {
    const result = await ping(`127.0.0.1:${cluster.ports[1]}`, 'wrong-secret-wrong-secret-wrong-secret!', '-o', 'table')
    expect(result.code).toBe(3)
    expect(result.stderr).toMatch(/different secret/)
    expect(result.stderr).toMatch(/QUEEN_SYNC_SECRET/)
  })

  it('says nothing answers at a closed port, exit 2', async () => {
    const result = await ping(`127.0.0.1:${await freePort()}`, SECRET, '-o', 'json')
    expect(result.code).toBe(2)
    expect(JSON.parse(result.stdout)).toMatchObject({ reachable: false, outcome: 'unreachable' })
    expect(result.stderr).toMatch(/nothing answers/)
  })

  it('refuses a target that is not host:port, naming it', async () => {
    const result = await ping('not a host', SECRET)
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/target: "not a host" is not host\[:port\]/)
  })
})
