import { fetchSystemSeries, SYSTEM_COLUMNS, systemFlags, windowNote, type SystemAnswer } from '../../cli/analytics.js'
import { HttpCommand } from '../../cli/http-command.js'

export default class AnalyticsWorker extends HttpCommand {
  static override summary = 'The per-worker series: one worker per broker process'
  static override description =
    'GET /api/v1/analytics/worker-metrics, kept for the dashboards and clients that read it. Each broker process is one worker, so it answers the same per-replica series as analytics system, with the same columns and flags.'

  static override examples = [
    '<%= config.bin %> analytics worker',
    '<%= config.bin %> analytics worker --hostname queen-1 --output json',
  ]

  static override flags = systemFlags

  async run(): Promise<SystemAnswer> {
    const { flags } = await this.parse(AnalyticsWorker)
    const out = this.output(flags)
    const answer = await fetchSystemSeries(await this.httpClient(flags), 'worker-metrics', flags)
    out.list(answer.series, SYSTEM_COLUMNS)
    if (out.tabular) out.note(windowNote(answer))
    return answer
  }
}
