/**
 * `queenctl mesh status` (docs/cli.md, "queenctl mesh status"): against a real broker, which today runs without a mesh,
 * and the peer table rendered from an answer of the documented shape (docs/http-api.md, "System").
 */
import { Chalk } from 'chalk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { meshColumns, meshHints, meshSummary, type MeshAnswer, type MeshPeer } from '../../src/cli/mesh.js'
import { renderTable } from '../../src/cli/output.js'
import MeshStatus from '../../src/commands/mesh/status.js'
import { http, startTestBroker, type TestBroker } from '../support/broker.js'
import { runCommand } from '../support/run-command.js'

let broker: TestBroker

beforeAll(async () => {
  // A tenancy header is configured: operator-only routes refuse a request carrying it (403).
  broker = await startTestBroker({ label: 'cli_mesh', config: { tenancy: { header: 'X-Queen-Tenant' } } })
})
afterAll(async () => {
  await broker.close()
})

const status = (...argv: string[]) => runCommand(MeshStatus, 'mesh:status', ['--server', broker.url, ...argv])

describe('queenctl mesh status against a broker without peers', () => {
  it('says plainly that no mesh is configured', async () => {
    expect(await status('-o', 'table')).toEqual({
      code: 0,
      stdout: 'no mesh configured: this broker runs alone (QUEEN_MESH_PEERS unset)\n',
      stderr: '',
    })
  })

  it('prints the route answer with -o json, without sending the tenancy header of --tenant', async () => {
    const direct = await http(broker, 'GET', '/api/v1/system/mesh', undefined, { 'X-Queen-Tenant': 'acme' })
    expect(direct.status).toBe(403)
    const result = await status('-o', 'json', '--tenant', 'acme')
    expect(result.code, result.stdout).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({
      serverId: 'test-broker',
      port: 0,
      auth: 'off',
      listening: false,
      peersConfigured: 0,
      peersConnected: 0,
      peers: [],
      inbound: [],
    })
  })
})

/** A peer as GET /api/v1/system/mesh answers it: a peer never heard from, with `fields` over it. */
function peer(fields: Partial<MeshPeer> & Pick<MeshPeer, 'address' | 'state'>): MeshPeer {
  return {
    serverId: null,
    since: null,
    lastHeartbeatAt: null,
    rttMs: null,
    framesIn: 0,
    framesOut: 0,
    authFailures: 0,
    lastError: null,
    restarts: 0,
    everConnected: false,
    alive: false,
    hint: null,
    stats: null,
    ...fields,
  }
}

describe('the mesh status table', () => {
  const now = Date.parse('2026-12-02T12:00:00Z')
  const answer: MeshAnswer = {
    serverId: 'queen-0',
    port: 6633,
    auth: 'hmac',
    listening: true,
    peersConfigured: 3,
    peersConnected: 2,
    peers: [
      peer({ address: 'queen-0.queen-mesh:6633', serverId: 'queen-0', state: 'self' }),
      peer({
        address: 'queen-1.queen-mesh:6633',
        serverId: 'queen-1',
        state: 'connected',
        since: '2026-12-02T09:56:00Z',
        lastHeartbeatAt: '2026-12-02T11:59:58Z',
        rttMs: 0.4,
        framesIn: 1520,
        framesOut: 1498,
        everConnected: true,
        alive: true,
        stats: {
          version: '0.1.0',
          parkedPops: 12,
          spoolRecords: 0,
          spoolBytes: 0,
          poolTotal: 10,
          poolIdle: 8,
          poolWaiting: 0,
          rates: { push: 0, pop: 0, ack: 0 },
        },
      }),
      peer({ address: 'queen-2.queen-mesh:6633', state: 'backoff', authFailures: 3, lastError: 'bad hmac' }),
    ],
    inbound: [],
  }
  const chalk = new Chalk({ level: 0 })

  it('prints the summary line and the docs/cli.md, "queenctl mesh status" columns', () => {
    expect(meshSummary(answer, chalk)).toBe('self queen-0  port 6633  auth hmac  peers 2/3 connected')
    expect(renderTable(answer.peers, meshColumns(now), { wide: false, headers: true, chalk })).toBe(
      'PEER                     SERVER ID  STATE      SINCE  LAST HEARTBEAT  RTT\n' +
        'queen-0.queen-mesh:6633  queen-0    self       -      -               -\n' +
        'queen-1.queen-mesh:6633  queen-1    connected  2h4m   2 seconds ago   0.4ms\n' +
        'queen-2.queen-mesh:6633  -          backoff    -      -               -\n',
    )
    const wide = renderTable(answer.peers, meshColumns(now), { wide: true, headers: true, chalk }).split('\n')
    expect(wide[0]).toMatch(/RTT\s+FRAMES IN\s+FRAMES OUT\s+AUTH FAILURES\s+LAST ERROR\s+PARKED POPS\s+SPOOL$/)
    expect(wide[2]).toMatch(/0\.4ms\s+1,520\s+1,498\s+0\s+-\s+12\s+0 \(0 B\)$/)
  })

  it('marks open mode and gives the hints of the spec', () => {
    expect(meshSummary({ ...answer, auth: 'off' }, chalk)).toContain('auth off (open mode)')
    expect(meshHints(answer)).toEqual(['authentication failures: QUEEN_SYNC_SECRET differs between replicas'])
    const disconnected = answer.peers.map((peer) =>
      peer.state === 'connected' ? { ...peer, state: 'connecting' as const } : peer,
    )
    expect(meshHints({ ...answer, peers: disconnected })[0]).toBe(
      'no peer is connected: check that port 6633 is TCP in the Services and NetworkPolicies and reachable from every replica',
    )
  })
})
