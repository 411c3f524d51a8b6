import { fetchSystemSeries, SYSTEM_COLUMNS, systemFlags, windowNote, type SystemAnswer } from '../../cli/analytics.js'
import { HttpCommand } from '../../cli/http-command.js'

export default class AnalyticsSystem extends HttpCommand {
  static override summary = 'CPU, memory, event-loop lag and pool use of each broker replica over time'
  static override description =
    'GET /api/v1/analytics/system-metrics: TIME, SERVER, CPU (user + system), RSS, LOOP LAG P99, POOL (busy/total), WAITING (requests waiting for a connection), REQUESTS; -o wide adds HOST, PID, HEAP and PARKED POPS. One row per replica and bucket of the window (default the last hour).'

  static override examples = [
    '<%= config.bin %> analytics system',
    '<%= config.bin %> analytics system --worker-id queen-0 --from "6h ago" --output wide',
  ]

  static override flags = systemFlags

  async run(): Promise<SystemAnswer> {
    const { flags } = await this.parse(AnalyticsSystem)
    const out = this.output(flags)
    const answer = await fetchSystemSeries(await this.httpClient(flags), 'system-metrics', flags)
    out.list(answer.series, SYSTEM_COLUMNS)
    if (out.tabular) out.note(windowNote(answer))
    return answer
  }
}
