import { Flags } from '@oclif/core'
import {
  intervalFlag,
  OVERVIEW_COLUMNS,
  queueFilterFlag,
  windowQuery,
  type OverviewAnswer,
} from '../../cli/analytics.js'
import { HttpCommand } from '../../cli/http-command.js'

export default class AnalyticsOverview extends HttpCommand {
  static override summary = 'Messages pushed per time bucket, cluster-wide or for one queue, namespace or task'
  static override description =
    'GET /api/v1/status/analytics: one row per bucket (TIME, MESSAGES pushed), from the per-minute metrics every replica writes. The window defaults to the last 24 hours; --interval picks minute, hour or day buckets (default: chosen from the window). -o json prints the broker answer.'

  static override examples = [
    '<%= config.bin %> analytics overview',
    '<%= config.bin %> analytics overview --queue orders --from "6h ago" --interval hour',
    '<%= config.bin %> analytics overview --namespace billing --from 2026-01-31 --to 2026-02-01 --output json',
  ]

  static override flags = {
    from: Flags.string({ description: 'start of the window: 15m, "2h ago", 2026-01-31, RFC 3339 (default 24h ago)' }),
    to: Flags.string({ description: 'end of the window (same forms as --from; default now)' }),
    interval: intervalFlag,
    queue: queueFilterFlag,
    namespace: Flags.string({ description: 'only queues of this namespace' }),
    task: Flags.string({ description: 'only queues of this task' }),
  }

  async run(): Promise<OverviewAnswer> {
    const { flags } = await this.parse(AnalyticsOverview)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const answer = await client.get<OverviewAnswer>('/api/v1/status/analytics', {
      query: {
        ...windowQuery(flags),
        interval: flags.interval,
        queue: flags.queue,
        namespace: flags.namespace,
        task: flags.task,
      },
    })
    out.list(answer.dataPoints, OVERVIEW_COLUMNS)
    if (out.tabular) out.note(`${answer.from} .. ${answer.to}, ${answer.interval} buckets`)
    return answer
  }
}
