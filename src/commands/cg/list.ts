import { HttpCommand } from '../../cli/http-command.js'
import { GROUP_COLUMNS, type GroupRow } from '../../cli/consumer-groups.js'

export default class CgList extends HttpCommand {
  static override summary = 'List consumer groups, one row per (group, queue)'
  static override description =
    'GET /api/v1/consumer-groups. STATE is Lagging (oldest unsettled message older than 5 minutes), Stable or Dead (never consumed). -o wide adds members and the subscription.'

  static override aliases = ['cg:ls', 'consumer-group:list', 'consumer-groups:list']
  static override hiddenAliases = ['consumer-group:ls', 'consumer-groups:ls']

  static override examples = ['<%= config.bin %> cg list', '<%= config.bin %> cg ls --output wide']

  async run(): Promise<GroupRow[]> {
    const { flags } = await this.parse(CgList)
    const out = this.output(flags)
    const rows = await (await this.httpClient(flags)).get<GroupRow[]>('/api/v1/consumer-groups')
    out.list(rows, GROUP_COLUMNS)
    return rows
  }
}
