import { Args, Flags } from '@oclif/core'
import { EXIT, UserError } from '../../cli/errors.js'
import { meshPing, type MeshPingResult } from '../../cli/mesh-ping.js'
import { OutputCommand } from '../../cli/output-command.js'
import { parsePeer } from '../../broker/mesh/peers.js'

export default class MeshPing extends OutputCommand {
  static override summary = "Run the mesh handshake against a broker's mesh port"
  static override description =
    "Dials host:port (port default 6633), runs the HELLO challenge-response with this environment's QUEEN_SYNC_SECRET (empty = open mode) and closes without sending a hint. Reports whether the port answers and whether the secret matches. Exit 0 when the handshake succeeds, 3 when the secret differs, 2 when the port does not answer or is not a mesh."

  static override examples = [
    'QUEEN_SYNC_SECRET=... <%= config.bin %> mesh ping queen-1.queen-mesh:6633',
    '<%= config.bin %> mesh ping 127.0.0.1:6643 --output json',
  ]

  static override args = {
    target: Args.string({ description: 'host[:port] of a broker mesh port', required: true }),
  }

  static override flags = {
    timeout: Flags.integer({ description: 'milliseconds to wait for the handshake', default: 5000, min: 1 }),
  }

  async run(): Promise<MeshPingResult> {
    const { args, flags } = await this.parse(MeshPing)
    const out = this.output(flags)
    const peer = parsePeer(args.target, 6633)
    if (typeof peer === 'string')
      throw new UserError(`target: ${peer}`, { hint: 'give host:port, e.g. 127.0.0.1:6633' })
    const result = await meshPing(peer, process.env.QUEEN_SYNC_SECRET ?? '', flags.timeout)
    out.detail(
      {
        target: result.target,
        reachable: result.reachable ? 'yes' : 'no',
        secret: result.secretMatches === null ? 'unknown' : result.secretMatches ? 'matches' : 'differs',
        auth: result.auth === 'off' ? 'off (open mode: QUEEN_SYNC_SECRET unset)' : 'hmac',
        ...(result.serverId !== null ? { 'server id': result.serverId } : {}),
        ...(result.latencyMs !== null ? { handshake: `${result.latencyMs} ms` } : {}),
        ...(result.error !== null ? { error: result.error } : {}),
      },
      result,
    )
    if (result.outcome === 'ok') return result
    const [message, code, hint] =
      result.outcome === 'secret-mismatch'
        ? [
            `the mesh at ${result.target} has a different secret`,
            EXIT.auth,
            'QUEEN_SYNC_SECRET must be byte-identical on every replica',
          ]
        : result.outcome === 'unreachable'
          ? [
              `nothing answers at ${result.target}: ${result.error}`,
              EXIT.server,
              'check the address, that the broker has QUEEN_MESH_PEERS set, and that the port is TCP in Services and NetworkPolicies',
            ]
          : [
              `${result.target} answered but the handshake failed: ${result.error}`,
              EXIT.server,
              'is this the mesh port (QUEEN_MESH_PORT, default 6633) rather than HTTP?',
            ]
    if (out.format !== 'json') throw new UserError(message, { exitCode: code, hint })
    // JSON mode: the result document is the answer; the reason goes to stderr.
    this.logJson(result)
    out.warn(message)
    this.exit(code)
  }
}
