import { Flags } from '@oclif/core'
import { fetchLagging, GROUP_COLUMNS, LAGGING_COLUMNS, type GroupRow, type LaggingRow } from '../cli/consumer-groups.js'
import { HttpCommand } from '../cli/http-command.js'

export default class Lag extends HttpCommand {
  static override summary =
    'Every consumer group with its lag; with --min-seconds only the partitions lagging that long'
  static override description =
    'Without --min-seconds (or with 0) every consumer group, as cg list prints it (GET /api/v1/consumer-groups), as the Go queenctl does; with --min-seconds N the (group, partition) pairs whose oldest unconsumed message is at least N seconds old (GET /api/v1/consumer-groups/lagging, as cg lag).'

  static override examples = ['<%= config.bin %> lag', '<%= config.bin %> lag --min-seconds 30']

  static override flags = {
    'min-seconds': Flags.integer({ description: 'only the partitions lagging at least this many seconds', min: 0 }),
  }

  async run(): Promise<GroupRow[] | LaggingRow[]> {
    const { flags } = await this.parse(Lag)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const minSeconds = flags['min-seconds']
    if (minSeconds === undefined || minSeconds === 0) {
      const groups = await client.get<GroupRow[]>('/api/v1/consumer-groups')
      out.list(groups, GROUP_COLUMNS)
      return groups
    }
    const rows = await fetchLagging(client, minSeconds)
    out.list(rows, LAGGING_COLUMNS)
    return rows
  }
}
