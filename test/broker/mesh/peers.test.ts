/**
 * The peer list and the mesh's boot rules (docs/operations.md, "Peers" and "Open mode"): parsing, and open mode refused
 * off loopback, both as rules and as a real boot that stops before touching anything.
 */
import { describe, expect, it } from 'vitest'
import pino from 'pino'
import { meshBootProblems, parsePeers } from '../../../src/broker/mesh/peers.js'
import { BootError, startBroker } from '../../../src/broker/server.js'
import { testBrokerConfig } from '../../support/broker.js'

describe('QUEEN_MESH_PEERS', () => {
  it('strips schemes and slashes, defaults the port, drops duplicates', () => {
    const { peers, problems } = parsePeers(
      [
        'http://queen-0.queen-mesh:6633/',
        'queen-1.queen-mesh',
        'https://QUEEN-0.queen-mesh:6633',
        '[::1]:7000',
        '10.0.0.2:7',
      ],
      6633,
    )
    expect(problems).toEqual([])
    expect(peers.map((peer) => peer.address)).toEqual([
      'queen-0.queen-mesh:6633',
      'queen-1.queen-mesh:6633',
      '[::1]:7000',
      '10.0.0.2:7',
    ])
  })

  it('names every entry it cannot parse', () => {
    const { problems } = parsePeers(['queen-0:99999', 'bad host', 'queen-2:x'], 6633)
    expect(problems).toEqual([
      'config error: QUEEN_MESH_PEERS: "queen-0:99999" has no valid port (1-65535)',
      'config error: QUEEN_MESH_PEERS: "bad host" is not host[:port]',
      'config error: QUEEN_MESH_PEERS: "queen-2:x" has no valid port (1-65535)',
    ])
  })
})

describe('open mode', () => {
  const config = (env: Record<string, string>) => testBrokerConfig(env)

  it('is allowed when the bind address and every peer are loopback', () => {
    expect(meshBootProblems(config({ HOST: '127.0.0.1', QUEEN_MESH_PEERS: '127.0.0.1:6643,localhost:6653' }))).toEqual(
      [],
    )
  })

  it('is refused off loopback unless QUEEN_MESH_ALLOW_OPEN=true, naming both variables', () => {
    const [problem] = meshBootProblems(config({ HOST: '127.0.0.1', QUEEN_MESH_PEERS: 'queen-1.queen-mesh:6633' }))
    expect(problem).toContain('QUEEN_SYNC_SECRET')
    expect(problem).toContain('QUEEN_MESH_ALLOW_OPEN')
    expect(problem).toContain('queen-1.queen-mesh')
    // The default bind address 0.0.0.0 is not loopback either.
    expect(meshBootProblems(config({ QUEEN_MESH_PEERS: '127.0.0.1:6643' }))).toHaveLength(1)
    expect(
      meshBootProblems(config({ QUEEN_MESH_PEERS: 'queen-1.queen-mesh:6633', QUEEN_MESH_ALLOW_OPEN: 'true' })),
    ).toEqual([])
    expect(
      meshBootProblems(config({ QUEEN_MESH_PEERS: 'queen-1.queen-mesh:6633', QUEEN_SYNC_SECRET: 's'.repeat(32) })),
    ).toEqual([])
  })

  it('stops a real boot with exit code 1 before anything starts', async () => {
    // PG_HOST points at nothing: had the boot gone on, it would fail differently (exit 2).
    const refused = startBroker(
      config({ PG_HOST: '127.0.0.1', PG_PORT: '1', QUEEN_MESH_PEERS: '10.1.2.3:6633' }),
      pino({ enabled: false }),
    )
    await expect(refused).rejects.toBeInstanceOf(BootError)
    await expect(refused).rejects.toMatchObject({ exitCode: 1, message: expect.stringContaining('QUEEN_SYNC_SECRET') })
  })
})

describe('queenctl env check', () => {
  it('reports the open-mode refusal serve would stop on', async () => {
    const { checkEnvironment } = await import('../../../src/cli/env-report.js')
    const result = await checkEnvironment({
      env: { QUEEN_MESH_PEERS: 'queen-1.queen-mesh:6633', FILE_BUFFER_DIR: '/tmp' },
      envFile: undefined,
      pg: false,
      replicas: 3,
    })
    expect(result.valid).toBe(false)
    expect(result.findings.find((finding) => finding.level === 'error')?.message).toMatch(
      /QUEEN_SYNC_SECRET.*QUEEN_MESH_ALLOW_OPEN/,
    )
  })
})
