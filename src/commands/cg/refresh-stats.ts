import { HttpCommand } from '../../cli/http-command.js'
import type { StatsRefreshAnswer } from '../../wire/index.js'

export default class CgRefreshStats extends HttpCommand {
  static override summary = 'Recompute the statistics snapshot (queue, partition and group counters) now'
  static override description =
    'POST /api/v1/stats/refresh. Prints the rows refreshed per level, or that another broker instance is refreshing already.'

  static override hiddenAliases = ['consumer-group:refresh-stats', 'consumer-groups:refresh-stats', 'stats:refresh']

  static override examples = [
    '<%= config.bin %> cg refresh-stats',
    '<%= config.bin %> cg refresh-stats --server http://queen-0.queen:6632 --output json',
  ]

  async run(): Promise<StatsRefreshAnswer> {
    const { flags } = await this.parse(CgRefreshStats)
    const out = this.output(flags)
    const answer = await (await this.httpClient(flags)).post<StatsRefreshAnswer>('/api/v1/stats/refresh', undefined)
    if ('skipped' in answer) out.confirm('another broker instance is refreshing the statistics already')
    else out.confirm('statistics refreshed')
    out.detail(answer, answer)
    return answer
  }
}
