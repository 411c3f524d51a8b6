import { Flags } from '@oclif/core'
import {
  RETENTION_SERIES_COLUMNS,
  RETENTION_TOTAL_COLUMNS,
  retentionTotals,
  windowFlags,
  windowNote,
  windowQuery,
  type RetentionAnswer,
} from '../../cli/analytics.js'
import { HttpCommand } from '../../cli/http-command.js'

export default class AnalyticsRetention extends HttpCommand {
  static override summary = 'What the retention jobs deleted: expired, completed and evicted messages, empty partitions'
  static override description =
    'GET /api/v1/analytics/retention: the totals of the window (default the last hour) per kind (retention, completedRetention, eviction, partitions); --series prints one row per bucket and kind. -o wide explains each kind; -o json prints the broker answer.'

  static override examples = [
    '<%= config.bin %> analytics retention',
    '<%= config.bin %> analytics retention --from "7d ago" --series',
    '<%= config.bin %> analytics retention --from "1d ago" --output json',
  ]

  static override flags = {
    ...windowFlags,
    series: Flags.boolean({ description: 'one row per time bucket and kind instead of the totals', default: false }),
  }

  async run(): Promise<RetentionAnswer> {
    const { flags } = await this.parse(AnalyticsRetention)
    const out = this.output(flags)
    const client = await this.httpClient(flags)
    const answer = await client.get<RetentionAnswer>('/api/v1/analytics/retention', { query: windowQuery(flags) })
    if (flags.series) out.list(answer.series, RETENTION_SERIES_COLUMNS)
    else out.list(retentionTotals(answer), RETENTION_TOTAL_COLUMNS)
    if (out.tabular) out.note(windowNote(answer))
    return answer
  }
}
