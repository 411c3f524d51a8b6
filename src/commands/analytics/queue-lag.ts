import { HttpCommand } from '../../cli/http-command.js'
import { QUEUE_LAG_COLUMNS, queueFilterFlag, windowFlags, windowQuery, type QueueLagRow } from '../../cli/analytics.js'

export default class AnalyticsQueueLag extends HttpCommand {
  static override summary = 'Time from push to pop per queue and time bucket'
  static override description =
    'GET /api/v1/analytics/queue-lag: TIME, QUEUE, POPS, AVG LAG and MAX LAG (how long popped messages had waited), one row per queue and bucket of the window (default the last hour). For the lag of consumer groups right now, see queenctl lag.'

  static override examples = [
    '<%= config.bin %> analytics queue-lag',
    '<%= config.bin %> analytics queue-lag --queue orders --from "6h ago" --output json',
  ]

  static override flags = { ...windowFlags, queue: queueFilterFlag }

  async run(): Promise<QueueLagRow[]> {
    const { flags } = await this.parse(AnalyticsQueueLag)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const rows = await client.get<QueueLagRow[]>('/api/v1/analytics/queue-lag', {
      query: { ...windowQuery(flags), queue: flags.queue },
    })
    out.list(rows, QUEUE_LAG_COLUMNS)
    return rows
  }
}
