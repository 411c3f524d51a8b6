import { Flags } from '@oclif/core'
import { fetchLagging, LAGGING_COLUMNS, type LaggingRow } from '../../cli/consumer-groups.js'
import { HttpCommand } from '../../cli/http-command.js'

export default class CgLag extends HttpCommand {
  static override summary = 'Partitions where a consumer group lags behind'
  static override description =
    'GET /api/v1/consumer-groups/lagging: every (group, partition) whose oldest unconsumed message is at least --min-seconds old (default 3600, the broker default). Prints nothing but the header when no group lags.'

  static override hiddenAliases = ['consumer-group:lag', 'consumer-groups:lag']

  static override examples = ['<%= config.bin %> cg lag', '<%= config.bin %> cg lag --min-seconds 60 --output wide']

  static override flags = {
    'min-seconds': Flags.integer({ description: 'lag threshold in seconds (default 3600)', min: 0 }),
  }

  async run(): Promise<LaggingRow[]> {
    const { flags } = await this.parse(CgLag)
    const out = this.output(flags)
    const rows = await fetchLagging(await this.httpClient(flags), flags['min-seconds'])
    out.list(rows, LAGGING_COLUMNS)
    return rows
  }
}
