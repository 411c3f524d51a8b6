import { HttpCommand } from '../../cli/http-command.js'
import { meshAbsent, meshColumns, meshHints, meshSummary, NO_MESH, type MeshAnswer } from '../../cli/mesh.js'

export default class MeshStatus extends HttpCommand {
  static override summary = "Show the broker's view of the replica mesh"
  static override description =
    "GET /api/v1/system/mesh (admin; no tenancy header is sent): this broker's server id, mesh port and auth mode, then one row per peer with its state, connection age, last heartbeat and round trip; -o wide adds frames, auth failures, the last error and the peer's parked pops and spool. A broker without QUEEN_MESH_PEERS says so. Each replica answers for itself: run it against each (e.g. a port-forward per pod)."

  static override examples = [
    '<%= config.bin %> mesh status',
    '<%= config.bin %> mesh status --server http://localhost:6632 --output wide',
    '<%= config.bin %> mesh status --output json',
  ]

  async run(): Promise<MeshAnswer> {
    const { flags } = await this.parse(MeshStatus)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const answer = await client.get<MeshAnswer>('/api/v1/system/mesh', { tenant: false })
    if (!out.tabular) {
      out.detail({}, answer)
      return answer
    }
    if (meshAbsent(answer)) {
      out.write(`${NO_MESH}\n`)
      return answer
    }
    out.write(`${meshSummary(answer, out.chalk)}\n`)
    out.table(answer.peers, meshColumns())
    for (const hint of meshHints(answer)) out.note(`hint: ${hint}`)
    return answer
  }
}
