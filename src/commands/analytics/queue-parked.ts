import {
  PARKED_COLUMNS,
  parkedRows,
  queueFilterFlag,
  windowFlags,
  windowNote,
  windowQuery,
  type ParkedAnswer,
} from '../../cli/analytics.js'
import { HttpCommand } from '../../cli/http-command.js'

export default class AnalyticsQueueParked extends HttpCommand {
  static override summary = 'Long-poll pops parked on each broker replica over time'
  static override description =
    'GET /api/v1/analytics/queue-parked-replicas: TIME, SERVER, PARKED POPS, one row per replica and bucket of the window (default the last hour); with --queue, only the pops parked on that queue. Many parked pops and little traffic is normal (consumers waiting); parked pops climbing with pending messages is not.'

  static override examples = [
    '<%= config.bin %> analytics queue-parked',
    '<%= config.bin %> analytics queue-parked --queue orders --from "2h ago" --output json',
  ]

  static override flags = { ...windowFlags, queue: queueFilterFlag }

  async run(): Promise<ParkedAnswer> {
    const { flags } = await this.parse(AnalyticsQueueParked)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const answer = await client.get<ParkedAnswer>('/api/v1/analytics/queue-parked-replicas', {
      query: { ...windowQuery(flags), queue: flags.queue },
    })
    out.list(parkedRows(answer), PARKED_COLUMNS)
    if (out.tabular) out.note(windowNote(answer))
    return answer
  }
}
